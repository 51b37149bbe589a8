"""Concurrent editors against one stored cluster, in one process (no network: a bounded
probe, nothing leaves the machine).

    python -m scheduling.bench.editors [--editors 20] [--edits 50] [--nodes 20] [--quick]

`--editors` threads each make `--edits` edits through the console's path
(oc_cli.run_on_cluster, as `manage.py oc --cluster` and the page's console do): `oc label
node <node> e<editor>-<n>=v`, every fifth an `oc adm taint` of a key of its own, every
seventh an `oc scale` of the cluster's Deployment, on nodes drawn at random, while a clock
thread steps the cluster's clock by 60 s a second and reconciles (the controllers' writes
compete with the editors'). It prints:

* lost edits: acknowledged (exit code 0) but absent from the stored node at the end (must
  be 0);
* refused edits: answered with an error, and how many of those were conflicts (kubectl's
  patches and scale never see one: must be 0);
* edit latency: p50, p95 and the maximum, from the command to its acknowledgement.

Imports of the app sit inside the functions on purpose: this script configures the
settings (a throw-away database) before Django may be imported.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time

from scheduling.bench.interactive import setup_database


def cluster_text(nodes: int) -> str:
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: node-{i:03d}, labels: {{kubernetes.io/hostname: node-{i:03d}}}}}\n"
            'status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}' for i in range(nodes)]
    docs.append("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
                "spec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n"
                "    metadata: {labels: {app: web}}\n"
                "    spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 10m}}}]}")
    return "\n---\n".join(docs)


def run(editors: int, edits: int, nodes: int, seed: int = 1) -> list[str]:
    from django.db import connection

    from scheduling.live import broadcast
    from scheduling.models import Cluster, Node
    from scheduling.store import clock, oc_cli, reconcile, services

    cluster = services.import_new_cluster(f"editors-{seed}", cluster_text(nodes), "bench.yaml")
    reconcile.reconcile(cluster.pk)
    latencies: list[float] = []
    acknowledged: list[tuple[str, str, str]] = []  # (node, label key, taint key or "")
    refused: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    start = threading.Barrier(editors + 1)

    def editor(i: int) -> None:
        rng = random.Random(seed * 1000 + i)
        try:
            start.wait()
            for n in range(edits):
                node = f"node-{rng.randrange(nodes):03d}"
                if n % 7 == 6:
                    argv, mark = ["oc", "scale", "deployment", "web", f"--replicas={rng.randrange(1, 6)}"], None
                elif n % 5 == 4:
                    key = f"t{i}-{n}"
                    argv, mark = ["oc", "adm", "taint", "nodes", node, f"{key}=v:PreferNoSchedule"], (node, "", key)
                else:
                    key = f"e{i}-{n}"
                    argv, mark = ["oc", "label", "node", node, f"{key}=v"], (node, key, "")
                out: list[str] = []
                began = time.perf_counter()
                result = oc_cli.run_on_cluster(Cluster.objects.get(pk=cluster.pk), argv, lambda s, t: out.append(t))
                took = time.perf_counter() - began
                with lock:
                    latencies.append(took)
                    if result.exit_code == 0:
                        if mark is not None:
                            acknowledged.append(mark)
                    else:
                        refused.append("".join(out).strip())
        finally:
            connection.close()

    def ticking() -> None:
        try:
            start.wait()
            while not stop.wait(1.0):
                clock.step(Cluster.objects.get(pk=cluster.pk), 60.0)
                reconcile.reconcile(cluster.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=editor, args=(i,), name=f"editor-{i}") for i in range(editors)]
    ticker = threading.Thread(target=ticking, name="clock")
    began = time.perf_counter()
    for t in (*threads, ticker):
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    stop.set()
    ticker.join()
    stored = {n.name: n for n in Node.objects.filter(cluster=cluster)}
    lost = 0
    for node, label, taint in acknowledged:
        doc = stored[node]
        if label and (doc.metadata.get("labels") or {}).get(label) != "v":
            lost += 1
        if taint and not any(t.get("key") == taint for t in (doc.spec.get("taints") or [])):
            lost += 1
    conflicts = sum(1 for text in refused if "Conflict" in text)
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    services.delete_cluster(cluster)
    broadcast.flush()  # the pushes of the edits, rendered before the database goes
    return [
        f"editors: {editors} x {edits} edits on {nodes} nodes, the clock stepped 60 s a second: {len(latencies)} edits "
        f"in {wall:.1f} s",
        f"lost edits: {lost}",
        f"refused edits: {len(refused)} ({conflicts} conflicts)",
        f"edit latency: p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms",
    ] + [f"  refused: {text}" for text in refused[:5]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduling.bench.editors", description=__doc__.split("\n")[0])
    parser.add_argument("--editors", type=int, default=20)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="small sizes (a test that the command works)")
    args = parser.parse_args(argv)
    if args.quick:
        args.editors, args.edits, args.nodes = 4, 6, 3
    with tempfile.TemporaryDirectory() as tmp:
        setup_database(tmp)
        for line in run(args.editors, args.edits, args.nodes):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
