"""`make bench` (machines): `python -m scheduling.bench.machineset --quick` prints its figures
without a database. The figures are not asserted (benchmarks are not tests)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_machineset_preview_bench_prints_its_figures():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.machineset", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert ("MachineSet template preview: 20 nodes, 200 pods, a set of 4 (60 pods evicted or deleted, 4 machines deleted, "
            "4 nodes joined, 10 pods started, 10 left Pending)") in done.stdout
    assert len(re.findall(r"\d+\.\d\d s CPU  \(\d+\.\d\d s wall\)", done.stdout)) == 4
