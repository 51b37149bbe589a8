"""The NoExecute taint manager (engine.taint_manager): scheduler-semantics items 29-31 and the
documentation's tolerationSeconds and multiple-taints examples (OpenShift 4 and 3.11), with
exact simulated times."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine.controllers import taint_manager
from scheduling.engine.api.objects import Toleration
from scheduling.engine.simulate import simulate
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc, toleration

K1_NOEXECUTE = "key1=value1:NoExecute"


def run(store: Store, now: float) -> A.Result:
    result = taint_manager.reconcile(store, now)
    store.apply_all(result.actions)
    return result


def evictions(result: A.Result) -> list[tuple[str, float, int]]:
    return [(a.name, a.at, a.grace_seconds) for a in result.actions if isinstance(a, A.SetPodDeletion)]


def events(result: A.Result) -> list[tuple[str, str, str]]:
    return [(a.reason, a.message, a.source) for a in result.actions if isinstance(a, A.RecordEvent)]


# --- getMinTolerationTime ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seconds, expected",
    [
        pytest.param([], 0, id="no matching toleration gives 0 (immediate)"),
        pytest.param([None], -1, id="a toleration without tolerationSeconds tolerates forever"),
        pytest.param([3600], 3600, id="one toleration gives its seconds"),
        pytest.param([3600, 600, None], 600, id="the minimum over the tolerations that set seconds"),
        pytest.param([3600, 0], 0, id="a zero toleration means at once"),
        pytest.param([3600, -5], 0, id="a negative toleration means at once"),
    ],
)
def test_min_toleration_time(seconds, expected):
    tolerations = [Toleration(key="k", operator="Exists", effect="NoExecute", toleration_seconds=s) for s in seconds]
    assert taint_manager.min_toleration_time(tolerations) == expected


# --- one pass over a pod --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "taints, tolerations, evicted_at, timer",
    [
        pytest.param([K1_NOEXECUTE], [], 100, None, id="a pod without a matching toleration is evicted at once"),
        pytest.param([K1_NOEXECUTE], [toleration("key1", value="value1")], None, None,
                     id="a pod tolerating without tolerationSeconds stays bound forever"),
        pytest.param([K1_NOEXECUTE], [toleration("key1", value="value1", seconds=3600)], None, 3700,
                     id="a pod tolerating for 3600 s gets a timer 3600 s after the taint manager sees it"),
        pytest.param([K1_NOEXECUTE], [toleration("key1", seconds=0)], 100, None, id="tolerationSeconds 0 evicts at once"),
        pytest.param([K1_NOEXECUTE], [toleration("key1", seconds=-10)], 100, None, id="a negative tolerationSeconds evicts at once"),
        pytest.param(["key1=value1:NoSchedule", "key2:PreferNoSchedule"], [], None, None,
                     id="NoSchedule and PreferNoSchedule taints never evict"),
        pytest.param([K1_NOEXECUTE, "key2=v:NoExecute"], [toleration("key1", seconds=3600)], 100, None,
                     id="one untolerated NoExecute taint is enough to evict at once"),
        pytest.param([K1_NOEXECUTE, "key2=v:NoExecute"],
                     [toleration("key1", seconds=3600), toleration("key2", seconds=600)], None, 700,
                     id="several tolerated taints: the smallest tolerationSeconds wins"),
        pytest.param([K1_NOEXECUTE], [toleration("key1", seconds=3600), toleration("key1", seconds=60)], None, 3700,
                     id="only the first toleration matching a taint counts (GetMatchingTolerations)"),
        pytest.param([K1_NOEXECUTE, "key2=v:NoExecute"], [{"operator": "Exists"}], None, None,
                     id="operator Exists without a key tolerates every taint forever"),
    ],
)
def test_one_pass(taints, tolerations, evicted_at, timer):
    store = Store([node_doc("node1", taints=taints), pod_doc("web", "node1", tolerations)])
    result = run(store, 100)
    assert evictions(result) == ([("web", evicted_at, 30)] if evicted_at is not None else [])
    pod = store.get("Pod", "default", "web")
    assert taint_manager.eviction_time(store, "default", "web") == timer
    assert result.next_due == timer
    if evicted_at is not None:
        assert events(result) == [("TaintManagerEviction", "Marking for deletion Pod default/web", "taint-controller")]
        assert pod["metadata"]["deletionTimestamp"] == evicted_at + 30  # API server: request + grace period


def test_the_timer_fires_at_its_time_not_before():
    store = Store([node_doc("node1", taints=[K1_NOEXECUTE]), pod_doc("web", "node1", [toleration("key1", seconds=3600)])])
    assert run(store, 0).next_due == 3600
    assert evictions(run(store, 3599.9)) == []
    assert evictions(run(store, 3600)) == [("web", 3600, 30)]
    assert taint_manager.eviction_time(store, "default", "web") is None
    assert store.state_of("taint-manager") == {}


def test_removing_the_taint_before_expiry_cancels_the_eviction():
    store = Store([node_doc("node1", taints=[K1_NOEXECUTE]), pod_doc("web", "node1", [toleration("key1", seconds=3600)])])
    run(store, 0)
    store.apply(A.RemoveTaint("node1", "key1", "NoExecute"))
    result = run(store, 1800)
    assert events(result) == [("TaintManagerEviction", "Cancelling deletion of Pod default/web", "taint-controller")]
    assert result.next_due is None
    assert evictions(run(store, 3600)) == []


@pytest.mark.parametrize(
    "new_seconds",
    [
        pytest.param(7200, id="a later, longer toleration does not postpone the eviction"),
        pytest.param(60, id="a later, shorter toleration does not bring it forward either"),
    ],
)
def test_a_scheduled_eviction_keeps_its_time(new_seconds):
    store = Store([node_doc("node1", taints=[K1_NOEXECUTE]), pod_doc("web", "node1", [toleration("key1", seconds=600)])])
    run(store, 0)
    pod = store.get("Pod", "default", "web")
    pod["spec"]["tolerations"][0]["tolerationSeconds"] = new_seconds  # the only toleration field a pod update may change
    assert run(store, 100).actions == []
    assert evictions(run(store, 599)) == []
    assert evictions(run(store, 600)) == [("web", 600, 30)]


def test_a_new_untolerated_taint_cancels_the_timer_and_evicts_at_once():
    store = Store([node_doc("node1", taints=[K1_NOEXECUTE]), pod_doc("web", "node1", [toleration("key1", seconds=600)])])
    run(store, 0)
    store.apply(A.AddTaint("node1", {"key": "key2", "effect": "NoExecute"}))
    result = run(store, 10)
    assert events(result) == [
        ("TaintManagerEviction", "Cancelling deletion of Pod default/web", "taint-controller"),
        ("TaintManagerEviction", "Marking for deletion Pod default/web", "taint-controller"),
    ]
    assert evictions(result) == [("web", 10, 30)]


def test_terminating_and_unbound_pods_are_left_alone():
    store = Store([node_doc("node1", taints=[K1_NOEXECUTE]), pod_doc("pending"), pod_doc("going", "node1")])
    store.apply(A.SetPodDeletion("default", "going", 0, 30))
    assert run(store, 5).actions == []


def test_running_twice_on_the_same_documents_gives_nothing_new():
    store = Store([
        node_doc("node1", taints=[K1_NOEXECUTE, "key2=v:NoExecute"]),
        node_doc("node2"),
        pod_doc("a", "node1", [toleration("key1", seconds=60), toleration("key2", seconds=90)]),
        pod_doc("b", "node1"),
        pod_doc("c", "node2"),
    ])
    first = run(store, 0)
    assert first.actions
    assert taint_manager.reconcile(store, 0).actions == []


def test_preview_tells_when_each_pod_would_go():
    store = Store([node_doc("node1"), pod_doc("a", "node1", [toleration("key1", seconds=60)]), pod_doc("b", "node1"),
                   pod_doc("c", "node1", [toleration("key1")])])
    assert taint_manager.preview(store, "node1", [{"key": "key1", "value": "value1", "effect": "NoExecute"}], now=10) == {
        "default/a": 70, "default/b": 10, "default/c": None
    }


# --- the documentation's examples through simulate() -------------------------------------------------------------


def timeline(*steps: dict) -> dict:
    return {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"}, "steps": list(steps)}


def pod_events(result: dict, name: str) -> list[tuple[float, str]]:
    return [(e["time"], e["reason"]) for e in result["events"] if e["object"] == f"Pod/default/{name}"]


TOLERATES_3600 = [toleration("key1", value="value1", seconds=3600)]


def test_the_pod_stays_bound_3600_seconds_then_is_evicted():
    # OpenShift 3.11, toleration seconds: "the pod stays bound to the node for 3,600 seconds and then be evicted".
    docs = [node_doc("node1"), pod_doc("web", "node1", TOLERATES_3600),
            timeline({"at": 0, "run": "oc adm taint nodes node1 key1=value1:NoExecute"})]
    before = simulate(docs, until=3599)
    assert pod_events(before, "web") == []
    assert before["pods"][0]["phase"] == "Running"
    after = simulate(docs, until=3600)
    # taint at 0, processed at 0, timer 0 + 3600; the kubelet stops the container at once.
    assert pod_events(after, "web") == [(3600.0, "TaintManagerEviction"), (3600.0, "Killing")]
    assert after["pods"][0]["phase"] == "Terminating"
    # deletionTimestamp = 3600 + terminationGracePeriodSeconds 30: gone at 3630.
    assert simulate(docs, until=3629)["pods"][0]["phase"] == "Terminating"
    assert simulate(docs, until=3630)["pods"][0]["phase"] == "Deleted"


def test_the_taint_removed_before_expiry_means_the_pod_is_never_evicted():
    # OpenShift 4, toleration seconds: if the taint is removed before that time, the pod is not evicted.
    docs = [node_doc("node1"), pod_doc("web", "node1", TOLERATES_3600),
            timeline({"at": 0, "run": "oc adm taint nodes node1 key1=value1:NoExecute"},
                     {"at": 1800, "run": "oc adm taint nodes node1 key1-"})]
    result = simulate(docs, until=86400)
    assert pod_events(result, "web") == [(1800.0, "TaintManagerEviction")]
    assert [e["message"] for e in result["events"] if e["reason"] == "TaintManagerEviction"] == [
        "Cancelling deletion of Pod default/web"
    ]
    assert result["pods"][0]["phase"] == "Running"


def test_multiple_taints_the_running_pod_stays_and_the_new_one_waits():
    # Using multiple taints: three taints, the pod tolerates the two key1 ones.
    tolerations = [toleration("key1", "NoSchedule", value="value1"), toleration("key1", "NoExecute", value="value1")]
    docs = [node_doc("node1"), pod_doc("running", "node1", tolerations),
            timeline({"at": 0, "run": "oc adm taint nodes node1 key1=value1:NoSchedule"},
                     {"at": 0, "run": "oc adm taint nodes node1 key1=value1:NoExecute"},
                     {"at": 0, "run": "oc adm taint nodes node1 key2=value2:NoSchedule"},
                     {"at": 10, "apply": pod_doc("new", "", tolerations)})]
    result = simulate(docs, until=3600)
    running, new = result["pods"]
    assert (running["phase"], new["phase"]) == ("Running", "Pending")
    assert new["message"] == "0/1 nodes are available: 1 node(s) had taints that the pod didn't tolerate."
    assert pod_events(result, "running") == []


def test_the_default_300_seconds_after_the_node_stops_reporting():
    # The kubelet stops at t=0. Monitor passes run every 5 s: the first one strictly after
    # 0 + 40 s (grace period) is at 45 -> Ready Unknown, NodeNotReady. That pass observed Ready
    # True, so the node is queued for the unreachable:NoExecute taint by the next pass, at 50
    # (a token is available: tainted at 50). The taint manager sees it at 50; the
    # DefaultTolerationSeconds toleration (300 s) makes the eviction 50 + 300 = 350.
    stopped = node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "0"})
    result = simulate([stopped, node_doc("node2"), pod_doc("web", "node1")], until=400)
    assert [(e["time"], e["reason"]) for e in result["events"]] == [
        (45.0, "NodeNotReady"),
        (350.0, "TaintManagerEviction"),
    ]
    assert result["pods"][0]["phase"] == "Terminating"  # its node cannot stop it: it stays Terminating
    assert simulate([stopped, node_doc("node2"), pod_doc("web", "node1")], until=349)["events"] == [
        {"time": 45.0, "type": "Normal", "reason": "NodeNotReady", "object": "Node/node1",
         "message": "Node node1 status is now: NodeNotReady"}
    ]
