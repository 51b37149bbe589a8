"""`make bench` (updates): a 1,000-node cluster (3 pools: master, worker, infra) with 10,000
pods behind PodDisruptionBudgets updated end to end through the shared event loop (the
CVO runlevel by runlevel, then the MCO rolling every pool), and the progress page's
figures at that size.

    python -m scheduling.bench.update [--quick] [--nodes N] [--pods N] [--seed N]

The cluster: 3 control-plane nodes, the rest split 70/30 between the worker and infra
pools (maxUnavailable 10% each, master 1), nodes in three zones; 100 ReplicaSets of pods
already running (bound, Running) spread over the workers and infra nodes, each with a PDB
(maxUnavailable 1 or 10%) and a DaemonSet pod on every node. The update requests the next
z-stream at t=0 and runs until every pool is updated. Figures: wall and CPU seconds of the
run (target < 30 s), simulated duration, instants, events, nodes updated, pods evicted;
then the progress page's view model built from the final documents (target < 300 ms).
Figures, not tests; `--quick` runs a small cluster so a test can check the
command works. Needs no database.
"""

from __future__ import annotations

import argparse
import gc
import random
import time

from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulation import Simulation
from scheduling.engine.openshift import progress

FROM, TO = "4.13.19", "4.13.30"
WALL_TARGET_S = 30  # the 1,000-node update simulated end to end, in wall seconds
VIEW_TARGET_MS = 300  # ... and its progress page
CAPACITY = {"cpu": "32", "memory": "128Gi", "pods": "250"}


def build(nodes: int, pods: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    docs: list[dict] = [{
        "apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
        "spec": {"channel": "stable-4.13", "clusterID": "00000000-0000-4000-8000-000000000000",
                 "desiredUpdate": {"version": TO}},
        "status": {"desired": {"version": FROM}}}]
    names: dict[str, list[str]] = {"master": [], "worker": [], "infra": []}
    workers = nodes - 3
    for i in range(nodes):
        role = "master" if i < 3 else "worker" if i < 3 + int(workers * 0.7) else "infra"
        name = f"{role}-{len(names[role]):04d}"
        names[role].append(name)
        labels = {f"node-role.kubernetes.io/{role}": "", "kubernetes.io/hostname": name,
                  "topology.kubernetes.io/zone": f"zone-{'abc'[i % 3]}"}
        if role == "infra":
            labels["node-role.kubernetes.io/worker"] = ""
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels, "creationTimestamp": 0},
                     "status": {"capacity": dict(CAPACITY), "allocatable": dict(CAPACITY),
                                "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": 0,
                                                "lastTransitionTime": 0, "reason": "KubeletReady",
                                                "message": "kubelet is posting ready status"}]}})
    docs.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "node-exporter", "namespace": "monitoring"},
                 "spec": {"selector": {"matchLabels": {"app": "node-exporter"}},
                          "template": {"metadata": {"labels": {"app": "node-exporter"}},
                                       "spec": {"tolerations": [{"operator": "Exists"}],
                                                "containers": [{"name": "exporter", "image": "quay.io/prometheus/node-exporter:v1"}]}}}})
    for p, role in (("worker", "worker"), ("infra", "infra"), ("master", "master")):
        docs.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                     "metadata": {"name": p, "creationTimestamp": 0},
                     "spec": {"machineConfigSelector": {"matchLabels": {"machineconfiguration.openshift.io/role": role}}
                              if p != "infra" else {"matchExpressions": [{"key": "machineconfiguration.openshift.io/role",
                                                                           "operator": "In", "values": ["worker", "infra"]}]},
                              "nodeSelector": {"matchLabels": {f"node-role.kubernetes.io/{role}": ""}},
                              "maxUnavailable": 1 if p == "master" else "10%", "paused": False}})
    targets = names["worker"] + names["infra"]
    sets = 100
    per = max(pods // sets, 1)
    for s in range(sets):
        ns = f"app-{s % 10}"
        label = {"app": f"web-{s}"}
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"web-{s}", "uid": f"rs-{s}", "controller": True}
        docs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": f"web-{s}", "namespace": ns, "uid": f"rs-{s}"},
                     "spec": {"replicas": per, "selector": {"matchLabels": label},
                              "template": {"metadata": {"labels": label},
                                           "spec": {"terminationGracePeriodSeconds": 30,
                                                    "containers": [{"name": "web", "image": f"registry.example/web-{s}:1",
                                                                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}})
        docs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": f"web-{s}", "namespace": ns},
                     "spec": {"maxUnavailable": 1 if s % 2 else "10%", "selector": {"matchLabels": label}}})
        for i in range(per):
            docs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"web-{s}-{i:04d}", "namespace": ns, "labels": dict(label),
                                      "ownerReferences": [owner], "creationTimestamp": 0},
                         "spec": {"nodeName": rng.choice(targets), "terminationGracePeriodSeconds": 30,
                                  "containers": [{"name": "web", "image": f"registry.example/web-{s}:1",
                                                  "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
                         "status": {"phase": "Running"}})
    return docs


def run(nodes: int, pods: int, seed: int, limit: float) -> dict:
    docs = build(nodes, pods, seed)
    sim = Simulation(docs, schedulers=[("default-scheduler", default_policy())], seed=seed, explain=False)
    wall, cpu = time.perf_counter(), time.process_time()
    t = 0.0
    done_at = None
    while t < limit:
        t += 1800
        sim.run_until(t)
        pools = sim.store.list("MachineConfigPool")
        cv = sim.store.get("ClusterVersion", "", "version")
        history = (cv.get("status") or {}).get("history") or [{}]
        if history[0].get("state") == "Completed" and history[0].get("version") == TO and all(
                (p.get("status") or {}).get("updatedMachineCount") == (p.get("status") or {}).get("machineCount") and
                any(c.get("type") == "Updated" and c.get("status") == "True" for c in (p.get("status") or {}).get("conditions") or ())
                for p in pools):
            done_at = t
            break
    # The run's garbage is the run's: the loop defers the cyclic collector (simulation.
    # fewer_collections), so the full collection it owes is counted here, not in the view below.
    gc.collect()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    evicted = sum(1 for e in sim.events if e.reason == "Killing")
    figures = {"wall_s": wall, "cpu_s": cpu, "done_by_simulated_s": done_at, "instants": len(sim.instants),
               "events": len(sim.events), "nodes_done": sum(1 for e in sim.events if e.reason == "NodeDone"), "killing_events": evicted}
    t0 = time.perf_counter()
    view = progress.build(sim.store, sim.now)
    figures["progress_view_ms"] = (time.perf_counter() - t0) * 1000
    figures["progress_nodes"] = sum(len(p["nodes"]) for p in view["pools"])
    return figures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    nodes, pods = (30, 300) if args.quick else (args.nodes, args.pods)
    f = run(nodes, pods, args.seed, limit=48 * 3600)
    print(f"update of {nodes} nodes / {pods} pods with PDBs, simulated end to end  "
          f"{f['wall_s']:6.1f} s wall  {f['cpu_s']:6.1f} s CPU  target < {WALL_TARGET_S:g} s wall  "
          f"{'ok' if f['wall_s'] < WALL_TARGET_S and f['done_by_simulated_s'] is not None else 'SLOW'}")
    print(f"  every pool updated by simulated {f['done_by_simulated_s']} s; {f['instants']} instants, {f['events']} events, "
          f"{f['nodes_done']} node updates, {f['killing_events']} Killing events")
    print(f"progress view of {f['progress_nodes']} nodes  {f['progress_view_ms']:6.0f} ms  target < {VIEW_TARGET_MS} ms  "
          f"{'ok' if f['progress_view_ms'] < VIEW_TARGET_MS else 'SLOW'}")

if __name__ == "__main__":
    main()
