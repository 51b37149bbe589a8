"""The predictor the pages used before their previews became the loop (whatif_legacy, kept
for updates.machine_previews only), and the document edits of the editor. The pages' previews
are tested in test_whatif_loop.py."""

from __future__ import annotations

from scheduling import whatif
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.api.objects import Node
from scheduling.engine.scheduler.policy import default_policy
from tests.engine.builders import cluster, node, node_doc, pod

NO_EXECUTE = "key1=value1:NoExecute"


def tolerate(key="key1", value="value1", effect="NoExecute", seconds=None):
    t = {"key": key, "operator": "Equal", "value": value, "effect": effect}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


def with_node(state: ClusterState, new: Node) -> ClusterState:
    after = whatif.copy_state(state)
    after.nodes = [new if n.name == new.name else n for n in after.nodes]
    return after


def two_nodes(*pods, taints=()):
    return cluster([node("node1"), node("node2", taints=taints)], list(pods))


def test_a_noexecute_taint_evicts_the_pods_that_do_not_tolerate_it_at_once():
    before = two_nodes(
        pod("web", node_name="node2", cpu="100m"),
        pod("tolerant", node_name="node2", cpu="100m", tolerations=[tolerate()]),
        pod("elsewhere", node_name="node1", cpu="100m"),
    )
    after = with_node(before, node("node2", taints=[NO_EXECUTE]))
    preview = whatif.preview(before, after, default_policy(), now=50)
    assert preview.changed_nodes == ["node2"]
    assert [(e.pod, e.node, e.seconds, e.at, e.taints) for e in preview.evicted_now] == [
        ("default/web", "node2", 0, 50, ("key1=value1:NoExecute",))
    ]
    assert preview.evicted_later == []


def test_toleration_seconds_delay_the_eviction_to_the_shortest_one():
    before = two_nodes(
        pod("short", node_name="node2", tolerations=[tolerate(seconds=60), tolerate(key="key2", value="v", seconds=600)]),
        pod("forever", node_name="node2", tolerations=[tolerate(), tolerate(key="key2", value="v")]),
    )
    after = with_node(before, node("node2", taints=[NO_EXECUTE, "key2=v:NoExecute"]))
    preview = whatif.preview(before, after, default_policy(), now=100)
    assert preview.evicted_now == []
    assert [(e.pod, e.seconds, e.at) for e in preview.evicted_later] == [("default/short", 60, 160)]


def test_an_eviction_already_scheduled_keeps_its_time():
    # The taint manager's timer (its state, not the pod's) fires at 130; a second NoExecute
    # taint tolerated for 20 s does not bring it forward to 120 (upstream keeps the timer).
    tolerations = [tolerate(seconds=60), tolerate(key="key2", value="v", seconds=20)]
    before = two_nodes(pod("p", node_name="node2", tolerations=tolerations), taints=[NO_EXECUTE])
    after = with_node(before, node("node2", taints=[NO_EXECUTE, "key2=v:NoExecute", "other=x:NoSchedule"]))
    preview = whatif.preview(before, after, default_policy(), now=100, timers={"default/p": 130})
    assert preview.evicted_now == [] and preview.evicted_later == []
    without_timer = whatif.preview(before, after, default_policy(), now=100)
    assert [(e.pod, e.at) for e in without_timer.evicted_later] == [("default/p", 120)]


def test_removing_a_taint_lets_a_pending_pod_start_and_changes_its_scores():
    before = cluster([node("node1", taints=["dedicated=infra:NoSchedule"])], [pod("waiting", cpu="100m")])
    after = with_node(before, node("node1"))
    preview = whatif.preview(before, after, default_policy())
    assert [(p.pod, p.before, p.after) for p in preview.scheduled] == [("default/waiting", None, "node1")]
    [scores] = preview.scores
    assert scores.pod == "default/waiting"
    assert scores.best_before == () and scores.best_after == ("node1",)
    assert [(r.node, r.before) for r in scores.rows] == [("node1", None)]
    assert scores.rows[0].after > 0


def test_a_running_pod_that_could_not_be_placed_again_is_reported():
    # The pod is pinned to node2 by its node selector; a NoSchedule taint there leaves it
    # running (NoSchedule does not evict) but nowhere to go if it were recreated.
    pinned = pod("pinned", node_name="node2", node_selector={"kubernetes.io/hostname": "node2"})
    before = cluster([node("node1", labels={"kubernetes.io/hostname": "node1"}), node("node2", labels={"kubernetes.io/hostname": "node2"})], [pinned])
    after = with_node(before, node("node2", labels={"kubernetes.io/hostname": "node2"}, taints=["k=v:NoSchedule"]))
    preview = whatif.preview(before, after, default_policy())
    assert preview.evicted_now == []
    [stranded] = preview.unplaceable
    assert stranded.pod == "default/pinned" and stranded.before == "node2" and not stranded.already
    assert stranded.message == (
        "0/2 nodes are available: 1 node(s) didn't match node selector, 1 node(s) had taints that the pod didn't tolerate."
    )


def test_an_edit_that_changes_nothing_says_so():
    before = two_nodes(pod("web", node_name="node1", cpu="100m"))
    after = with_node(before, node("node2", labels={"team": "a"}))
    preview = whatif.preview(before, after, default_policy())
    assert preview.nothing_happens


def test_a_pod_losing_its_toleration_is_evicted():
    tolerant = pod("p", node_name="node2", tolerations=[tolerate()])
    before = two_nodes(tolerant, taints=[NO_EXECUTE])
    after = whatif.copy_state(before)
    after.pods = [pod("p", node_name="node2")]
    preview = whatif.preview(before, after, default_policy())
    assert preview.changed_pods == ["default/p"]
    assert [e.pod for e in preview.evicted_now] == ["default/p"]


def test_a_preview_never_changes_the_states_it_is_given():
    before = cluster([node("node1")], [pod("waiting", cpu="100m")])
    after = with_node(before, node("node1", labels={"a": "b"}))
    whatif.preview(before, after, default_policy())
    assert before.pods[0].node_name == "" and after.pods[0].node_name == ""


# --- the node lifecycle controller's taints --------------------------------------------------------


# --- the document edits ----------------------------------------------------------------------------


def test_toleration_edits_go_to_the_pod_template_of_a_controller():
    deployment = {"kind": "Deployment", "metadata": {"name": "d", "namespace": "ns"},
                  "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c"}]}}}}
    out = whatif.add_toleration(deployment, {"key": "k", "operator": "Exists", "effect": "NoExecute"})
    assert out["spec"]["template"]["spec"]["tolerations"] == [{"key": "k", "operator": "Exists", "effect": "NoExecute"}]
    assert "tolerations" not in deployment["spec"]["template"]["spec"]  # the input is untouched
