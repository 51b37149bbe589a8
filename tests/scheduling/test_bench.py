"""`make bench` runs: `python -m scheduling.bench.scheduler --quick` prints its figures for both
scenarios. The figures themselves are not asserted (benchmarks are not tests)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_benchmark_runs_without_a_database_and_prints_its_figures():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run(
        [sys.executable, "-m", "scheduling.bench.scheduler", "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for scenario, nodes, pods in (("a", 40, 400), ("b", 60, 360)):
        assert f"scenario {scenario}: {nodes} nodes, {pods} pending pods" in out
    assert len(re.findall(r"scheduled +\d+ pods in \d+ attempts", out)) == 2
    assert len(re.findall(r"run_queue +[\d.]+ s wall-clock, [\d.]+ s CPU", out)) == 2
    assert len(re.findall(r"throughput +\d+ pods/s per CPU second \(\d+ by the wall clock\), target >= \d+ pods/s", out)) == 2
    assert len(re.findall(r"memory +peak RSS \d+ MiB .*, \+\d+ MiB during run_queue", out)) == 2


def test_the_benchmark_can_also_trace_python_allocations():
    done = subprocess.run(
        [sys.executable, "-m", "scheduling.bench.scheduler", "--quick", "--scenario", "a", "--tracemalloc"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"tracemalloc +peak [\d.]+ MiB of Python allocations during run_queue", done.stdout)


def test_the_quick_interactive_benchmark_prints_each_row_of_issue_14_against_its_target():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run(
        [sys.executable, "-m", "scheduling.bench.interactive", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        r"import_cluster, 250 objects +[\d.]+ CPU s +[\d.]+ s +target < 15 s +(ok|SLOW)",
        r"first placement of 200 pending pods \(195 placed\) +[\d.]+ CPU s .*target < 10 s",
        r"what-if preview, NoExecute taint on a \d+-pod node +[\d.]+ CPU s .*target < 1 s .*\(\d+ evicted\)",
        r"apply -> the reconcile's events \(evict, recreate, place\) +[\d.]+ CPU s .*target < 1 s",
        r"explainer of a Pending pod +[\d.]+ CPU s .*target < 0.5 s",
        r"simulate end to end, 30 nodes x 300 pods +[\d.]+ CPU s .* pods/CPU-s, target >= 1,500",
    ]
    for row in rows:
        assert re.search(row, done.stdout), (row, done.stdout)


def test_the_quick_preview_benchmark_prints_the_preview_and_step_rows():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run(
        [sys.executable, "-m", "scheduling.bench.preview", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        r"preview: NoExecute taint on one \d+-pod node +[\d.]+ CPU s .*target < 0.5 s +(ok|SLOW) +\(\d+ evicted, \d+ events to t\+[\d.]+ s\)",
        r"preview: NoExecute taint on 55 nodes +[\d.]+ CPU s .*target < 1 s",
        r"clock step \+60 s and its reconcile +[\d.]+ CPU s",
        r"a write at the clock \(oc label node\) and its reconcile +[\d.]+ CPU s",
    ]
    for row in rows:
        assert re.search(row, done.stdout), (row, done.stdout)


def test_the_quick_framework_benchmark_prints_its_end_to_end_throughput():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.framework", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.search(r"framework scheduler, file in -> answer out: 60 nodes / 400 pods, 400 placed: [\d.]+ CPU s "
                     r"\([\d.]+ s wall\), [\d,]+ pods/CPU-s \(target >= 1,500: (ok|BELOW TARGET)\); peak RSS \d+ MiB",
                     done.stdout), done.stdout


def test_the_scale_benchmark_prints_each_figure_warm_and_cold_with_its_targets():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run(
        [sys.executable, "-m", "scheduling.bench.scale", "--nodes", "12", "--pods", "120", "--repeat", "1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "scale: 12 nodes, 120 pods. warm: CPU s of one process" in out
    assert re.search(r"warm CPU +cold CPU +cold wall +targets: warm < 0.3 CPU s, cold < 1.0 s", out), out
    for label, lines in (("oc get events -A", 121), ("oc get pods -A -o wide", 121), ("oc describe node", None),
                         ("overview (board)", None), ("pod page", None), ("node page, first load", None),
                         ("node page, why table", None)):
        line = next(row for row in out.splitlines() if row.strip().startswith(label + " "))
        assert re.search(r"( +[\d.]+s){3} +(ok|OVER)", line), line
        if lines is not None:
            assert f"({lines} lines; whole `manage.py oc` process " in line, line
    assert re.search(r"import \+ reconcile +[\d.]+s +(ok|OVER) \(target < 8.0 CPU s\)", out), out
