"""`make bench` (editors): `python -m scheduling.bench.editors --quick` runs concurrent editors
against one stored cluster and prints lost and refused edits and the edit latency. The
latencies are not asserted (benchmarks are not tests); losing or refusing an edit is."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT


def test_the_quick_editors_probe_loses_and_refuses_nothing():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.editors", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "editors: 4 x 6 edits on 3 nodes, the clock stepped 60 s a second: 24 edits in" in done.stdout
    assert "lost edits: 0\n" in done.stdout and "refused edits: 0 (0 conflicts)\n" in done.stdout
    assert re.search(r"edit latency: p50 \d+ ms, p95 \d+ ms, max \d+ ms", done.stdout)
    assert "Traceback" not in done.stderr
