"""checkServiceAffinity (serviceAffinity argument): pods of a service follow the first one's node labels."""

import pytest

from scheduling.engine.scheduler.predicates.service_affinity import new_service_affinity_predicate
from tests.engine.builders import cluster, cycle, evaluate, node, pod, service

VIOLATED = ("node(s) didn't match service affinity",)
NODES = [
    node("east-1", labels={"region": "east", "zone": "e1"}),
    node("east-2", labels={"region": "east", "zone": "e2"}),
    node("west-1", labels={"region": "west", "zone": "w1"}),
    node("bare"),
]
WEB = service("web", {"app": "web"})


def expected(*fitting):
    return {n.name: (() if n.name in fitting else VIOLATED) for n in NODES}


CASES = [
    pytest.param(["region"], [], [pod("web-0", labels={"app": "web"}, node_name="east-1")], pod("web-1", labels={"app": "web"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="without a service selecting the pod every node fits"),
    pytest.param(["region"], [WEB], [], pod("web-0", labels={"app": "web"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="the first pod of the service goes anywhere"),
    pytest.param(["region"], [WEB], [pod("web-0", labels={"app": "web"}, node_name="east-1")], pod("web-1", labels={"app": "web"}),
                 expected("east-1", "east-2"), id="later pods of the service go to nodes with the first pod's region"),
    pytest.param(["region"], [WEB], [pod("web-0", labels={"app": "web"}, node_name="east-1")],
                 pod("web-1", labels={"app": "web"}, node_selector={"region": "west"}),
                 expected("west-1"), id="a label pinned by the pod's nodeSelector wins"),
    pytest.param(["region", "zone"], [WEB], [pod("web-0", labels={"app": "web"}, node_name="east-2")],
                 pod("web-1", labels={"app": "web"}, node_selector={"region": "east"}),
                 expected("east-2"), id="labels not pinned are copied from the first pod's node"),
    pytest.param(["region"], [WEB], [pod("web-0", labels={"app": "web", "version": "1"}, node_name="east-1")],
                 pod("web-1", labels={"app": "web", "version": "2"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="the existing pod must carry all of the incoming pod's labels, not the service selector"),
    pytest.param(["region"], [WEB], [pod("web-0", namespace="other", labels={"app": "web"}, node_name="east-1")],
                 pod("web-1", labels={"app": "web"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="pods of other namespaces do not count"),
    pytest.param(["region"], [WEB], [pod("web-0", labels={"app": "web"}, node_name="bare")], pod("web-1", labels={"app": "web"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="a label the first pod's node lacks is not constrained"),
    pytest.param(["region"], [service("all", {})], [pod("x", labels={"app": "web"}, node_name="west-1")], pod("web-1", labels={"app": "web"}),
                 expected("west-1"), id="a service with an empty selector selects every pod"),
    pytest.param(["region"], [service("none", None)], [pod("x", labels={"app": "web"}, node_name="west-1")], pod("web-1", labels={"app": "web"}),
                 expected("east-1", "east-2", "west-1", "bare"), id="a service without selector selects nothing"),
]


@pytest.mark.parametrize("labels, services, existing, incoming, result", CASES)
def test_check_service_affinity(labels, services, existing, incoming, result):
    state = cluster(NODES, existing, services=services)
    assert evaluate(new_service_affinity_predicate(labels), incoming, state) == result


def test_a_pod_removed_from_the_checked_node_info_is_skipped():
    """NodeInfo.FilterOutPods: with web-0 removed from east-1 (preemption), web-1 (on west-1) is the first pod."""
    web0 = pod("web-0", labels={"app": "web"}, node_name="east-1")
    web1 = pod("web-1", labels={"app": "web"}, node_name="west-1")
    incoming = pod("web-2", labels={"app": "web"})
    predicate = new_service_affinity_predicate(["region"])
    ctx, infos = cycle(incoming, cluster(NODES, [web0, web1], services=[WEB]))
    assert predicate(incoming, ctx, infos[0]) == ()
    east_without_web0 = infos[0].clone()
    east_without_web0.remove_pod(web0)
    assert predicate(incoming, ctx, east_without_web0) == VIOLATED
