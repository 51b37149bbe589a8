"""The explainer: every node against every predicate, the scores, the FailedScheduling
message, the preemption decision, the pod's events; and why each pod of a node is there."""

from __future__ import annotations

import re
from pathlib import Path
from random import Random

import pytest
import yaml
from django.urls import reverse

from scheduling.pages import board, explain
from scheduling.store import services
from scheduling.engine.scheduler import scheduler
from scheduling.engine.scheduler.policy import default_policy, load_policy
from scheduling.engine.simulate import build_state
from scheduling.store.kube import load_documents
from tests.engine.builders import cluster, node, pod

DEMO = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "demo-cluster.yaml"
TAINTS = "node(s) had taints that the pod didn't tolerate"
SELECTOR = "node(s) didn't match node selector"


@pytest.fixture(scope="module")
def demo_state():
    return build_state(d for d in load_documents(DEMO.read_text()) if d["kind"] not in ("Policy", "Timeline"))


def cells(explanation, node_name):
    row = next(r for r in explanation.filter_rows if r.node == node_name)
    return dict(zip(explanation.predicates, row.cells))


def test_the_multiple_taints_example_fails_on_node1_because_key2_is_not_tolerated(demo_state):
    ex = explain.explain_pod(demo_state, default_policy(), "default/new-pod-key1")
    assert ex.message == (
        "0/9 nodes are available: 1 node(s) had taints that the pod didn't tolerate, 8 node(s) didn't match node selector."
    )
    node1 = cells(ex, "node1")
    assert node1["GeneralPredicates"].fits
    assert node1["PodToleratesNodeTaints"].reasons == (TAINTS,) and node1["PodToleratesNodeTaints"].stopped
    # the scheduler stopped there: the rest were not evaluated by it, but are shown
    assert all(c.skipped for name, c in node1.items() if ex.predicates.index(name) > ex.predicates.index("PodToleratesNodeTaints"))
    # every other node stops at the node selector; the taint check is still shown for the masters
    master = cells(ex, "master-0")
    assert master["GeneralPredicates"].reasons == (SELECTOR,) and master["GeneralPredicates"].stopped
    assert master["PodToleratesNodeTaints"].reasons == (TAINTS,) and master["PodToleratesNodeTaints"].skipped
    assert [r.node for r in ex.filter_rows] == ["master-0", "master-1", "master-2", "node1", "node2", "node3", "node4", "node5", "node6"]
    assert ex.score_rows == [] and ex.winner is None
    assert ex.preemption.considered and ex.preemption.nominated is None
    assert ("node1", TAINTS) in ex.preemption.unhelpful


def test_with_always_check_all_predicates_nothing_is_marked_as_stopped(demo_state):
    doc = {"kind": "Policy", "apiVersion": "v1", "alwaysCheckAllPredicates": True,
           "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
           "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}
    ex = explain.explain_pod(demo_state, load_policy(doc), "default/new-pod-key1")
    assert not any(c.stopped or c.skipped for r in ex.filter_rows for c in r.cells)
    assert cells(ex, "master-0")["PodToleratesNodeTaints"].reasons == (TAINTS,)


def test_the_score_matrix_shows_raw_weight_weighted_and_the_ties():
    state = cluster([node("a"), node("b"), node("c", taints=["x=y:PreferNoSchedule"])], [pod("p", cpu="100m")])
    policy = load_policy({"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "PodToleratesNodeTaints"}],
                          "priorities": [{"name": "TaintTolerationPriority", "weight": 3}]})
    ex = explain.explain_pod(state, policy, "default/p", seed=1)
    assert ex.priorities == (("TaintTolerationPriority", 3),)
    rows = {r.node: r for r in ex.score_rows}
    assert [(c.raw, c.weight, c.weighted) for c in rows["a"].cells] == [(10, 3, 30)]
    assert rows["c"].total == 0
    assert ex.tied == ("a", "b") and ex.winner in ("a", "b")
    assert rows[ex.winner].winner and rows["a"].tied and rows["b"].tied and not rows["c"].tied
    assert [r.node for r in ex.score_rows][-1] == "c"


def test_preemption_lists_the_victims_per_candidate_and_the_nominated_node():
    state = cluster(
        [node("n1", cpu="1"), node("n2", cpu="1")],
        [pod("low", node_name="n1", cpu="800m", priority=1), pod("mid", node_name="n2", cpu="800m", priority=5),
         pod("vip", cpu="500m", priority=100)],
    )
    ex = explain.explain_pod(state, default_policy(), "default/vip")
    assert ex.message == "0/2 nodes are available: 2 Insufficient cpu."
    pv = ex.preemption
    assert pv.considered and pv.nominated == "n1"
    assert [(c.node, c.victims, c.chosen) for c in pv.candidates] == [
        ("n1", (("default/low", 1),), True),
        ("n2", (("default/mid", 5),), False),
    ]


def test_a_running_pod_is_explained_as_if_it_were_scheduled_now():
    state = cluster([node("n1"), node("n2")], [pod("p", node_name="n1", cpu="100m")])
    ex = explain.explain_pod(state, default_policy(), "default/p")
    assert ex.current_node == "n1" and ex.message is None and ex.winner in ("n1", "n2")
    assert all(r.fits for r in ex.filter_rows)


def test_a_node_explains_each_of_its_pods(demo_state):
    why = explain.explain_node(demo_state, default_policy(), "node1")
    [row] = why.pods
    assert row.pod.key == "default/running-on-node1"
    assert row.fits == (TAINTS,)  # key2 is not tolerated: it would not be placed here now
    assert [(m.taint, m.toleration) for m in row.taints] == [
        ("key1=value1:NoSchedule", "key1=value1:NoSchedule"),
        ("key1=value1:NoExecute", "key1=value1:NoExecute"),
        ("key2=value2:NoSchedule", ""),
    ]
    assert row.total is None and row.rank is None


def test_a_nodes_explanation_is_each_pod_scheduled_again_without_itself(demo_state):
    """explain_node builds the other nodes' infos once: the same answers as scheduling each
    pod against the whole cluster without it (infos_without), for every node of the demo."""
    policy = default_policy()
    for node in demo_state.nodes:
        why = explain.explain_node(demo_state, policy, node.name)
        for row in why.pods:
            result = scheduler.schedule(explain.unbound_copy(row.pod), demo_state, explain.infos_without(demo_state, {row.pod.key}),
                              policy, Random(0), explain=True)
            totals = {n: s.get("total", 0) for n, s in result.scores.items()}
            assert row.fits == tuple(result.filters.get(node.name, ()))
            assert row.total == totals.get(node.name)
            assert row.best_total == (max(totals.values()) if totals else None)


# --- the pages --------------------------------------------------------------------------------


@pytest.fixture
def demo(db):
    return services.import_new_cluster("demo", DEMO.read_text(), DEMO.name)


def test_the_pod_page_shows_the_matrices_the_message_and_the_events(client, demo):
    services.record_event(demo, reason="FailedScheduling", type="Warning", kind="Pod", namespace="default",
                          name="new-pod-key1", source="default-scheduler", message="<b>0/9 nodes</b>", time=0)
    body = client.get(reverse("pod-detail", args=[demo.pk, "default", "new-pod-key1"])).content.decode()
    assert "0/9 nodes are available: 1 node(s) had taints that the pod didn&#x27;t tolerate, 8 node(s) didn&#x27;t match node selector." in body
    assert 'data-filter-node="node1"' in body and "(the scheduler stopped here)" in body
    assert "<th scope=\"col\">Type</th><th scope=\"col\">Reason</th><th scope=\"col\">Age</th><th scope=\"col\">From</th><th scope=\"col\">Message</th>" in body
    assert "&lt;b&gt;0/9 nodes&lt;/b&gt;" in body and "<b>0/9" not in body
    assert "default-scheduler" in body


def test_the_node_page_says_why_its_pods_are_there(client, demo):
    body = client.get(reverse("node-detail", args=[demo.pk, "node1"])).content.decode()
    assert "default/running-on-node1" in body
    assert "tolerated by</span> <code>key1=value1:NoExecute</code>" in body
    assert "key2=value2:NoSchedule <span class=\"hint\">not tolerated</span>" in body


def test_a_large_clusters_node_page_loads_the_why_table_after_the_node(client, demo, monkeypatch):
    monkeypatch.setattr(explain, "NODE_EXPLAIN_INLINE_CHECKS", 1)  # as a 500-node cluster would be
    body = client.get(reverse("node-detail", args=[demo.pk, "node1"])).content.decode()
    why_url = reverse("node-why", args=[demo.pk, "node1"])
    assert f'<div id="node-why" hx-get="{why_url}" hx-trigger="load" hx-swap="outerHTML">' in body
    assert "default/running-on-node1" not in body
    table = client.get(why_url).content.decode()
    assert table.lstrip().startswith('<div id="node-why">')
    assert "default/running-on-node1" in table and "tolerated by</span> <code>key1=value1:NoExecute</code>" in table


def test_the_pod_panel_is_a_fragment_for_htmx(client, demo):
    response = client.get(reverse("pod-detail", args=[demo.pk, "default", "new-pod-key1"]), HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert body.lstrip().startswith('<div class="panel-body"') and "<html" not in body


def test_an_unknown_pod_is_a_404(client, demo):
    assert client.get(reverse("pod-detail", args=[demo.pk, "default", "nope"])).status_code == 404


def test_the_events_table_follows_oc_describe(demo):
    demo.now = 600
    demo.save()
    services.record_event(demo, reason="FailedScheduling", type="Warning", kind="Pod", namespace="default",
                          name="p", source="default-scheduler", message="m", time=100)
    services.record_event(demo, reason="FailedScheduling", type="Warning", kind="Pod", namespace="default",
                          name="p", source="default-scheduler", message="m", time=540)
    [row] = board.object_events(demo, "Pod", "p", "default")
    assert (row.type, row.reason, row.age, row.source, row.message) == (
        "Warning", "FailedScheduling", "1m (x2 over 8m)", "default-scheduler", "m"
    )


# --- naming the taint, the summary by reason, the toleration that fixes it ---------------------


def test_the_explainer_names_the_untolerated_taint_per_node_and_offers_its_toleration(demo_state):
    ex = explain.explain_pod(demo_state, default_policy(), "default/new-pod-key1")
    assert cells(ex, "node1")["PodToleratesNodeTaints"].detail == "key2=value2:NoSchedule"
    assert [(g.reason, g.count) for g in ex.reasons] == [(SELECTOR, 8), (TAINTS, 1)]
    [fix] = ex.taint_fixes
    assert (fix.taint, fix.nodes) == ("key2=value2:NoSchedule", ("node1",))
    assert fix.toleration_yaml == "tolerations:\n- key: key2\n  operator: Equal\n  value: value2\n  effect: NoSchedule"


def test_a_toleration_of_the_offered_yaml_makes_the_pod_fit():
    state = cluster([node("n1", taints=["dedicated=gpu:NoSchedule", "spot:NoExecute"])], [pod("p")])
    ex = explain.explain_pod(state, default_policy(), "default/p")
    assert [f.taint for f in ex.taint_fixes] == ["dedicated=gpu:NoSchedule", "spot:NoExecute"]
    assert [f.operator for f in ex.taint_fixes] == ["Equal", "Exists"]
    tolerations = [t for f in ex.taint_fixes for t in yaml.safe_load(f.toleration_yaml)["tolerations"]]
    fixed = cluster([node("n1", taints=["dedicated=gpu:NoSchedule", "spot:NoExecute"])], [pod("p", tolerations=tolerations)])
    assert explain.explain_pod(fixed, default_policy(), "default/p").winner == "n1"


def test_at_500_nodes_the_reasons_are_summarised_and_the_node_table_starts_collapsed():
    nodes = [node(f"n{i:03d}", taints=[f"team=t{i % 3}:NoSchedule"] if i % 2 else [], cpu="1" if not i % 2 else "4")
             for i in range(500)]
    state = cluster(nodes, [pod("big", cpu="2")])
    ex = explain.explain_pod(state, default_policy(), "default/big")
    assert [(g.reason, g.count) for g in ex.reasons] == [("Insufficient cpu", 250), (TAINTS, 250)]
    assert ex.reasons[1].nodes[:3] == ("n001", "n003", "n005") and ex.reasons[1].more == 250 - explain.NODES_PER_REASON
    assert [(f.taint, f.count) for f in ex.taint_fixes] == [
        ("team=t1:NoSchedule", 84), ("team=t0:NoSchedule", 83), ("team=t2:NoSchedule", 83)
    ]
    assert not ex.filters_open and ex.node_count == 500


def test_at_500_feasible_nodes_the_scores_show_the_highest_totals_and_the_pods_own_node():
    nodes = [node(f"n{i:03d}", cpu="4") for i in range(500)]
    state = cluster(nodes, [pod("busy", cpu="3", node_name="n499"), pod("web", cpu="100m", node_name="n499")])
    ex = explain.explain_pod(state, default_policy(), "default/web")
    shown = [r.node for r in ex.score_rows]
    assert len(shown) == explain.MAX_SCORE_ROWS + 1 and ex.more_score_rows == 500 - len(shown)
    assert shown[-1] == "n499" and ex.score_rows[-1].total < ex.score_rows[-2].total  # its own node, lowest, still shown
    assert [r.total for r in ex.score_rows[:-1]] == sorted((r.total for r in ex.score_rows[:-1]), reverse=True)


def test_the_pod_page_shows_the_summary_the_taint_and_the_toleration_to_preview(client, demo):
    body = client.get(reverse("pod-detail", args=[demo.pk, "default", "new-pod-key1"])).content.decode()
    summary = body.index("Why not the other nodes")
    assert summary < body.index("<summary><h4>Filters")
    assert '<tr data-reason="node(s) didn&#x27;t match node selector"><td class="num">8</td>' in body
    assert 'the pod didn&#x27;t tolerate <span class="taint-detail" data-untolerated>(key2=value2:NoSchedule)</span>' in body
    assert ('<pre class="toleration-yaml" data-toleration>tolerations:\n- key: key2\n  operator: Equal\n  value: value2\n'
            '  effect: NoSchedule</pre>') in body
    assert '<details class="filters" open>' in body  # 9 nodes: the table is open
    assert 'name="op" value="toleration-add"><input type="hidden" name="key" value="key2">' in body


def test_the_offered_toleration_previews_the_pod_starting(editor_client, demo):
    body = editor_client.post(reverse("pod-preview", args=[demo.pk, "default", "new-pod-key1"]), {
        "op": "toleration-add", "key": "key2", "operator": "Equal", "value": "value2", "effect": "NoSchedule",
    }, HTTP_HX_REQUEST="true").content.decode()
    assert "add toleration key2=value2:NoSchedule" in body
    assert 'data-scheduled="default/new-pod-key1"' in body


# --- readable scores: NodePreferAvoidPods apart ------------------------------------------------


def test_the_avoid_pods_part_of_each_total_is_apart_from_the_priorities_that_decide():
    state = cluster([node("a"), node("b", taints=["x=y:PreferNoSchedule"])], [pod("p", cpu="100m")])
    ex = explain.explain_pod(state, default_policy(), "default/p")
    assert ex.avoid_pods == ("NodePreferAvoidPodsPriority",)
    rows = {r.node: r for r in ex.score_rows}
    assert (rows["a"].avoid, rows["b"].avoid) == (100000, 100000)
    assert rows["a"].total == rows["a"].rest + 100000 and rows["a"].rest > rows["b"].rest
    assert [c.avoid for c in rows["a"].cells if c.avoid] == [True]


def test_the_pod_page_shows_other_priorities_and_the_avoid_pods_column_last(client, demo):
    body = client.get(reverse("pod-detail", args=[demo.pk, "default", "ssd-cache"])).content.decode()
    head = body[body.index('<table class="matrix score-matrix">'):body.index("</thead>", body.index('<table class="matrix score-matrix">'))]
    assert head.index("Other priorities") < head.index("NodePreferAvoidPodsPriority") < head.index("Total")
    assert re.search(r'<td class="num total"><strong>(\d+)</strong> <span class="hint">= (\d+) \+ 100000</span></td>', body)
    assert "weighs 10000: it adds 100000 on every node" in body
