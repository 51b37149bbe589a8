"""`make bench`: the answers a person waits for on a large cluster, in CPU seconds of this
one process (time.process_time: what the machine spends, not how long it waited).

    python -m scheduling.bench.scale [--nodes 500] [--pods 10000] [--repeat 3]

Imports a cluster of 500 nodes and 10,000 pods (10,500 objects, one JSON List, through
services.import_new_cluster: parse, defaults, validation, admission, the bulk write) into a
throw-away SQLite database (or DATABASE_URL's, under a throw-away name deleted after), gives
it one Scheduled event per pod, then times, warm (the process has read the cluster once):

* `oc get events -A`, `oc get pods -A -o wide`, `oc describe node <one>` (through
  oc_cli.run_on_cluster, as `manage.py oc --cluster` and the console run them): the best
  of --repeat runs; target < 0.3 CPU s each;
* the node page's first load (GET /clusters/<id>/nodes/<node>/ through Django's test client,
  a node no earlier request showed): target < 0.3 CPU s; and, for the record, its "why each
  pod is here" table, which a large cluster's page loads after the node (GET .../why);
* the import itself and its first reconcile (what `manage.py import_cluster` does): target
  < 8 CPU s.

Figures, not tests. The imports of Django and of the app sit inside the functions on
purpose: this script configures the settings (a throw-away database) before Django may be
imported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

TARGETS = {"import": 8.0, "oc get events -A": 0.3, "oc get pods -A -o wide": 0.3, "oc describe node": 0.3,
           "node page, first load": 0.3}


def _setup(tmp: str) -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["CLUSTERUI_VAR_DIR"] = tmp  # a throw-away SQLite database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
    os.environ.setdefault("SECRET_KEY", "bench-scale-only-not-a-secret")
    os.environ.setdefault("HTTPS", "0")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def cluster_text(nodes: int, pods: int) -> str:
    zones = ("us-east-1a", "us-east-1b", "us-east-1c")
    items: list[dict] = []
    for i in range(nodes):
        name = f"worker-{i:04d}"
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "failure-domain.beta.kubernetes.io/zone": zones[i % 3],
            "node-role.kubernetes.io/compute": "true"}},
            "status": {"capacity": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                       "conditions": [{"type": "Ready", "status": "True"}]}})
    for j in range(pods):
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"app-{j % 300:03d}-{j:05d}", "namespace": f"team-{j % 20:02d}", "labels": {"app": f"app-{j % 300:03d}"}},
            "spec": {"nodeName": f"worker-{(j * 7) % nodes:04d}", "containers": [{
                "name": "app", "image": "quay.io/bench/app:1", "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}}]}})
    namespaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{k:02d}"}} for k in range(20)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": namespaces + items})


def _events(cluster, pods: int, nodes: int) -> None:
    from scheduling.models import Event

    Event.objects.bulk_create([
        Event(cluster=cluster, type="Normal", reason="Scheduled", involved_kind="Pod", involved_namespace=f"team-{j % 20:02d}",
              involved_name=f"app-{j % 300:03d}-{j:05d}", source="default-scheduler", count=1, first_time=float(j % 600),
              last_time=float(j % 600),
              message=f"Successfully assigned team-{j % 20:02d}/app-{j % 300:03d}-{j:05d} to worker-{(j * 7) % nodes:04d}")
        for j in range(pods)
    ], batch_size=1000)


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        _setup(tmp)
        from django.test import Client

        from scheduling.live import broadcast
        from scheduling.models import Cluster
        from scheduling.store import oc_cli, reconcile, services

        name = f"bench-scale-{os.getpid()}"
        text = cluster_text(args.nodes, args.pods)
        small = cluster_text(3, 10)
        warm = services.import_new_cluster(f"{name}-warm", small, "warm.json")  # code and caches loaded first
        reconcile.reconcile(warm.pk)
        services.delete_cluster(warm)
        holder: dict = {}
        figures: dict[str, float] = {}
        def import_and_reconcile():  # what `manage.py import_cluster` does
            holder["c"] = services.import_new_cluster(name, text, "bench.json")
            reconcile.reconcile(holder["c"].pk)

        figures["import"] = cpu(import_and_reconcile)
        cluster = holder["c"]
        broadcast.flush(60)
        try:
            _events(cluster, args.pods, args.nodes)
            out: list[str] = []

            def oc(*words: str):
                def run():
                    out.clear()
                    oc_cli.run_on_cluster(Cluster.objects.get(pk=cluster.pk), ["oc", *words], lambda stream, t: out.append(t))
                return run

            oc("get", "nodes")()  # the process reads the cluster once: what follows is warm
            for label, words in (("oc get events -A", ("get", "events", "-A")),
                                 ("oc get pods -A -o wide", ("get", "pods", "-A", "-o", "wide")),
                                 ("oc describe node", ("describe", "node", "worker-0007"))):
                figures[label] = min(cpu(oc(*words)) for _ in range(args.repeat))
                lines = "".join(out).count("\n")
                figures[f"{label} (lines)"] = lines
                if lines < 3:
                    print(f"{label}: {''.join(out)[:500]}", file=sys.stderr)
            client = Client(HTTP_HOST="localhost")
            client.get(f"/clusters/{cluster.pk}/nodes/worker-0001/")  # templates loaded
            figures["node page, first load"] = cpu(lambda: client.get(f"/clusters/{cluster.pk}/nodes/worker-0002/"))
            figures["node page, why table"] = cpu(lambda: client.get(f"/clusters/{cluster.pk}/nodes/worker-0002/why"))
        finally:
            services.delete_cluster(Cluster.objects.get(pk=cluster.pk))
    print(f"scale: {args.nodes} nodes, {args.pods} pods, CPU seconds of one process (warm but the import)")
    failed = False
    for label, target in TARGETS.items():
        value = figures[label]
        lines = figures.get(f"{label} (lines)")
        mark = "ok" if value < target else "OVER"
        failed |= value >= target
        extra = f", {int(lines)} lines" if lines is not None else ""
        print(f"  {label:<24} {value:6.2f} s  (target < {target} s: {mark}{extra})")
    print(f"  {'node page, why table':<24} {figures['node page, why table']:6.2f} s  (no target: loaded after the page, "
          "each of the node's pods scheduled again against every node)")
    return 0 if not failed else 0  # figures, not a gate


if __name__ == "__main__":
    sys.exit(main())
