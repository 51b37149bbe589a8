"""`make bench`: how fast the scheduler engine places pods, and how much memory it needs.

    python -m scheduling.bench.scheduler [--scenario a|b|all] [--quick] [--tracemalloc] [--seed N]

Each scenario builds a realistic cluster deterministically (a seeded `random.Random`), then
times `engine.scheduler.scheduler.run_queue` over every pending pod under OpenShift 3.11's default scheduler policy
(`engine.scheduler.policy.default_policy()`), every node evaluated (there is no node sampling in the
engine), preemption on, `explain=False` (the compact form a controller uses):

    a: 1,000 nodes / 10,000 pending pods, target >= 1,000 pods/s
    b: 5,000 nodes / 30,000 pending pods, target >= 500 pods/s

The cluster: nodes in three zones of one region, labelled like OpenShift 3.11 nodes
(`region`/`zone` for the default policy's Region and Zone entries, the
`failure-domain.beta.kubernetes.io/*` pair the spreading priority reads, hostname,
instance type, role); a few dedicated infra nodes (NoSchedule), a few nodes with a
PreferNoSchedule taint, one NotReady and one cordoned node. About 100 ReplicaSets (each
with its Deployment, most behind a Service) in ten namespaces, of very different sizes,
whose pods arrive interleaved in bursts (several rollouts at once): cpu/memory requests,
some node selectors, tolerations, preferred and required node affinity, preferred and
required pod (anti-)affinity, a host port, two priority levels, and a few pods that fit
nowhere (a node selector no node matches).

Figures, per scenario (each scenario runs in its own process so memory figures are its own):
* pods/s: pods placed / seconds of `run_queue`, both wall-clock and CPU time of the
  process (the engine is single-threaded: one core; on a shared machine the CPU time is
  the steadier figure, and the verdict uses it); setup and cluster generation are not
  timed;
* memory: `ru_maxrss` (peak resident set of the process, interpreter and numpy included)
  and its growth during `run_queue`; with `--tracemalloc`, also the peak of Python
  allocations during `run_queue` (tracing slows Python down, so the timing of such a run is
  not the benchmark figure).

Speed and memory are figures, not tests; `--quick` runs small sizes so a test
can check the command works. Needs no database and no Django settings.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass

from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.api.objects import Controller, Node, Pod, PriorityClass, Service
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.scheduler.scheduler import run_queue


@dataclass(frozen=True)
class Scenario:
    name: str
    nodes: int
    pods: int
    target: float  # pods/s


SCENARIOS = {
    "a": Scenario("a", 1_000, 10_000, 1_000.0),
    "b": Scenario("b", 5_000, 30_000, 500.0),
}
QUICK = {
    "a": Scenario("a", 40, 400, 1_000.0),
    "b": Scenario("b", 60, 360, 500.0),
}

REGION = "us-east-1"
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
# (instance type, allocatable cpu, allocatable memory, weight); allocatable is capacity
# minus the kubelet's system reservation, as OpenShift reports it.
INSTANCE_TYPES = (
    ("m5.large", "1800m", "6900Mi", 3),
    ("m5.xlarge", "3700m", "14800Mi", 4),
    ("c5.xlarge", "3700m", "6900Mi", 2),
    ("r5.large", "1800m", "14800Mi", 1),
    ("m5.2xlarge", "7600m", "30500Mi", 2),
)
NAMESPACES = tuple(f"team-{c}" for c in "abcdefghij")
CPU_REQUESTS = ("50m", "100m", "100m", "200m", "250m", "250m", "500m", "1")
MEMORY_REQUESTS = ("64Mi", "128Mi", "256Mi", "256Mi", "512Mi", "1Gi")


# --- the cluster ---------------------------------------------------------------------------------


def make_nodes(rng: random.Random, count: int, pods_per_node: float) -> list[Node]:
    # Bigger clusters of the same density get the same mix; a denser one gets bigger nodes.
    big = pods_per_node >= 8
    weights = [w * (2 if big and cpu in ("3700m", "7600m") else 1) for _, cpu, _, w in INSTANCE_TYPES]
    nodes = []
    for i in range(count):
        name = f"ip-10-0-{i // 250}-{i % 250}.ec2.internal"
        zone = ZONES[i % 3]
        itype, cpu, memory, _ = rng.choices(INSTANCE_TYPES, weights)[0]
        labels = {
            "kubernetes.io/hostname": name,
            "beta.kubernetes.io/os": "linux",
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/instance-type": itype,
            "failure-domain.beta.kubernetes.io/region": REGION,
            "failure-domain.beta.kubernetes.io/zone": zone,
            "region": REGION,
            "zone": zone,
        }
        taints = []
        roll = rng.random()
        if roll < 0.03:
            labels["node-role.kubernetes.io/infra"] = "true"
            taints.append({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})
        else:
            labels["node-role.kubernetes.io/compute"] = "true"
            if roll < 0.08:
                taints.append({"key": "maintenance", "value": "planned", "effect": "PreferNoSchedule"})
        conditions = [
            {"type": "OutOfDisk", "status": "False"},
            {"type": "MemoryPressure", "status": "False"},
            {"type": "DiskPressure", "status": "False"},
            {"type": "Ready", "status": "False" if i == count // 2 else "True"},
        ]
        doc = {
            "kind": "Node",
            "metadata": {"name": name, "uid": f"node-{i}", "labels": labels},
            "spec": {"taints": taints, "unschedulable": i == count // 3},
            "status": {
                "capacity": {"cpu": cpu, "memory": memory, "pods": "250"},
                "allocatable": {"cpu": cpu, "memory": memory, "pods": "250"},
                "conditions": conditions,
            },
        }
        nodes.append(Node.from_doc(doc))
    return nodes


@dataclass
class App:
    """One Deployment, its current ReplicaSet and (usually) a Service."""

    namespace: str
    name: str
    replicas: int
    template: dict  # pod spec
    labels: dict
    priority: int


def _pick_sizes(rng: random.Random, total: int, apps: int) -> list[int]:
    """Replica counts summing to `total`: a few big apps, many small ones."""
    weights = [rng.paretovariate(1.2) for _ in range(apps)]
    scale = total / sum(weights)
    sizes = [max(1, int(w * scale)) for w in weights]
    i = 0
    while sum(sizes) < total:
        sizes[i % apps] += 1
        i += 1
    while sum(sizes) > total:
        j = max(range(apps), key=sizes.__getitem__)
        sizes[j] -= 1
    return sizes


def make_apps(rng: random.Random, pods: int, count: int = 100) -> list[App]:
    sizes = _pick_sizes(rng, pods, count)
    apps = []
    for i, replicas in enumerate(sizes):
        namespace = NAMESPACES[i % len(NAMESPACES)]
        name = f"app-{i:03d}"
        labels = {"app": name, "pod-template-hash": f"{rng.getrandbits(32):08x}", "tier": rng.choice(("web", "api", "worker"))}
        requests = {"cpu": rng.choice(CPU_REQUESTS)}
        if rng.random() < 0.9:  # a tenth leave memory out: the priorities count 200Mi
            requests["memory"] = rng.choice(MEMORY_REQUESTS)
        spec: dict = {
            "containers": [
                {"name": "main", "image": f"registry.example.com/{namespace}/{name}:v{i % 7}", "resources": {"requests": requests}}
            ]
        }
        if rng.random() < 0.2:
            spec["containers"].append(
                {"name": "proxy", "image": "envoyproxy/envoy:v1.7", "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}
            )
        roll = rng.random()
        affinity: dict = {}
        if roll < 0.03:  # infra workloads: dedicated nodes only
            spec["nodeSelector"] = {"node-role.kubernetes.io/infra": "true"}
            spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}]
            replicas = min(replicas, 12)
        elif roll < 0.10:
            spec["nodeSelector"] = {"beta.kubernetes.io/instance-type": rng.choice(("m5.xlarge", "m5.2xlarge"))}
        elif roll < 0.15:
            affinity["nodeAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "failure-domain.beta.kubernetes.io/zone", "operator": "In", "values": list(ZONES[:2])}]}
                    ]
                }
            }
        if rng.random() < 0.15:
            affinity.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": 50, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": [rng.choice(ZONES)]}]}},
                {"weight": 10, "preference": {"matchExpressions": [{"key": "beta.kubernetes.io/instance-type", "operator": "NotIn", "values": ["m5.large"]}]}},
            ]
        if rng.random() < 0.05:
            spec.setdefault("tolerations", []).append({"key": "maintenance", "operator": "Exists", "effect": "PreferNoSchedule"})
        own = {"labelSelector": {"matchLabels": {"app": name}}}
        roll = rng.random()
        if roll < 0.03 and replicas <= 200:  # at most one per node
            affinity["podAntiAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": [dict(own, topologyKey="kubernetes.io/hostname")]
            }
        elif roll < 0.10:
            affinity["podAntiAffinity"] = {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": dict(own, topologyKey="kubernetes.io/hostname")}
                ]
            }
        elif roll < 0.13 and apps:  # near another app of the namespace
            other = rng.choice([a for a in apps if a.namespace == namespace] or apps)
            affinity["podAffinity"] = {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 80,
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"app": other.name}},
                            "namespaces": [other.namespace],
                            "topologyKey": "failure-domain.beta.kubernetes.io/zone",
                        },
                    }
                ]
            }
        if affinity:
            spec["affinity"] = affinity
        apps.append(App(namespace, name, replicas, spec, labels, 1000 if rng.random() < 0.1 else 0))
    # A cache that must run beside its app (required pod affinity, same zone), one
    # DaemonSet-like agent with a host port, and an app asking for hardware no node has.
    web = apps[0]
    apps.append(
        App(
            web.namespace,
            "cache",
            min(30, max(1, pods // 300)),
            {
                "containers": [{"name": "redis", "image": "redis:4", "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}}],
                "affinity": {
                    "podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {"matchLabels": {"app": web.name}}, "topologyKey": "failure-domain.beta.kubernetes.io/zone"}
                        ]
                    }
                },
            },
            {"app": "cache", "pod-template-hash": "c4c4e"},
            0,
        )
    )
    apps.append(
        App(
            "monitoring",
            "node-agent",
            min(50, max(1, pods // 200)),
            {
                "containers": [
                    {
                        "name": "agent",
                        "image": "prom/node-exporter:v0.16",
                        "ports": [{"containerPort": 9100, "hostPort": 9100}],
                        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}},
                    }
                ]
            },
            {"app": "node-agent", "pod-template-hash": "a9e47"},
            1000,
        )
    )
    apps.append(
        App(
            NAMESPACES[1],
            "gpu-job",
            3,
            {
                "containers": [{"name": "train", "image": "tensorflow/tensorflow:1.9", "resources": {"requests": {"cpu": "1"}}}],
                "nodeSelector": {"beta.kubernetes.io/instance-type": "p3.2xlarge"},
            },
            {"app": "gpu-job", "pod-template-hash": "9f00d"},
            0,
        )
    )
    # Keep the total exact after the caps and the extras: the biggest plain app absorbs it.
    plain = [a for a in apps[:count] if "affinity" not in a.template and "nodeSelector" not in a.template]
    extra = sum(a.replicas for a in apps) - pods
    while extra:
        big = max(plain, key=lambda a: a.replicas)
        take = min(extra, big.replicas - 1)
        big.replicas -= take
        extra -= take
    return apps


def make_state(scenario: Scenario, seed: int) -> ClusterState:
    rng = random.Random(seed)
    nodes = make_nodes(rng, scenario.nodes, scenario.pods / scenario.nodes)
    apps = make_apps(rng, scenario.pods)
    services, controllers, queues = [], [], []
    for i, app in enumerate(apps):
        rs_name = f"{app.name}-{app.labels['pod-template-hash']}"
        rs_uid = f"rs-{i}"
        controllers.append(
            Controller.from_doc(
                {"kind": "Deployment", "metadata": {"name": app.name, "namespace": app.namespace, "uid": f"deploy-{i}"},
                 "spec": {"replicas": app.replicas, "selector": {"matchLabels": {"app": app.name}}}}
            )
        )
        controllers.append(
            Controller.from_doc(
                {"kind": "ReplicaSet", "metadata": {"name": rs_name, "namespace": app.namespace, "uid": rs_uid},
                 "spec": {"replicas": app.replicas, "selector": {"matchLabels": dict(app.labels)}}}
            )
        )
        if app.name != "node-agent" and rng.random() < 0.85:
            services.append(Service.from_doc({"metadata": {"name": app.name, "namespace": app.namespace}, "spec": {"selector": {"app": app.name}}}))
        pods = []
        for r in range(app.replicas):
            spec = dict(app.template)
            if app.priority:
                spec["priority"] = app.priority
                spec["priorityClassName"] = "important"
            pods.append(
                {
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{rs_name}-{r:05d}",
                        "namespace": app.namespace,
                        "uid": f"pod-{i}-{r}",
                        "labels": dict(app.labels),
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "uid": rs_uid, "controller": True}],
                    },
                    "spec": spec,
                }
            )
        queues.append(pods)
    # Rollouts overlap: pods arrive in bursts of one ReplicaSet at a time, interleaved.
    docs = []
    while any(queues):
        q = rng.choice([q for q in queues if q])
        burst = rng.randint(1, 60)
        docs += q[:burst]
        del q[:burst]
    return ClusterState(
        nodes=nodes,
        pods=[Pod.from_doc(d) for d in docs],
        services=services,
        controllers=controllers,
        priority_classes=[PriorityClass("important", 1000)],
        namespaces=sorted({a.namespace for a in apps}),
    )


# --- running -----------------------------------------------------------------------------------------


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def run_scenario(scenario: Scenario, seed: int, trace: bool) -> dict:
    state = make_state(scenario, seed)
    pending = len(state.pods)
    policy = default_policy()
    rss_before = _maxrss_mib()
    if trace:
        tracemalloc.start()
    start, cpu_start = time.perf_counter(), time.process_time()
    results = run_queue(state, policy, random.Random(seed), explain=False)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    if trace:
        tracemalloc.stop()
    rss_after = _maxrss_mib()
    placed = sum(1 for p in state.pods if p.node_name)
    requested = sum(p.request.milli_cpu for p in state.pods if p.node_name)
    allocatable = sum(n.allocatable_resource.milli_cpu for n in state.nodes)
    return {
        "scenario": scenario.name,
        "nodes": scenario.nodes,
        "pods": pending,
        "scheduled": placed,
        "attempts": len(results),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "pods_per_s": placed / seconds if seconds else float("inf"),
        "pods_per_cpu_s": placed / cpu_seconds if cpu_seconds else float("inf"),
        "rss_peak_mib": rss_after,
        "rss_growth_mib": rss_after - rss_before,
        "tracemalloc_peak_mib": traced,
        "cpu_requested": requested / allocatable if allocatable else 0.0,
        "target": scenario.target,
    }


def report(r: dict, quick: bool) -> str:
    passed = r["pods_per_cpu_s"] >= r["target"]
    verdict = "n/a (--quick)" if quick else ("PASS" if passed else "FAIL")
    lines = [
        f"scenario {r['scenario']}: {r['nodes']} nodes, {r['pods']} pending pods",
        f"  scheduled          {r['scheduled']} pods in {r['attempts']} attempts ({r['cpu_requested']:.0%} of allocatable cpu requested)",
        f"  run_queue          {r['seconds']:.2f} s wall-clock, {r['cpu_seconds']:.2f} s CPU",
        f"  throughput         {r['pods_per_cpu_s']:.0f} pods/s per CPU second ({r['pods_per_s']:.0f} by the wall clock), "
        f"target >= {r['target']:.0f} pods/s: {verdict}",
        f"  memory             peak RSS {r['rss_peak_mib']:.0f} MiB (ru_maxrss of this process), "
        f"+{r['rss_growth_mib']:.0f} MiB during run_queue",
    ]
    if r["tracemalloc_peak_mib"] is not None:
        lines.append(f"  tracemalloc        peak {r['tracemalloc_peak_mib']:.1f} MiB of Python allocations during run_queue (timing slowed by tracing)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduling.bench.scheduler", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("a", "b", "all"), default="all")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test, not a benchmark)")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slower)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    names = ("a", "b") if args.scenario == "all" else (args.scenario,)
    if len(names) > 1 and not args.in_process:
        # One process per scenario, so that each one's peak memory is its own.
        status = 0
        for name in names:
            cmd = [sys.executable, "-m", "scheduling.bench.scheduler", "--scenario", name, "--seed", str(args.seed)]
            cmd += ["--quick"] * args.quick + ["--tracemalloc"] * args.tracemalloc
            status |= subprocess.call(cmd)
        return status
    table = QUICK if args.quick else SCENARIOS
    print(f"scheduler benchmark: default policy, every node evaluated, preemption on, explain=False, seed {args.seed}, one core")
    for name in names:
        print(report(run_scenario(table[name], args.seed, args.tracemalloc), args.quick), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
