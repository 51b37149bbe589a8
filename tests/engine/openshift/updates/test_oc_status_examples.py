"""openshift/oc's own golden test of `oc adm upgrade status` (TestExamples), run on our
implementation: every example of pkg/cli/admin/upgrade/status/examples (see
oc_status_examples/README.md), both outputs, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduling.engine.oc.output import seconds
from scheduling.engine.openshift import oc_status
from scheduling.engine.store import Store
from scheduling.store.kube import parse_documents, without_managed_fields

HERE = Path(__file__).resolve().parent / "oc_status_examples"
CASES = sorted(p.name[: -len("-cv.yaml")] for p in HERE.glob("*-cv.yaml"))
PARTS = ("cv", "co", "mc", "mcp", "node", "mco-deployment")


def objects(case: str) -> list[dict]:
    out = []
    for part in PARTS:
        path = HERE / f"{case}-{part}.yaml"
        if not path.exists():
            continue
        for doc in parse_documents(path.read_text(), path.name):
            items = doc.get("items") if str(doc.get("kind", "")).endswith("List") else [doc]
            out += [without_managed_fields(i) for i in items or []]
    return out


def mock_now(store: Store) -> float:
    """status.go Run with mock data: the latest lastTransitionTime of the ClusterVersion's and
    the ClusterOperators' conditions, plus 368975 ns "to exercise rounding"."""
    docs = [store.get("ClusterVersion", "", "version")] + store.list("ClusterOperator")
    times = [seconds(c.get("lastTransitionTime")) for d in docs for c in (d.get("status") or {}).get("conditions") or ()]
    return max(t for t in times if t is not None) + 368975e-9


def test_every_upstream_example_is_here():
    assert len(CASES) == 13
    for case in CASES:
        assert (HERE / f"{case}.output").exists() and (HERE / f"{case}.detailed-output").exists()


@pytest.mark.parametrize("details, suffix", [("none", ".output"), ("all", ".detailed-output")])
@pytest.mark.parametrize("case", CASES)
def test_example(case, details, suffix):
    store = Store(objects(case))
    files: dict = {oc_status.SNAPSHOT: []}
    alerts = HERE / f"{case}-alerts.json"
    if alerts.exists():
        files[oc_status.ALERTS_FILE] = [json.loads(alerts.read_text())]
    result = oc_status.status(store, [f"--details={details}"], mock_now(store), files=files)
    assert result.stderr == ""
    assert result.stdout == (HERE / f"{case}{suffix}").read_text()
