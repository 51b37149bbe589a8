"""PodFitsResources: exact reasons, in the order pods, cpu, memory, ephemeral-storage, scalars."""

import pytest

from scheduling.engine.api.objects import Node
from scheduling.engine.scheduler.predicates.resources import IGNORED_EXTENDED_RESOURCES, pod_fits_resources
from tests.engine.builders import cluster, cycle, evaluate, node, pod


def node_with(name="n1", extra=None, **allocatable):
    """A node whose allocatable is exactly `allocatable` plus the `extra` resource amounts."""
    amounts = {k: str(v) for k, v in {**allocatable, **(extra or {})}.items()}
    return Node.from_doc({"metadata": {"name": name}, "status": {"capacity": amounts, "allocatable": amounts}})


def container(cpu=None, memory=None, **extra):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra)
    return {"name": "c", "resources": {"requests": requests}}


CASES = [
    pytest.param(node("n1", cpu="4"), [], pod("p", cpu="1"), (), id="a pod asking less than allocatable fits"),
    pytest.param(node("n1", cpu="1"), [], pod("p", cpu="2"), ("Insufficient cpu",), id="a pod asking more cpu than allocatable is rejected"),
    pytest.param(
        node("n1", cpu="1"), [pod("a", cpu="500m", node_name="n1")], pod("p", cpu="500m"), (),
        id="request plus used equal to allocatable fits (strict comparison)",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod("a", cpu="501m", node_name="n1")], pod("p", cpu="500m"), ("Insufficient cpu",),
        id="one millicore over allocatable is rejected",
    ),
    pytest.param(
        node("n1", cpu="1", memory="1Gi"), [], pod("p", cpu="2", memory="2Gi"), ("Insufficient cpu", "Insufficient memory"),
        id="every insufficient resource is reported, cpu before memory",
    ),
    pytest.param(
        node("n1", cpu="1", pods=1), [pod("a", node_name="n1")], pod("p", cpu="2"), ("Insufficient pods", "Insufficient cpu"),
        id="the pod count is checked first",
    ),
    pytest.param(
        node("n1", pods=None), [], pod("p"), ("Insufficient pods",),
        id="a node without pods allocatable admits nothing, even a pod requesting nothing",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod("a", cpu="2", node_name="n1")], pod("p"), (),
        id="a pod requesting nothing fits an overcommitted node",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod("a", cpu="2", node_name="n1")], pod("p", cpu="0", memory="0"), (),
        id="explicit zero cpu and memory requests are requesting nothing",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod(f"a{i}", node_name="n1") for i in range(3)], pod("p", cpu="1"), (),
        id="existing pods without requests use nothing (no non-zero defaults)",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod("a", cpu="2", node_name="n1")],
        pod("p", containers=[container(**{"example.com/foo": "0"})]), ("Insufficient cpu",),
        id="a scalar resource requested as 0 still makes the pod request something",
    ),
    pytest.param(
        node("n1", cpu="2500m"), [], pod("p", containers=[container("1"), container("1")], init_containers=[container("3")]),
        ("Insufficient cpu",),
        id="an init container larger than the sum of the containers sets the request (max rule)",
    ),
    pytest.param(
        node("n1", cpu="2500m"), [], pod("p", containers=[container("1"), container("1")], init_containers=[container("2")]),
        (),
        id="an init container smaller than the sum of the containers does not add to it",
    ),
    pytest.param(
        node("n1", cpu="1"), [pod("a", containers=[container("500m")], init_containers=[container("3")], node_name="n1")],
        pod("p", cpu="500m"), (),
        id="existing pods count only their regular containers",
    ),
    pytest.param(
        node_with(cpu=4, memory="1Gi", pods=10), [], pod("p", containers=[container(**{"ephemeral-storage": "1Gi"})]),
        ("Insufficient ephemeral-storage",),
        id="ephemeral storage the node lacks is insufficient",
    ),
    pytest.param(
        node_with(cpu=4, memory="1Gi", pods=10, extra={"example.com/gpu": 1}), [],
        pod("p", containers=[container("1", **{"example.com/gpu": "2", "example.com/fpga": "1"})]),
        ("Insufficient example.com/fpga", "Insufficient example.com/gpu"),
        id="extended resources are checked by name, a missing one has allocatable 0",
    ),
    pytest.param(
        node_with(cpu=4, memory="1Gi", pods=10), [], pod("p", containers=[container(**{"hugepages-2Mi": "4Mi"})]),
        ("Insufficient hugepages-2Mi",),
        id="hugepages are scalar resources",
    ),
    pytest.param(
        node_with(cpu=4, memory="1Gi", pods=10), [], pod("p", containers=[container("1", foo="5")]), (),
        id="a request name that is not a scalar resource is ignored",
    ),
    pytest.param(
        node_with(cpu=1, memory="1Gi", pods=10, extra={"example.com/gpu": 2}), [pod("a", containers=[container(**{"example.com/gpu": "1"})], node_name="n1")],
        pod("p", containers=[container(**{"example.com/gpu": "2"})]), ("Insufficient example.com/gpu",),
        id="scalar resources used by existing pods count",
    ),
    pytest.param(
        node_with(cpu=1, memory="1Gi", pods=10, extra={"example.com/gpu": 2}), [pod("a", containers=[container(**{"example.com/gpu": "1"})], node_name="n1")],
        pod("p", containers=[container(**{"example.com/gpu": "1"})]), (),
        id="a scalar resource fits when request plus used equals allocatable",
    ),
]


@pytest.mark.parametrize("the_node, existing, incoming, reasons", CASES)
def test_pod_fits_resources(the_node, existing, incoming, reasons):
    assert evaluate(pod_fits_resources, incoming, cluster([the_node], existing)) == {the_node.name: reasons}


def test_ignored_extended_resources_are_skipped():
    incoming = pod("p", containers=[container("1", **{"example.com/gpu": "1", "hugepages-2Mi": "2Mi"})])
    ctx, infos = cycle(incoming, cluster([node_with(cpu=4, memory="1Gi", pods=10)]))
    ctx.memo[IGNORED_EXTENDED_RESOURCES] = {"example.com/gpu", "hugepages-2Mi"}
    # Only extended resources can be ignored: hugepages are still checked.
    assert pod_fits_resources(incoming, ctx, infos[0]) == ("Insufficient hugepages-2Mi",)
