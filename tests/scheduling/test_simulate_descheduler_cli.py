"""`manage.py simulate` with the descheduler's flags and the admission user flags, as a
user runs it (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.test_simulate_descheduler_admission import CLUSTER, DUPLICATES, PNC
from tests.scheduling.test_simulate_command import simulate


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_descheduler_flags_reach_the_run(tmp_path):
    files = [write(tmp_path, "cluster.yaml", CLUSTER), write(tmp_path, "policy.yaml", DUPLICATES)]
    run = simulate(*files, "--explain", "none", "--descheduler-dry-run", "--descheduler-max-pods-to-evict-per-node", "1")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert [(e["reason"], e["message"]) for e in out["events"] if e["reason"] == "DeschedulerRun"] == [
        ("DeschedulerRun", "would evict 1 pods")]
    assert out["descheduler"]["evictions"][0]["wouldLandOn"] == "node2"


def test_an_admission_refusal_exits_2_with_the_api_servers_text(tmp_path):
    files = [write(tmp_path, "cluster.yaml", CLUSTER), write(tmp_path, "pnc.yaml", PNC)]
    run = simulate(*files)
    assert run.returncode == 2
    assert run.stderr.strip() == 'pods "web-a" is forbidden: node selection by nodeName is prohibited by policy for your role'
    assert simulate(*files, "--user-can-bind").returncode == 0


def test_as_and_as_group_name_a_node_creating_its_mirror_pod(tmp_path):
    mirror = ("apiVersion: v1\nkind: Node\nmetadata: {name: node1}\n---\napiVersion: v1\nkind: Pod\n"
              "metadata: {name: static-node1, annotations: {kubernetes.io/config.mirror: x}}\n"
              "spec: {nodeName: node1, containers: [{name: c, image: busybox}]}\n")
    files = [write(tmp_path, "mirror.yaml", mirror), write(tmp_path, "pnc.yaml", PNC)]
    assert simulate(*files, "--as", "system:node:node1", "--as-group", "system:nodes").returncode == 0
    assert simulate(*files, "--as", "system:node:node1").returncode == 2
