"""`make bench` (machines): the MachineSet template preview at size (issue 11, item 5).

    python -m updates.bench_machineset [--nodes 500] [--pods 10000] [--owned 50] [--quick]

A cluster of --nodes nodes and --pods Running pods of 100 ReplicaSets (30 of them tolerate
key1:NoExecute), the first --owned nodes being the machines of one MachineSet (labelled
tier=batch, as its template makes them); 10 of the ReplicaSets select tier=batch (5 of
those tolerate the taint), so their pods wait for the new nodes and half of them stay
Pending, explained. The preview
of adding key1=value1:NoExecute to its template, without a database: what scaling the set
to 0 and back would do (updates.engine.template_rollout) and where every pod of its nodes
would go (machine_previews.rollout_preview: two what-if previews and the explainer of the
pods left Pending). Figures in CPU seconds of this process (`time.process_time`, the
steady figure on a shared machine), wall seconds beside. Figures, not tests;
`--quick` runs a small cluster so a test can check the command works.
"""

from __future__ import annotations

import argparse
import os
import time

NS = "openshift-machine-api"
API = "machine.openshift.io/v1beta1"


def build(nodes: int, pods: int, owned: int) -> list[dict]:
    labels = {"machine.openshift.io/cluster-api-cluster": "bench", "machine.openshift.io/cluster-api-machineset": "worker-a"}
    template = {"metadata": {"labels": {**labels, "machine.openshift.io/cluster-api-machine-role": "worker"}},
                "spec": {"providerSpec": {"value": {"instanceType": "m6i.4xlarge"}}, "metadata": {"labels": {"tier": "batch"}}}}
    docs: list[dict] = [{"apiVersion": API, "kind": "MachineSet", "metadata": {"name": "worker-a", "namespace": NS},
                         "spec": {"replicas": owned, "selector": {"matchLabels": labels}, "template": template}}]
    names = []
    for i in range(nodes):
        name = f"node-{i:04d}"
        names.append(name)
        docs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"z{i % 3}",
                                                           **({"tier": "batch"} if i < owned else {})}},
                     "status": {"capacity": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                                "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                                "conditions": [{"type": "Ready", "status": "True"}]}})
        if i < owned:
            docs.append({"apiVersion": API, "kind": "Machine",
                         "metadata": {"name": f"worker-a-{i}", "namespace": NS, "labels": template["metadata"]["labels"],
                                      "ownerReferences": [{"apiVersion": API, "kind": "MachineSet", "name": "worker-a", "controller": True}]},
                         "spec": template["spec"], "status": {"phase": "Running", "nodeRef": {"kind": "Node", "name": name}}})
    for j in range(pods):
        app = f"app{j % 100}"
        batch = j % 100 >= 90
        tolerations = [{"key": "key1", "operator": "Exists", "effect": "NoExecute"}] if j % 100 < 30 or j % 100 >= 95 else []
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"{app}-{j}", "namespace": "default", "labels": {"app": app},
                                  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app, "controller": True}]},
                     "spec": {"nodeName": names[j % owned] if batch else names[j % nodes], "tolerations": tolerations,
                              **({"nodeSelector": {"tier": "batch"}} if batch else {}),
                              "containers": [{"name": "c", "image": "registry.example/app:1",
                                              "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
                     "status": {"phase": "Running"}})
    return docs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--owned", type=int, default=50)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.nodes, args.pods, args.owned = 20, 200, 4
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
    import django

    django.setup()
    from scheduling.engine.scheduler.policy import default_policy
    from scheduling.engine.store import Store

    from updates import machine_previews
    from updates.engine import template_rollout

    docs = build(args.nodes, args.pods, args.owned)
    cpu, wall = time.process_time(), time.perf_counter()
    store = Store(docs)
    edited, _ = template_rollout.add_template_taint(store.get("MachineSet", NS, "worker-a"), "key1", "value1", "NoExecute")
    rollout = template_rollout.scale_to_zero_and_back(store, edited, args.owned, 0.0)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    preview = machine_previews.rollout_preview(docs, rollout, default_policy(), now=0.0)
    cpu2, wall2 = time.process_time(), time.perf_counter()
    print(f"MachineSet template preview: {args.nodes} nodes, {args.pods} pods, a set of {args.owned} "
          f"({len(rollout.displaced)} pods on its nodes, {len(preview.pending)} left Pending)")
    print(f"  scale to 0 and back (template_rollout)  {cpu1 - cpu:6.2f} s CPU  ({wall1 - wall:.2f} s wall)")
    print(f"  where the pods go (rollout_preview)     {cpu2 - cpu1:6.2f} s CPU  ({wall2 - wall1:.2f} s wall)")


if __name__ == "__main__":
    main()
