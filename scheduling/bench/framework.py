"""`make bench`: the OpenShift 4 scheduler (the scheduling framework) end to end, file in,
answer out.

    python -m scheduling.bench.framework [--nodes N] [--pods N] [--quick] [--seed N]

Builds the documents of a cluster (nodes in three zones, a KubeSchedulerConfiguration with
the default profile, pending pods of about a hundred apps), writes them as YAML, and times
what a user waits for: `manage.py simulate`'s work from the YAML text to the JSON answer
(parse, validate, admit, schedule every pod, print with `--explain none`), in CPU seconds
of this one process. A part of the apps spread over zones (PodTopologySpread,
DoNotSchedule and ScheduleAnyway) and keep apart or together (InterPodAffinity, required
and preferred), as real workloads do; every pod belongs to a ReplicaSet behind a Service,
so the system default spreading applies to the others.

    default: 5,000 nodes / 30,000 pods, target >= 1,500 pods per CPU-second

It also prints what reading and checking the YAML took, and the scheduling pass alone
(`run_queue` over the same cluster, the figure scheduling.bench.scheduler gives for the 3.11
scheduler), so the end-to-end figure can be read against both.

Speed is a figure, not a test; `--quick` runs a small size so a test can check the command.
Needs no database and no Django settings.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time

import yaml

from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.framework.config import schedulers_for
from scheduling.engine.framework.runtime import run_queue
from scheduling.engine.simulate import build_state, simulate
from scheduling.store.kube import load_documents

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
INSTANCE_TYPES = (("m6i.xlarge", "3500m", "14Gi", 4), ("m6i.2xlarge", "7500m", "29Gi", 3), ("c6i.2xlarge", "7500m", "14Gi", 2))
CPU_REQUESTS = ("50m", "100m", "100m", "200m", "250m", "500m")
MEMORY_REQUESTS = ("64Mi", "128Mi", "256Mi", "512Mi", "1Gi")
TARGET = 1500.0


def make_documents(rng: random.Random, nodes: int, pods: int) -> list[dict]:
    docs: list[dict] = [{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}]
    weights = [w for *_, w in INSTANCE_TYPES]
    for i in range(nodes):
        name = f"ip-10-0-{i // 250}-{i % 250}.ec2.internal"
        itype, cpu, memory, _ = rng.choices(INSTANCE_TYPES, weights)[0]
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": itype,
                  "topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": ZONES[i % 3],
                  "node-role.kubernetes.io/worker": ""}
        taints = []
        if i % 50 == 0:
            labels["node-role.kubernetes.io/infra"] = ""
            taints.append({"key": "node-role.kubernetes.io/infra", "effect": "NoSchedule"})
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                     "spec": {"taints": taints},
                     "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "250"},
                                "allocatable": {"cpu": cpu, "memory": memory, "pods": "250"},
                                "conditions": [{"type": "Ready", "status": "True"}]}})
    apps = 100
    sizes = [max(1, int(pods * w / sum(ws))) for ws in [[rng.paretovariate(1.2) for _ in range(apps)]] for w in ws]
    sizes[0] += pods - sum(sizes)
    made = 0
    for a, size in enumerate(sizes):
        ns, app = f"team-{a % 10}", f"app-{a:03d}"
        labels = {"app": app, "pod-template-hash": f"{rng.getrandbits(32):08x}"}
        docs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": app, "namespace": ns},
                     "spec": {"selector": {"app": app}, "ports": [{"port": 8080}]}})
        docs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                     "metadata": {"name": f"{app}-{labels['pod-template-hash']}", "namespace": ns, "uid": f"rs-{a}"},
                     "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                              "template": {"metadata": {"labels": labels},
                                           "spec": {"containers": [{"name": "main", "image": "registry.example.com/app:1"}]}}}})
        spec: dict = {"containers": [{"name": "main", "image": f"registry.example.com/{ns}/{app}:v{a % 5}",
                                      "resources": {"requests": {"cpu": rng.choice(CPU_REQUESTS),
                                                                 "memory": rng.choice(MEMORY_REQUESTS)}}}]}
        roll = rng.random()
        if roll < 0.15:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "DoNotSchedule" if roll < 0.08 else "ScheduleAnyway",
                                                  "labelSelector": {"matchLabels": {"app": app}}}]
        elif roll < 0.22:
            spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}},
                                                    "topologyKey": "kubernetes.io/hostname"}}]}}
        elif roll < 0.25 and size <= 200:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
        for r in range(size):
            docs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"{app}-{labels['pod-template-hash']}-{r:05d}", "namespace": ns,
                                      "labels": labels, "uid": f"pod-{made}",
                                      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                           "name": f"{app}-{labels['pod-template-hash']}",
                                                           "uid": f"rs-{a}", "controller": True}]},
                         "spec": spec})
            made += 1
    return docs


def scheduling_pass(docs: list[dict]) -> tuple[float, int]:
    """(CPU seconds, pods placed) of the framework's run_queue alone over the documents'
    cluster, as scheduling.bench.scheduler times the 3.11 scheduler."""
    profile = dict(schedulers_for([d for d in docs if d.get("kind") == "KubeSchedulerConfiguration"]))[DEFAULT_SCHEDULER]
    state = build_state(d for d in docs if d.get("kind") not in ("KubeSchedulerConfiguration",))
    cpu0 = time.process_time()
    results, _ = run_queue(state, profile, random.Random(1), True, explain=False)
    return time.process_time() - cpu0, sum(1 for r in results if r.node)


def run(nodes: int, pods: int, seed: int) -> dict:
    rng = random.Random(seed)
    text = yaml.safe_dump_all(make_documents(rng, nodes, pods), sort_keys=False)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    docs = load_documents(text)
    loaded = time.process_time() - cpu0
    out = simulate(docs, explain="none", controllers=["scheduler"])
    answer = json.dumps(out)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    pass_cpu, pass_placed = scheduling_pass(docs)
    placed = sum(1 for p in out["pods"] if p["node"])
    return {"nodes": nodes, "pods": pods, "placed": placed, "cpu": cpu, "wall": wall, "bytes": len(answer),
            "load_cpu": loaded, "pass_cpu": pass_cpu, "pass_placed": pass_placed,
            "pods_per_cpu_s": pods / cpu if cpu else float("inf"),
            "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    nodes, pods = (60, 400) if args.quick else (args.nodes, args.pods)
    r = run(nodes, pods, args.seed)
    verdict = "ok" if r["pods_per_cpu_s"] >= TARGET else "BELOW TARGET"
    print(f"framework scheduler, file in -> answer out: {r['nodes']:,} nodes / {r['pods']:,} pods, "
          f"{r['placed']:,} placed: {r['cpu']:.1f} CPU s ({r['wall']:.1f} s wall), "
          f"{r['pods_per_cpu_s']:,.0f} pods/CPU-s (target >= {TARGET:,.0f}: {verdict}); peak RSS {r['maxrss_mib']:.0f} MiB")
    print(f"  of which reading and checking the YAML: {r['load_cpu']:.1f} CPU s; "
          f"the scheduling pass alone (run_queue, as the 3.11 bench times it): {r['pass_cpu']:.1f} CPU s, "
          f"{r['pass_placed'] / r['pass_cpu'] if r['pass_cpu'] else float('inf'):,.0f} pods/CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
