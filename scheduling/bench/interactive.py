"""`make bench` (third part): how interactive a stored cluster is at 500-5,000 nodes.

    python -m scheduling.bench.interactive [--nodes 500] [--pods 10000]
                                           [--sim-nodes 5000] [--sim-pods 30000] [--quick]

Builds a cluster of --nodes nodes and --pods pods owned by ReplicaSets (in a temporary
SQLite database unless DATABASE_URL is set; then under a throw-away cluster name deleted
afterwards) and prints one line per interactive operation, each against its target, in
CPU seconds of this process (`time.process_time`: the steady figure on a shared machine;
wall seconds beside it):

* import_cluster: the documents (--nodes nodes, --pods pending pods, namespaces, ReplicaSets;
  10,700 objects at the defaults) parsed, validated, admitted and written; < 15 s;
* first placement: the reconcile that places every pending pod after the import; < 10 s;
* what-if preview: a NoExecute taint (`oc adm taint`) on the node with the most pods, the
  whole preview (previews.preview_edit); < 1 s;
* apply -> reconcile: that taint written (services.replace_object) and the reconcile that
  evicts, recreates and places the pods (its events are what the board then shows); < 1 s;
* explainer of a Pending pod (a pod whose node selector matches no node); < 0.5 s; and the
  same page again (the cluster's state is then already read: state.cluster_state);
* simulate end to end: `manage.py simulate` of a JSON file of --sim-nodes nodes and
  --sim-pods pending pods (parse, admission, the run, the output), pods per CPU second;
  >= 1,500.

The board rows (render at 2,000 nodes / 40,000 pods, apply with 300 viewers) are printed by
scheduling.bench.board. Figures, not tests; `--quick` runs small sizes so a test
can check the command works. The imports of Django and of the app sit inside the functions
on purpose: this script configures the settings (a throw-away database) before Django may
be imported.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import tempfile
import time
import uuid

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
NAMESPACES = 10


def setup_database(tmp: str) -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["CLUSTERUI_VAR_DIR"] = tmp  # a throw-away SQLite database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
    os.environ.setdefault("SECRET_KEY", "bench-interactive-only-not-a-secret")
    os.environ.setdefault("HTTPS", "0")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _zoned_nodes(nodes: int, rng: random.Random) -> list[dict]:
    """`nodes` Ready nodes of a few sizes, spread over the three zones of one region."""
    docs: list[dict] = []
    for i in range(nodes):
        cpu, memory = rng.choice((("4", "16Gi"), ("8", "32Gi"), ("16", "64Gi")))
        name = f"node-{i:05d}"
        docs.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, "region": "us-east-1", "zone": ZONES[i % 3],
                "failure-domain.beta.kubernetes.io/region": "us-east-1",
                "failure-domain.beta.kubernetes.io/zone": ZONES[i % 3],
            }},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "250"},
                       "capacity": {"cpu": cpu, "memory": memory, "pods": "250"},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })
    return docs


def documents(nodes: int, pods: int, seed: int = 1, unplaceable: int = 5) -> list[dict]:
    """A realistic cluster as API documents: zoned nodes of a few sizes, namespaces, ReplicaSets
    of very different sizes and their pending pods (a few with a node selector no node matches)."""
    rng = random.Random(seed)
    docs: list[dict] = _zoned_nodes(nodes, rng)
    namespaces = [f"team-{i:02d}" for i in range(NAMESPACES)]
    docs += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in namespaces]
    sets = min(190, max(1, pods // 10))  # 500 nodes + 10 namespaces + 190 sets + 10,000 pods = 10,700
    sizes = [1] * sets
    for _ in range(pods - sets):
        sizes[min(int(rng.expovariate(1 / (sets / 4))), sets - 1)] += 1
    owners = []
    for i, size in enumerate(sizes):
        ns = namespaces[i % NAMESPACES]
        app = f"app-{i:03d}"
        cpu = rng.choice(("50m", "100m", "250m", "500m"))
        memory = rng.choice(("64Mi", "128Mi", "512Mi", "1Gi"))
        template = {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{
            "name": "main", "image": f"registry.example.com/{app}:1",
            "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}}
        uid = str(uuid.UUID(int=rng.getrandbits(128)))
        docs.append({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": app, "namespace": ns, "uid": uid},
            "spec": {"replicas": size, "selector": {"matchLabels": {"app": app}}, "template": template},
        })
        owners.append((ns, app, uid, template, size))
    made = 0
    while made < pods:  # interleaved, as rollouts arrive
        for ns, app, uid, template, size in owners:
            if size <= 0:
                continue
            spec = json.loads(json.dumps(template["spec"]))
            if made < unplaceable:
                spec["nodeSelector"] = {"disktype": "nvme"}
            docs.append({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"{app}-{made:05d}", "namespace": ns, "labels": {"app": app},
                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app,
                                                  "uid": uid, "controller": True}]},
                "spec": spec,
            })
            made += 1
            if made >= pods:
                break
        owners = [(ns, app, uid, t, s - 1) for ns, app, uid, t, s in owners]
    return docs


class Timer:
    def __enter__(self):
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.cpu = time.process_time() - self.cpu
        self.wall = time.perf_counter() - self.wall


def _row(what: str, t: Timer, target: float, extra: str = "") -> str:
    verdict = "ok" if t.cpu < target else "SLOW"
    return f"{what:<58} {t.cpu:8.2f} CPU s {t.wall:8.2f} s   target < {target:g} s   {verdict}{extra}"


def run_stored(nodes: int, pods: int) -> list[str]:
    from scheduling.pages import previews
    from scheduling.store import reconcile, services
    from scheduling.pages.explain import cluster_policy, explain_pod
    from scheduling.models import Node as StoredNode, Pod as StoredPod
    from scheduling.store.state import cluster_state

    docs = documents(nodes, pods)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs})
    lines = []
    name = f"bench-{uuid.uuid4().hex[:8]}"
    with Timer() as t:
        cluster = services.import_new_cluster(name, text, "bench.json", description="make bench: interactive rows")
    lines.append(_row(f"import_cluster, {len(docs):,} objects", t, 15.0))
    try:
        with Timer() as t:
            reconcile.reconcile(cluster.pk, force=True)
        placed = StoredPod.objects.filter(cluster=cluster).exclude(node_name="").count()
        lines.append(_row(f"first placement of {pods:,} pending pods ({placed:,} placed)", t, 10.0))

        counts: dict[str, int] = {}
        for node_name in StoredPod.objects.filter(cluster=cluster).exclude(node_name="").values_list("node_name", flat=True):
            counts[node_name] = counts.get(node_name, 0) + 1
        busiest = max(counts, key=lambda n: (counts[n], n))
        node = StoredNode.objects.get(cluster=cluster, name=busiest)
        cluster.refresh_from_db()
        with Timer() as t:
            result = previews.preview_edit(cluster, node, "taint-oc", {"taint": "bench=1:NoExecute"})
        lines.append(_row(f"what-if preview, NoExecute taint on a {counts[busiest]}-pod node", t, 1.0,
                          f"   ({len(result.preview.evicted_now)} evicted)"))

        with Timer() as t:
            services.replace_object(cluster, result.doc, expected_version=node.resource_version)
            reconcile.reconcile(cluster.pk, force=True)
        lines.append(_row("apply -> the reconcile's events (evict, recreate, place)", t, 1.0))

        cluster.refresh_from_db()
        pending = StoredPod.objects.filter(cluster=cluster, node_name="").order_by("pk").first()
        with Timer() as t:
            explain_pod(cluster_state(cluster), cluster_policy(cluster), f"{pending.namespace}/{pending.name}",
                        seed=cluster.seed, preemption=cluster.preemption_enabled)
        lines.append(_row("explainer of a Pending pod", t, 0.5))
        with Timer() as t:  # the same page again: the cluster's state is read once per revision
            explain_pod(cluster_state(cluster), cluster_policy(cluster), f"{pending.namespace}/{pending.name}",
                        seed=cluster.seed, preemption=cluster.preemption_enabled)
        lines.append(_row("  the same explainer again (state already read)", t, 0.5))
    finally:
        services.delete_cluster(cluster)
    return lines


def run_simulate(nodes: int, pods: int, tmp: str) -> str:
    from django.core.management import call_command

    docs = documents(nodes, pods, seed=2)
    path = os.path.join(tmp, "simulate.json")
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": docs}, f)
    with Timer() as t:
        call_command("simulate", path, "--explain", "none", stdout=io.StringIO())
    rate = pods / t.cpu if t.cpu else float("inf")
    verdict = "ok" if rate >= 1500 else "SLOW"
    what = f"simulate end to end, {nodes:,} nodes x {pods:,} pods"
    return f"{what:<58} {t.cpu:8.2f} CPU s {t.wall:8.2f} s   {rate:,.0f} pods/CPU-s, target >= 1,500   {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduling.bench.interactive", description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--sim-nodes", type=int, default=5_000)
    parser.add_argument("--sim-pods", type=int, default=30_000)
    parser.add_argument("--quick", action="store_true", help="small sizes (a test that the command works)")
    args = parser.parse_args(argv)
    if args.quick:
        args.nodes, args.pods, args.sim_nodes, args.sim_pods = 20, 200, 30, 300
    with tempfile.TemporaryDirectory() as tmp:
        setup_database(tmp)
        print(f"interactive operations: a stored cluster of {args.nodes:,} nodes / {args.pods:,} pods", flush=True)
        for line in run_stored(args.nodes, args.pods):
            print(line, flush=True)
        print(run_simulate(args.sim_nodes, args.sim_pods, tmp), flush=True)
        print("board rows (2,000 nodes / 40,000 pods; apply with 300 viewers): scheduling.bench.board")
    return 0


if __name__ == "__main__":
    sys.exit(main())
