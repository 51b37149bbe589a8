"""Conditional updates: real risks of the graph data evaluated against the cluster's facts
as the CVO evaluates them (Always applies; PromQL 1 applies, 0 does not; unevaluable ->
Recommended=Unknown, EvaluationFailed)."""

from __future__ import annotations

import pytest

from scheduling.engine.store import Store
from scheduling.engine.openshift import graph as G
from scheduling.engine.openshift import promql
from scheduling.engine.openshift.facts import cluster_series

from .builders import cluster_version, node


def recommended(source: str, target: str, channel: str, facts: dict, docs=()) -> dict:
    store = Store([cluster_version(source, channel), *docs])
    edge = [e for e in G.updates_from(source, channel) if e.target == target][0]
    return G.evaluate(edge.risks, cluster_series(store, facts))


def mcd_node(name: str, config: str) -> dict:
    return node(name, annotations={"machineconfiguration.openshift.io/state": "Done",
                                   "machineconfiguration.openshift.io/currentConfig": config})


KEEPALIVED = G.risk("KeepalivedMulticastSkew")
LIBRESWAN = G.risk("OVNlibreswan")
LABELED = G.risk("LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO")


@pytest.mark.parametrize(
    "source, target, channel, facts, docs, status, reason, message",
    [
        pytest.param("4.14.30", "4.14.50", "stable-4.14", {}, (), "False", LABELED.name,
                     f"{LABELED.message} {LABELED.url}", id="an Always risk applies to every cluster"),
        pytest.param("4.14.30", "4.14.40", "stable-4.14", {"networkType": "OVNKubernetes", "ipsec": True}, (), "False",
                     LIBRESWAN.name, f"{LIBRESWAN.message} {LIBRESWAN.url}",
                     id="OVNlibreswan applies to an OVN cluster with IPsec enabled"),
        pytest.param("4.14.30", "4.14.40", "stable-4.14", {"networkType": "OVNKubernetes", "ipsec": False}, (), "True",
                     G.REASON_NOT_EXPOSED, G.MESSAGE_NOT_EXPOSED, id="OVNlibreswan does not apply with IPsec disabled"),
        pytest.param("4.14.30", "4.14.40", "stable-4.14", {"networkType": "OpenShiftSDN"}, (), "True",
                     G.REASON_NOT_EXPOSED, G.MESSAGE_NOT_EXPOSED, id="OVNlibreswan does not apply to an OpenShiftSDN cluster"),
        pytest.param("4.10.22", "4.11.40", "candidate-4.11", {"platform": "VSphere"}, [mcd_node("w1", "rendered-worker-1")],
                     "False", KEEPALIVED.name, f"{KEEPALIVED.message} {KEEPALIVED.url}",
                     id="KeepalivedMulticastSkew applies on vSphere with worker nodes"),
        pytest.param("4.10.22", "4.11.40", "candidate-4.11", {"platform": "AWS"}, [mcd_node("w1", "rendered-worker-1")],
                     "True", G.REASON_NOT_EXPOSED, G.MESSAGE_NOT_EXPOSED, id="KeepalivedMulticastSkew does not apply on AWS"),
        pytest.param("4.10.22", "4.11.40", "candidate-4.11", {"platform": "VSphere"}, (), "Unknown", G.REASON_EVALUATION_FAILED,
                     f"Could not evaluate exposure to update risk {KEEPALIVED.name} (invalid PromQL result length must be one, but is 0)\n"
                     f"  {KEEPALIVED.name} description: {KEEPALIVED.message}\n  {KEEPALIVED.name} URL: {KEEPALIVED.url}",
                     id="KeepalivedMulticastSkew cannot be evaluated without machine-config daemon metrics: not recommended"),
    ],
)
def test_risk_evaluation(source, target, channel, facts, docs, status, reason, message):
    assert recommended(source, target, channel, facts, docs) == {"type": "Recommended", "status": status, "reason": reason, "message": message}


def test_an_applying_risk_and_an_unevaluable_one_make_multiple_reasons():
    r = [G.risk("PatchesOlderRelease"), KEEPALIVED]
    got = G.evaluate(r, cluster_series(Store([cluster_version("4.10.22", "candidate-4.11")]), {"platform": "VSphere"}))
    assert (got["status"], got["reason"]) == ("False", "MultipleReasons")
    assert got["message"].startswith(f"{r[0].message} {r[0].url}\n\nCould not evaluate exposure to update risk KeepalivedMulticastSkew (")


def test_a_rule_of_an_unknown_type_is_skipped_and_none_left_cannot_be_evaluated():
    with pytest.raises(G.NoMatchingRule):
        G.match_rules([{"type": "Hypothetical"}], [])
    assert G.match_rules([{"type": "Hypothetical"}, {"type": "Always"}], []) is True


@pytest.mark.parametrize(
    "query, expected",
    [
        pytest.param('group(cluster_infrastructure_provider{type="AWS"}) or 0 * group(cluster_infrastructure_provider)', True,
                     id="or keeps the left side when it has samples"),
        pytest.param('group(cluster_infrastructure_provider{type="GCP"}) or 0 * group(cluster_infrastructure_provider)', False,
                     id="or falls back to the right side"),
        pytest.param('1 - max(cluster_version_capability{name="Console"})', False, id="scalar minus vector"),
        pytest.param('topk(1, group by (type) (cluster_infrastructure_provider{_id=""}))', True,
                     id="an empty _id matcher matches series without the label"),
    ],
)
def test_promql(query, expected):
    data = [promql.series("cluster_infrastructure_provider", 1, type="AWS"), promql.series("cluster_version_capability", 1, name="Console")]
    assert promql.match(query, data) is expected


def test_the_channel_edges_follow_the_data_readme_rule():
    targets = [e.target for e in G.updates_from("4.13.19", "stable-4.14")]
    assert "4.13.18" not in targets and "4.13.21" in targets  # only newer versions (4.13.20 is not in the channel)
    assert all(t.startswith(("4.13.", "4.14.")) for t in targets)
    from_412 = {e.target.rsplit(".", 1)[0] for e in G.updates_from("4.12.16", "stable-4.14")}
    assert from_412 == {"4.12", "4.13"}  # no 4.12 -> 4.14 edge: a release's previous list holds only x.y and x.(y-1)
    # minor_min of 4.14 is 4.13.19: 4.13.18 reaches no 4.14 release
    assert not [e for e in G.updates_from("4.13.18", "stable-4.14") if e.target.startswith("4.14.")]
