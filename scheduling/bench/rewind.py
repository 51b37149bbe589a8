"""How long rewinding a big cluster takes (training mode's rewind). Figures, not tests.

    python -m scheduling.bench.rewind [--nodes 500] [--pods 5000]

Builds a cluster of 500 nodes and 5,000 pods (a temporary SQLite database unless
DATABASE_URL is set; then in that database, under a throw-away name deleted afterwards),
plays an hour of simulated time in 10-minute steps with an edit at each (a node cordoned:
the controllers write, so reconcile keeps a snapshot: a delta on the one before), then
rewinds by an hour (to t=30 s, between two snapshots) and prints: the time to take one
snapshot after an edit and its size (a delta) beside the full one's, and the rewind's total
time (restore the snapshot at t=0 + run the controllers forward to t=30 s); target < 1 s.
Before that, a rewind by half an hour (to t=1830 s), which restores through the chain of
deltas.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import uuid


def setup(tmp: str) -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["CLUSTERUI_VAR_DIR"] = tmp
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
    os.environ.setdefault("SECRET_KEY", "bench-rewind-only-not-a-secret")
    os.environ.setdefault("HTTPS", "0")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def populate(name: str, nodes: int, pods: int):
    from scheduling.store import services
    from scheduling.models import Node, Pod

    cluster = services.create_cluster(name, description="bench: rewind at scale")
    Node.objects.bulk_create([
        Node(cluster=cluster, name=f"worker-{i:04d}", uid=str(uuid.uuid4()), resource_version=1,
             metadata={"name": f"worker-{i:04d}", "labels": {"kubernetes.io/hostname": f"worker-{i:04d}", "zone": f"z{i % 3}"}},
             status={"capacity": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                     "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                     "conditions": [{"type": "Ready", "status": "True"}]})
        for i in range(nodes)
    ], batch_size=500)
    Pod.objects.bulk_create([
        Pod(cluster=cluster, namespace="default", name=f"app-{j:05d}", uid=str(uuid.uuid4()), resource_version=1,
            metadata={"name": f"app-{j:05d}", "namespace": "default", "labels": {"app": f"a{j % 50}"}},
            spec={"nodeName": f"worker-{j % nodes:04d}", "containers": [
                {"name": "app", "image": "app", "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}}]},
            status={"phase": "Running"}, node_name=f"worker-{j % nodes:04d}", phase="Running")
        for j in range(pods)
    ], batch_size=500)
    return cluster


def _label(services, cluster) -> None:
    node = services.get_object(cluster, "Node", "worker-0010")
    doc = node.document
    doc["metadata"].setdefault("labels", {})["bench"] = "edited"
    services.replace_object(cluster, doc)


def _size(pk: int) -> int:
    from scheduling.models import ClusterSnapshot

    stored = ClusterSnapshot.objects.values("objects_rows", "events", "changes", "deleted", "event_changes").get(pk=pk)
    return sum(len(json.dumps(value)) for value in stored.values())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="clusterui-bench-rewind-") as tmp:
        setup(tmp)
        from scheduling.store import clock, reconcile, services, snapshots
        from scheduling.training import sessions as training
        from scheduling.models import Cluster, ClusterSnapshot

        cluster = populate(f"bench-rewind-{uuid.uuid4().hex[:8]}", args.nodes, args.pods)
        try:
            reconcile.reconcile(cluster.pk, force=True)
            for i in range(6):
                node = services.get_object(cluster, "Node", f"worker-{i:04d}")
                doc = node.document
                doc.setdefault("spec", {})["unschedulable"] = True
                services.replace_object(cluster, doc)
                clock.step(Cluster.objects.get(pk=cluster.pk), 600)
                reconcile.reconcile(cluster.pk, force=True)
            _label(services, cluster)
            started, cpu = time.perf_counter(), time.process_time()
            snap = snapshots.take_snapshot(Cluster.objects.get(pk=cluster.pk))
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
            kinds = dict(ClusterSnapshot.objects.filter(cluster=cluster).values_list("pk", "full"))
            print(f"snapshot after an edit ({'full' if snap.full else 'delta'}): {cpu * 1000:.0f} ms CPU, {took * 1000:.0f} ms, "
                  f"{_size(snap.pk) / 1e6:.3f} MB of JSON (the full one at t=0: {_size(snapshots.first(cluster).pk) / 1e6:.1f} MB); "
                  f"{len(kinds)} snapshots over {Cluster.objects.get(pk=cluster.pk).now:.0f} s, "
                  f"{sum(kinds.values())} of them full")
            started, cpu = time.perf_counter(), time.process_time()
            shown = Cluster.objects.get(pk=cluster.pk)
            training.rewind(shown, 1830.0, confirmed=shown.revision)  # as confirmed on the page
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
            chain = ClusterSnapshot.objects.filter(cluster=cluster).count()
            print(f"rewind by half an hour, into the chain (the full snapshot at t=0 and {chain - 1} deltas): "
                  f"{cpu * 1000:.0f} ms CPU, {took * 1000:.0f} ms (target < 1000 ms)")
            started, cpu = time.perf_counter(), time.process_time()
            shown = Cluster.objects.get(pk=cluster.pk)
            training.rewind(shown, 30.0, confirmed=shown.revision)  # as confirmed on the page
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
            print(f"rewind by an hour ({args.nodes} nodes, {args.pods} pods): {cpu * 1000:.0f} ms CPU, {took * 1000:.0f} ms "
                  f"(target < 1000 ms)")
        finally:
            services.delete_cluster(cluster)


if __name__ == "__main__":
    main()
