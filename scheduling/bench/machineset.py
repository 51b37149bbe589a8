"""`make bench` (machines): the MachineSet previews at size.

    python -m scheduling.bench.machineset [--nodes 500] [--pods 10000] [--owned 50] [--quick]

A cluster of --nodes nodes and --pods Running pods of 100 ReplicaSets (30 of them tolerate
key1:NoExecute), the first --owned nodes being the machines of one MachineSet (labelled
tier=batch, as its template makes them); 10 of the ReplicaSets select tier=batch (5 of
those tolerate the taint), so their pods wait for the new nodes and half of them stay
Pending. The preview of adding key1=value1:NoExecute to its template, without a database, as
the page runs it: the cluster's loop (engine.simulation.Simulation) run to its clock, the
edit applied on it and the loop run until nothing more happens, then `oc scale --replicas=0`
and again, then `oc scale` back and again (engine.preview.run_preview each time, summarised
by machine_previews.summarise). Figures in CPU seconds of this process (`time.process_time`, the
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
    for a in range(100):  # the controllers of the pods: what creates the evicted ones again
        batch = a >= 90
        tolerations = [{"key": "key1", "operator": "Exists", "effect": "NoExecute"}] if a < 30 or a >= 95 else []
        docs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": f"app{a}", "namespace": "default"},
                     "spec": {"replicas": len(range(a, pods, 100)), "selector": {"matchLabels": {"app": f"app{a}"}},
                              "template": {"metadata": {"labels": {"app": f"app{a}"}},
                                           "spec": {"tolerations": tolerations, **({"nodeSelector": {"tier": "batch"}} if batch else {}),
                                                    "containers": [{"name": "c", "image": "registry.example/app:1",
                                                                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}})
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
    from scheduling.engine import actions as A
    from scheduling.engine.oc import commands
    from scheduling.engine.preview import run_preview
    from scheduling.engine.scheduler.policy import schedulers_for
    from scheduling.engine.simulation import Simulation

    from updates import machine_previews as MP
    from scheduling.engine.openshift import template_rollout

    docs = build(args.nodes, args.pods, args.owned)
    figures = []

    def timed(label, work):
        cpu, wall = time.process_time(), time.perf_counter()
        out = work()
        figures.append((label, time.process_time() - cpu, time.perf_counter() - wall))
        return out

    def step(sim, title, actions):
        before = MP.Objects.of(sim)
        return MP.summarise(title, before, run_preview(sim, actions, None))

    def scale(sim, replicas):
        argv = MP.scale_command(NS, "worker-a", replicas)
        return step(sim, " ".join(argv), commands.run(sim.store, argv, sim.now).actions)

    def at_clock():
        sim = Simulation(docs, schedulers=schedulers_for([]), explain=False)
        sim.run_until(0.0)
        return sim

    sim = timed("the loop to the clock (Simulation)", at_clock)
    edited, _ = template_rollout.add_template_taint(sim.store.get("MachineSet", NS, "worker-a"), "key1", "value1", "NoExecute")
    timed("the edit applied (run_preview)", lambda: step(sim, "oc apply", [A.ReplaceObject(edited)]))
    down = timed("scale to 0 (run_preview)", lambda: scale(sim, 0))
    up = timed(f"scale back to {args.owned} (run_preview)", lambda: scale(sim, args.owned))
    print(f"MachineSet template preview: {args.nodes} nodes, {args.pods} pods, a set of {args.owned} "
          f"({len(down.gone)} pods evicted or deleted, {len(down.machines)} machines deleted, {len(up.nodes_new)} nodes "
          f"joined, {len(up.started)} pods started, {len(up.pending)} left Pending)")
    for label, cpu, wall in figures:
        print(f"  {label:<40} {cpu:6.2f} s CPU  ({wall:.2f} s wall)")


if __name__ == "__main__":
    main()
