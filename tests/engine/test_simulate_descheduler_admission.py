"""`simulate` with a DeschedulerPolicy, the --descheduler-* flags, the node-selection
admission configuration documents and the requesting user (docs/commands.md)."""

from __future__ import annotations

import pytest
import yaml

from scheduling.store import kube
from scheduling.engine.api.node_selection_admission import UserInfo
from scheduling.engine.controllers.descheduler import Flags
from scheduling.engine.scheduler.policy import schedulers_for
from scheduling.engine.simulate import EXTRA_KINDS, SimulationError, simulate
from scheduling.engine.simulation import Simulation

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {region: east}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {region: west}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, uid: rs-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-web, controller: true}]
spec: {nodeName: node1, containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-b
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-web, controller: true}]
spec: {nodeName: node1, containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]}
"""

DUPLICATES = """\
apiVersion: "descheduler/v1alpha1"
kind: "DeschedulerPolicy"
strategies:
  "RemoveDuplicates":
     enabled: true
"""


def load(*texts: str) -> list[dict]:
    return [d for t in texts for d in kube.load_documents(t, "test.yaml", extra_kinds=EXTRA_KINDS)]


def events(out, *reasons):
    return [(e["reason"], e["object"], e["message"]) for e in out["events"] if e["reason"] in reasons]


def test_a_descheduler_policy_runs_once_at_time_0_after_the_first_scheduling_pass():
    out = simulate(load(CLUSTER, DUPLICATES), explain="none", until=30)
    assert events(out, "Descheduled", "DeschedulerRun") == [
        ("Descheduled", "Pod/default/web-b", "pod evicted by sigs.k8s.io/descheduler (RemoveDuplicates)"),
        ("DeschedulerRun", "DeschedulerPolicy/descheduler-policy", "1 pods evicted"),
    ]
    pods = {p["pod"]: (p["node"], p["phase"]) for p in out["pods"]}
    assert pods["default/web-b"] == ("node1", "Deleted")
    [replacement] = [k for k in pods if k not in ("default/web-a", "default/web-b")]
    assert pods[replacement] == ("node2", "Running")  # the ReplicaSet replaced it and the scheduler spread it
    assert out["descheduler"]["evictions"] == [
        {"pod": "default/web-b", "node": "node1", "strategy": "RemoveDuplicates",
         "reason": "another pod of ReplicaSet/web (web-a) runs on node node1", "evicted": True, "refusal": None}]
    assert out["descheduler"]["message"] == "1 pods evicted"


def test_until_0_leaves_the_evicted_pod_terminating():
    out = simulate(load(CLUSTER, DUPLICATES), explain="none")
    assert {p["pod"]: p["phase"] for p in out["pods"]}["default/web-b"] == "Terminating"


def test_dry_run_evicts_nothing_and_says_where_the_pod_would_land():
    out = simulate(load(CLUSTER, DUPLICATES), explain="none", descheduler_flags=Flags(dry_run=True))
    assert events(out, "Descheduled", "DeschedulerRun") == [
        ("DeschedulerRun", "DeschedulerPolicy/descheduler-policy", "would evict 1 pods")]
    assert {p["pod"]: p["phase"] for p in out["pods"]} == {"default/web-a": "Running", "default/web-b": "Running"}
    [entry] = out["descheduler"]["evictions"]
    assert (entry["pod"], entry["strategy"], entry["wouldLandOn"]) == ("default/web-b", "RemoveDuplicates", "node2")


def test_the_node_selector_flag_leaves_one_node_and_the_run_aborts():
    out = simulate(load(CLUSTER, DUPLICATES), explain="none", descheduler_flags=Flags(node_selector="region=east"))
    assert events(out, "DeschedulerRun") == [(
        "DeschedulerRun", "DeschedulerPolicy/descheduler-policy",
        "The cluster size is 0 or 1 meaning eviction causes service disruption or degradation. So aborting..")]


def test_a_bad_node_selector_flag_is_refused():
    with pytest.raises(SimulationError) as exc:
        simulate(load(CLUSTER, DUPLICATES), descheduler_flags=Flags(node_selector="a in ("))
    assert str(exc.value) == "descheduler flags: unable to parse requirement: found '', expected: ',', ')' or identifier"


def test_a_bad_descheduler_policy_is_refused():
    with pytest.raises(SimulationError) as exc:
        simulate(load(CLUSTER, DUPLICATES.replace("enabled: true", "enabled: sometimes")))
    assert str(exc.value) == ("failed decoding descheduler's policy config: "
                              "strategies.RemoveDuplicates.enabled: expected bool, got string")


# --- admission ------------------------------------------------------------------------------------------------

PNC = """\
apiVersion: v1
kind: PodNodeConstraintsConfig
nodeSelectorLabelBlacklist: [kubernetes.io/hostname, region]
"""

PENDING_IN_REGION = """\
apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: ns1}
spec:
  nodeSelector: {region: west}
  containers: [{name: c, image: busybox}]
"""


def test_pod_node_constraints_refuses_a_bound_pod_unless_the_user_may_bind():
    with pytest.raises(SimulationError) as exc:
        simulate(load(CLUSTER, PNC))
    assert str(exc.value) == 'pods "web-a" is forbidden: node selection by nodeName is prohibited by policy for your role'
    simulate(load(CLUSTER, PNC), user=UserInfo(can_bind=True))


def test_pod_node_constraints_refuses_a_blacklisted_label():
    with pytest.raises(SimulationError) as exc:
        simulate(load(PENDING_IN_REGION, PNC))
    assert str(exc.value) == 'pods "pinned" is forbidden: node selection by label(s) [region] is prohibited by policy for your role'


def test_no_admission_turns_the_node_selection_plugins_off():
    simulate(load(CLUSTER, PNC), admission=False)


def test_the_project_node_selector_places_the_pods_of_a_namespace():
    ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n  annotations: {openshift.io/node-selector: region=west}\n"
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns1}\nspec: {containers: [{name: c, image: busybox}]}\n"
    out = simulate(load(CLUSTER, ns, pod), explain="none")
    assert {p["pod"]: p["node"] for p in out["pods"]}["ns1/p"] == "node2"


def test_the_master_config_default_node_selector_applies_and_conflicts_are_refused():
    master = "apiVersion: v1\nkind: MasterConfig\nprojectConfig: {defaultNodeSelector: region=east}\n"
    with pytest.raises(SimulationError) as exc:
        simulate(load(PENDING_IN_REGION, master))
    assert str(exc.value) == 'pods "pinned" is forbidden: pod node label selector conflicts with its project node label selector'


def test_pod_node_selector_merges_into_pods_a_replica_set_creates():
    ns = ("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n"
          "  annotations: {scheduler.alpha.kubernetes.io/node-selector: region=west}\n")
    config = "apiVersion: v1\nkind: PodNodeSelectorConfig\npodNodeSelectorPluginConfig: {clusterDefaultNodeSelector: ''}\n"
    rs = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: api, namespace: ns1}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: busybox}]}
"""
    nodes = CLUSTER.split("---\napiVersion: apps/v1")[0]
    out = simulate(load(nodes, ns, config, rs), explain="none", until=1)
    assert sorted(p["node"] for p in out["pods"]) == ["node2", "node2"]


def test_a_node_may_create_its_own_mirror_pod():
    mirror = """\
apiVersion: v1
kind: Pod
metadata:
  name: static-web-node1
  annotations: {kubernetes.io/config.mirror: abc}
spec: {nodeName: node1, containers: [{name: c, image: busybox}]}
"""
    nodes = CLUSTER.split("---\napiVersion: apps/v1")[0]
    simulate(load(nodes, mirror, PNC), user=UserInfo("system:node:node1", ("system:nodes",)))
    with pytest.raises(SimulationError):
        simulate(load(nodes, mirror, PNC), user=UserInfo("system:node:node2", ("system:nodes",)))


def test_in_the_loop_a_descheduler_with_an_interval_runs_again_and_again():
    sim = Simulation(load(CLUSTER), schedulers=schedulers_for([]),
                     settings={"descheduler": {"policy": yaml.safe_load(DUPLICATES), "interval": 60, "flags": {}}})
    sim.run_until(130)
    runs = [(e.time, e.message) for e in sim.events if e.reason == "DeschedulerRun"]
    assert runs == [(0.0, "1 pods evicted"), (60.0, "0 pods evicted"), (120.0, "0 pods evicted")]
    assert sim.store.state_of("descheduler")["runs"] == 3


def test_an_apps_deployment_passes_pod_node_constraints_but_its_replica_sets_pods_are_refused():
    """3.11 checks extensions Deployments only; the ReplicaSet controller (no pods/binding
    in its role) then has its pods refused, while the DaemonSet controller may bind."""
    deploy = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {nodeSelector: {region: west}, containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {nodeSelector: {region: west}, containers: [{name: c, image: busybox}]}
"""
    nodes = CLUSTER.split("---\napiVersion: apps/v1")[0]
    out = simulate(load(nodes, deploy, PNC), explain="none", until=1)
    failed = events(out, "FailedCreate")
    assert len(failed) == 1 and failed[0][1].startswith("ReplicaSet/default/api-")
    rs_name = failed[0][1].split("/")[-1]
    assert failed[0][2] == (f'Error creating: pods "{rs_name}-" is forbidden: '
                            "node selection by label(s) [region] is prohibited by policy for your role")
    assert [p["pod"].split("-")[0] + "@" + str(p["node"]) for p in out["pods"]] == ["default/agent@node2"]
    with pytest.raises(SimulationError) as exc:
        simulate(load(nodes, deploy.replace("apps/v1\nkind: Deployment", "extensions/v1beta1\nkind: Deployment"), PNC))
    assert str(exc.value) == ('deployments.extensions "api" is forbidden: '
                              "node selection by label(s) [region] is prohibited by policy for your role")
