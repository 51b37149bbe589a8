"""GeneralPredicates: resources, then hostname, host ports and node selector, all reasons kept."""

import pytest

from scheduling.engine.scheduler.predicates.general import general_predicates
from tests.engine.builders import cluster, evaluate, node, pod


def incoming(cpu, host_ports=(), **kw):
    """A pod with one container requesting `cpu` and binding `host_ports`."""
    c = {"name": "c", "resources": {"requests": {"cpu": cpu}}, "ports": [{"containerPort": 1, "hostPort": hp} for hp in host_ports]}
    return pod("p", containers=[c], **kw)


EXISTING = [pod("a", containers=[{"name": "c", "ports": [{"containerPort": 1, "hostPort": 80}]}], node_name="n1")]

CASES = [
    pytest.param(incoming("1"), (), id="a pod that passes every sub-check fits"),
    pytest.param(
        incoming("8", host_ports=(80,), node_selector={"disk": "ssd"}),
        ("Insufficient cpu", "node(s) didn't have free ports for the requested pod ports", "node(s) didn't match node selector"),
        id="every failing sub-check reports its reason, resources first",
    ),
    pytest.param(
        incoming("8", node_name="n2"),
        ("Insufficient cpu", "node(s) didn't match the requested hostname"),
        id="hostname comes after resources",
    ),
]


@pytest.mark.parametrize("the_pod, reasons", CASES)
def test_general_predicates(the_pod, reasons):
    assert evaluate(general_predicates, the_pod, cluster([node("n1", cpu="4")], EXISTING)) == {"n1": reasons}
