"""`make bench`: previews are the loop on a copy, so they must be fast enough to be the only way.

    python -m scheduling.bench.preview [--nodes 500] [--pods 10000] [--quick]

Builds a stored cluster of --nodes nodes and --pods pods owned by ReplicaSets (the
documents of scheduling.bench.interactive, in a temporary SQLite database unless
DATABASE_URL is set), places them, and prints one row per figure, in CPU seconds of this
process (wall seconds beside), each against its target:

* a one-node preview: `oc adm taint nodes <the busiest node> bench=1:NoExecute` previewed
  through the loop (previews.preview_command: the loop at the clock, the change, the
  controllers until nothing more happens): what a user waits for after typing it; < 0.5 s;
* a 55-node taint preview: the same taint on 55 nodes at once; < 1 s;
* a clock step: +60 s (scheduling.store.clock.step) and the reconcile it asks for;
* a write at the clock: `oc label node <node> bench=1` through oc_cli.run_on_cluster (the
  controllers brought up to the clock first) and the reconcile after it.

Figures, not tests; `--quick` runs small sizes so a test can check the command works. The
imports of the app sit inside the functions on purpose: this script configures the settings
(a throw-away database) before Django may be imported.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid

from scheduling.bench.interactive import setup_database, Timer, documents


def _row(what: str, t: Timer, target: float | None, extra: str = "") -> str:
    if target is None:
        return f"{what:<58} {t.cpu:8.2f} CPU s {t.wall:8.2f} s{extra}"
    verdict = "ok" if t.cpu < target else "SLOW"
    return f"{what:<58} {t.cpu:8.2f} CPU s {t.wall:8.2f} s   target < {target:g} s   {verdict}{extra}"


def run(nodes: int, pods: int) -> list[str]:
    from scheduling.store import clock, oc_cli, reconcile, services
    from scheduling.pages import previews
    from scheduling.models import Pod as StoredPod

    docs = documents(nodes, pods)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs})
    cluster = services.import_new_cluster(f"bench-{uuid.uuid4().hex[:8]}", text, "bench.json",
                                          description="make bench: previews")
    lines = []
    try:
        reconcile.reconcile(cluster.pk, force=True)
        counts: dict[str, int] = {}
        for name in StoredPod.objects.filter(cluster=cluster).exclude(node_name="").values_list("node_name", flat=True):
            counts[name] = counts.get(name, 0) + 1
        busiest = max(counts, key=lambda n: (counts[n], n))
        cluster.refresh_from_db()
        previews.preview_command(cluster, ["oc", "get", "nodes"])  # warm: the process has read the cluster once
        with Timer() as t:
            result = previews.preview_command(cluster, ["oc", "adm", "taint", "nodes", busiest, "bench=1:NoExecute"])
        evicted = len(result.events_of("TaintManagerEviction"))
        lines.append(_row(f"preview: NoExecute taint on one {counts[busiest]}-pod node", t, 0.5,
                          f"   ({evicted} evicted, {len(result.events)} events to t+{result.until - result.at:g} s)"))
        some = sorted(counts)[:55]
        with Timer() as t:
            result = previews.preview_command(cluster, ["oc", "adm", "taint", "nodes", *some, "bench=1:NoExecute"])
        evicted = len(result.events_of("TaintManagerEviction"))
        lines.append(_row(f"preview: NoExecute taint on {len(some)} nodes", t, 1.0,
                          f"   ({evicted} evicted, {len(result.events)} events)"))
        with Timer() as t:
            clock.step(cluster, 60)
            reconcile.reconcile(cluster.pk)
        lines.append(_row("clock step +60 s and its reconcile", t, None))
        cluster.refresh_from_db()
        with Timer() as t:
            oc_cli.run_on_cluster(cluster, ["oc", "label", "node", busiest, "bench=1"], lambda stream, text: None)
            reconcile.reconcile(cluster.pk)
        lines.append(_row("a write at the clock (oc label node) and its reconcile", t, None))
    finally:
        services.delete_cluster(cluster)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduling.bench.preview", description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="small sizes (a test that the command works)")
    args = parser.parse_args(argv)
    if args.quick:
        args.nodes, args.pods = 60, 300
    with tempfile.TemporaryDirectory() as tmp:
        setup_database(tmp)
        print(f"preview rows: a stored cluster of {args.nodes:,} nodes / {args.pods:,} pods", flush=True)
        for line in run(args.nodes, args.pods):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
