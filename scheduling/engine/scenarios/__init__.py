"""Built-in scenarios: the OpenShift documentation's worked examples on taints and tolerations
and on the Machine API, one YAML file each (Nodes, Pods, controllers and a Timeline),
loadable with scheduling.store.kube.load_documents and playable with engine.simulate.simulate(docs, until=scenario.until).

The engine reads no files: `path(scenario)` only says where the file is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    description: str
    file: str  # file name in this directory
    until: float  # how long to run the clock to see the whole example
    source: str  # the documentation sections it comes from, in words


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "multiple-taints",
        "Multiple taints",
        "node1 gets key1=value1:NoSchedule, key1=value1:NoExecute and key2=value2:NoSchedule; the pods tolerate the two "
        "key1 taints. The pod already running stays; the new pod cannot be scheduled (the third taint).",
        "multiple-taints.yaml",
        60,
        "OpenShift 4 docs, Understanding how to use multiple taints; OpenShift 3.11 docs, Using multiple taints",
    ),
    Scenario(
        "toleration-seconds",
        "tolerationSeconds: evicted after 3600 s, unless the taint goes first",
        "Both pods tolerate key1=value1:NoExecute for 3600 s. The pod on node2 is evicted at t=3600; the taint is "
        "removed from node1 at t=1800, so its pod is never evicted.",
        "toleration-seconds.yaml",
        4000,
        "OpenShift 4 docs, Using toleration seconds to delay pod evictions; "
        "OpenShift 3.11 docs, Using toleration seconds to delay pod evictions",
    ),
    Scenario(
        "default-toleration-seconds",
        "Taint-based eviction with the default 300 s",
        "node1 stops reporting at t=60: Ready Unknown at 105 (first 5 s check after the 40 s grace period), "
        "unreachable:NoExecute at 110, the Deployment's pods evicted at 410 (DefaultTolerationSeconds) and replaced "
        "on the other nodes; a pod tolerating 6000 s stays.",
        "default-toleration-seconds.yaml",
        600,
        "OpenShift 4 docs, Understanding evicting pods by condition (taint-based evictions); "
        "OpenShift 3.11 docs, Setting a default value for toleration seconds, Taint-based evictions",
    ),
    Scenario(
        "daemonset-tolerations",
        "DaemonSet pods are never evicted for node problems",
        "node1 is unreachable from t=0: the ordinary pod is evicted at 350, the DaemonSet pod tolerates "
        "unreachable and not-ready forever and stays. node1 reports again at t=3600.",
        "daemonset-tolerations.yaml",
        3700,
        "OpenShift 3.11 docs, DaemonSets and tolerations; "
        "OpenShift 4 docs, Understanding evicting pods by condition (taint-based evictions)",
    ),
    Scenario(
        "dedicated-nodes",
        "Dedicated nodes: taint, label and node affinity",
        "node1 is tainted and labelled dedicated=groupName. The group's pod (toleration and node affinity) runs on "
        "node1 only; a pod with the affinity but no toleration waits; other pods go elsewhere.",
        "dedicated-nodes.yaml",
        20,
        "OpenShift 4 docs, Binding a user to a node using taints and tolerations; "
        "OpenShift 3.11 docs, Dedicated nodes, Binding a user to a node",
    ),
    Scenario(
        "special-hardware",
        "Nodes with special hardware",
        "ssd-1 is tainted disktype=ssd:NoSchedule and ssd-2 disktype=ssd:PreferNoSchedule. The pod needing an SSD "
        "tolerates the taint and selects disktype=ssd; the ordinary pod goes to the plain node.",
        "special-hardware.yaml",
        20,
        "OpenShift 4 docs, Controlling nodes with special hardware; OpenShift 3.11 docs, Nodes with special hardware",
    ),
    Scenario(
        "tolerate-all",
        "Tolerating all taints",
        "A pod with `operator: Exists` alone tolerates every taint and stays when node1 gets NoSchedule and NoExecute "
        "taints at t=10; the ordinary pod is evicted at once.",
        "tolerate-all.yaml",
        60,
        "OpenShift 4 docs, Understanding how to tolerate all taints",
    ),
    Scenario(
        "control-plane-taint",
        "The control-plane taint",
        "master-0 has node-role.kubernetes.io/master:NoSchedule by default (adding it again is refused); ordinary "
        "pods go to the worker, a pod tolerating it and selecting masters runs on master-0.",
        "control-plane-taint.yaml",
        20,
        "OpenShift 4 docs, Understanding taints and tolerations, Adding taints and tolerations",
    ),
)

# The Machine API: the machine deletion lifecycle hooks and taints through a MachineSet. The
# workers and control plane are running at 0; except in machine-deletion-hooks (where the
# user acts as the owners), the simulated hook owners act by themselves (machines annotated
# clusterui.io/simulated-hook-owners).
SCENARIOS += (
    Scenario(
        "machine-deletion-hooks",
        "Machine deletion, held by lifecycle hooks",
        "The documentation's example hooks: MigrateImportantApp (preDrain) and BackupFileSystem, CloudProviderSpecialCase, "
        "WaitForStorageDetach (preTerminate), with no controller behind them: a worker deleted at t=60 stays Deleting, "
        "Drainable=False, until you act as each hook's owner and remove its hook from the machine's page.",
        "machine-deletion-hooks.yaml",
        120,
        "OpenShift 4 docs, machine deletion lifecycle hooks: the deletion flow and the hook configuration",
    ),
    Scenario(
        "machine-proactive-replacement",
        "Proactive machine replacement (preDrain)",
        "The ProactiveReplacement preDrain hook keeps a deleted worker's pods where they are until its replacement has "
        "joined the cluster: deleted at 60, replacement Running at 300, then the drain and the deletion.",
        "machine-proactive-replacement.yaml",
        400,
        "OpenShift 4 docs, machine deletion lifecycle hooks: example use cases (preDrain: proactive replacement)",
    ),
    Scenario(
        "machine-custom-drain",
        "Custom drain logic (preDrain)",
        "A MachineSet scale-down picks the annotated worker (delete-machine annotation at 60); the app-migration "
        "controller moves its important app first (60 s), then removes its hook and the machine controller drains.",
        "machine-custom-drain.yaml",
        300,
        "OpenShift 4 docs, machine deletion lifecycle hooks: example use cases (preDrain: custom drain logic)",
    ),
    Scenario(
        "machine-storage-detach",
        "Storage detached before the instance goes (preTerminate)",
        "A deleted worker is drained at once; CloudProviderSpecialCase (20 s) and WaitForStorageDetach (45 s) hold the "
        "instance until the storage is detached (105), then it is deleted.",
        "machine-storage-detach.yaml",
        300,
        "OpenShift 4 docs, machine deletion lifecycle hooks: example use cases (preTerminate: storage detachment)",
    ),
    Scenario(
        "machine-log-flush",
        "Log flush delay (preTerminate)",
        "A scale-down drains a worker (70); the logging operator's LogFlushDelay hook keeps the instance 90 s so the "
        "log exporter catches up, then the instance and the Node are deleted.",
        "machine-log-flush.yaml",
        300,
        "OpenShift 4 docs, machine deletion lifecycle hooks: example use cases (preTerminate: log reliability)",
    ),
    Scenario(
        "etcd-quorum-guard",
        "Replacing control-plane machines under the etcd quorum guard",
        "master-2 is deleted at 60: a fourth control-plane machine joins (300), its etcd member is added as a learner "
        "(360), promoted (480), the old member is removed and only then the EtcdQuorumOperator hook: drain and "
        "deletion. master-1, deleted at 120, is held until its own replacement is promoted (720).",
        "etcd-quorum-guard.yaml",
        900,
        "OpenShift 4 docs, machine deletion lifecycle hooks: quorum protection with machine lifecycle hooks "
        "(the etcd operator)",
    ),
    Scenario(
        "machineset-taints",
        "Taints through a MachineSet",
        "The MachineSet template gets key1=value1:NoExecute at 60: the existing nodes do not change. Scaled to 0 at 120 "
        "and back to 2 at 300, the new nodes (540) carry the taint; the pod tolerating it runs there, the one without "
        "the toleration stays Pending. The MachineSet page previews the edit: where each pod would go.",
        "machineset-taints.yaml",
        700,
        "OpenShift 4 docs, Adding taints and tolerations using a machine set",
    ),
    Scenario(
        "eus-to-eus-update",
        "EUS to EUS: 4.16 to 4.18 with the worker pools paused",
        "A 9-node cluster at 4.16.60 on eus-4.18: the worker and infra pools are paused (60), the control plane goes "
        "to 4.17.56 (120) and then to 4.18.52 (7260); at 4.18 kube-apiserver says the 4.16 kubelets would not be "
        "supported after another minor update and the 4.18 admin gate waits for its ack. Unpaused at 14460, each "
        "worker and infra node reboots once, straight to 4.18; the control-plane nodes rebooted twice.",
        "eus-to-eus-update.yaml",
        22000,
        "OpenShift 4 docs, Performing a Control Plane Only update (EUS-to-EUS update); the Cluster Version Operator's "
        "admin gates; the kube-apiserver operator's kubelet version skew check",
    ),
)

BY_NAME = {s.name: s for s in SCENARIOS}


def path(scenario: Scenario | str) -> str:
    """The scenario's YAML file."""
    s = BY_NAME[scenario] if isinstance(scenario, str) else scenario
    return os.path.join(HERE, s.file)
