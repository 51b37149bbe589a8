"""`make bench` (updates): `python -m scheduling.bench.update --quick` runs the update end to end and
prints each figure beside its target. The figures are not asserted (benchmarks
are not tests); that every pool was updated is."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_update_bench_prints_its_figures_against_their_targets():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.update", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [
        r"update of 30 nodes / 300 pods with PDBs, simulated end to end +[\d.]+ s wall +[\d.]+ s CPU +target < 30 s wall +(ok|SLOW)",
        r"every pool updated by simulated \d+\.\d s; \d+ instants, \d+ events, 30 node updates, \d+ Killing events",
        r"progress view of 30 nodes +\d+ ms +target < 300 ms +(ok|SLOW)",
    ]
    for row in rows:
        assert re.search(row, done.stdout), (row, done.stdout)
