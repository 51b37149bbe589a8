import pytest

from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.priorities.normalize import (
    PriorityError,
    go_div,
    node_cached,
    normalize_reduce,
    pod_groups,
    pods_with_affinity,
)
from tests.engine.builders import node, pod


@pytest.mark.parametrize(
    "scores, reverse, expected",
    [
        pytest.param([0, 0, 0], False, [0, 0, 0], id="all zero counts stay zero"),
        pytest.param([0, 0, 0], True, [10, 10, 10], id="all zero counts reversed give every node ten"),
        # 10*1/3 = 3, 10*2/3 = 6, 10*3/3 = 10
        pytest.param([1, 2, 3], False, [3, 6, 10], id="counts scale to the maximum with integer division"),
        # 10 - 3, 10 - 6, 10 - 10
        pytest.param([1, 2, 3], True, [7, 4, 0], id="reversed counts subtract the truncated share from ten"),
        pytest.param([], False, [], id="no nodes"),
    ],
)
def test_normalize_reduce(scores, reverse, expected):
    assert normalize_reduce(scores, 10, reverse) == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        pytest.param(7, 2, 3, id="positive quotient truncates"),
        pytest.param(-7, 2, -3, id="negative quotient truncates toward zero like Go"),
        pytest.param(7, -2, -3, id="negative divisor truncates toward zero like Go"),
    ],
)
def test_go_div(a, b, expected):
    assert go_div(a, b) == expected


def test_per_node_data_is_rebuilt_when_a_pod_is_added():
    info = NodeInfo(node("n1"))
    info.add_pod(pod("a", labels={"app": "web"}, node_name="n1"))
    assert [(g[1], g[2], g[3]) for g in pod_groups(info)["default"]] == [({"app": "web"}, 1, 1)]
    info.add_pod(pod("b", labels={"app": "web"}, node_name="n1", deletion_timestamp=5.0))
    info.add_pod(pod("c", namespace="other", labels={"app": "web"}, node_name="n1"))
    # two pods with the same labels, one of them terminating; the other namespace apart
    assert [(g[2], g[3]) for g in pod_groups(info)["default"]] == [(2, 1)]
    assert [(g[2], g[3]) for g in pod_groups(info)["other"]] == [(1, 1)]
    assert pods_with_affinity(info) == []


def test_a_clone_does_not_share_the_cache():
    info = NodeInfo(node("n1"))
    calls = []
    node_cached(info, "k", lambda i: calls.append(1) or len(i.pods))
    node_cached(info, "k", lambda i: calls.append(1) or len(i.pods))
    assert calls == [1]
    other = info.clone()
    other.add_pod(pod("a", node_name="n1"))
    assert node_cached(other, "k", lambda i: len(i.pods)) == 1
    assert node_cached(info, "k", lambda i: len(i.pods)) == 0


def test_priority_error_is_an_exception():
    assert issubclass(PriorityError, Exception)
