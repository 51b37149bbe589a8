"""NodeResourcesFit and NodeResourcesBalancedAllocation, translated from upstream's
noderesources tests: TestEnoughRequests (fit_test.go; status codes as v1.35 sets them: a
request larger than the node's allocatable is UnschedulableAndUnresolvable),
TestLeastAllocatedScoringStrategy, TestRequestedToCapacityRatioScoringStrategy,
TestBrokenLinearFunction, TestResourceBinPackingSingleExtended and
TestNodeResourcesBalancedAllocation (v1.35: best-effort pods are skipped, fractions are
capped at 1)."""

import pytest

from scheduling.engine.framework.interface import ArgsError, CycleState, OK, SKIP, UNRESOLVABLE, UNSCHEDULABLE
from scheduling.engine.framework.plugins.helper import build_broken_linear_function
from scheduling.engine.framework.plugins.noderesources import BalancedAllocation, Fit
from tests.engine.framework.plugin_builders import containers, handle, info, node, pod, scores

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def res(cpu=None, mem=None, **scalar):
    r = {}
    if cpu is not None:
        r["cpu"] = f"{cpu}m"
    if mem is not None:
        r["memory"] = mem
    for k, v in scalar.items():
        r[{"a": EXT_A, "b": EXT_B, "kio_a": K8S_IO_A, "kio_b": K8S_IO_B, "huge": HUGE_A, "eph": "ephemeral-storage"}[k]] = v
    return r


def resource_pod(*usage, init=(), overhead=None, name="p"):
    spec = {"containers": containers(*usage)}
    if init:
        spec["initContainers"] = containers(*init)
    if overhead:
        spec["overhead"] = overhead
    return pod(name, **spec)


# makeAllocatableResources(10, 20, 32, 5, 20, 5)
FIT_NODE_ALLOCATABLE = {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20", HUGE_A: "5"}


def cpu_mem(code, *names):
    return (code, tuple(f"Insufficient {n}" for n in names))


ENOUGH_REQUESTS = [
    ("no resources requested always fits", resource_pod(), [res(10, 20)], None, {}),
    ("too many resources fails", resource_pod(res(1, 1)), [res(10, 20)], cpu_mem(UNSCHEDULABLE, "cpu", "memory"), {}),
    ("too many resources fails due to init container cpu", resource_pod(res(1, 1), init=[res(3, 1)]), [res(8, 19)],
     cpu_mem(UNSCHEDULABLE, "cpu"), {}),
    ("too many resources fails due to highest init container cpu", resource_pod(res(1, 1), init=[res(3, 1), res(2, 1)]),
     [res(8, 19)], cpu_mem(UNSCHEDULABLE, "cpu"), {}),
    ("too many resources fails due to init container memory", resource_pod(res(1, 1), init=[res(1, 3)]), [res(9, 19)],
     cpu_mem(UNSCHEDULABLE, "memory"), {}),
    ("too many resources fails due to highest init container memory", resource_pod(res(1, 1), init=[res(1, 3), res(1, 2)]),
     [res(9, 19)], cpu_mem(UNSCHEDULABLE, "memory"), {}),
    ("init container fits because it's the max, not sum, of containers and init containers",
     resource_pod(res(1, 1), init=[res(1, 1)]), [res(9, 19)], None, {}),
    ("multiple init containers fit because it's the max, not sum, of containers and init containers",
     resource_pod(res(1, 1), init=[res(1, 1), res(1, 1)]), [res(9, 19)], None, {}),
    ("both resources fit", resource_pod(res(1, 1)), [res(5, 5)], None, {}),
    ("one resource memory fits", resource_pod(res(2, 1)), [res(9, 5)], cpu_mem(UNSCHEDULABLE, "cpu"), {}),
    ("one resource cpu fits", resource_pod(res(1, 2)), [res(5, 19)], cpu_mem(UNSCHEDULABLE, "memory"), {}),
    ("equal edge case", resource_pod(res(5, 1)), [res(5, 19)], None, {}),
    ("equal edge case for init container", resource_pod(res(4, 1), init=[res(5, 1)]), [res(5, 19)], None, {}),
    ("extended resource fits", resource_pod(res(a=1)), [res()], None, {}),
    ("extended resource fits for init container", resource_pod(res(), init=[res(a=1)]), [res()], None, {}),
    ("extended resource capacity enforced", resource_pod(res(1, 1, a=10)), [res(0, 0, a=0)], cpu_mem(UNRESOLVABLE, EXT_A), {}),
    ("extended resource capacity enforced for init container", resource_pod(res(), init=[res(1, 1, a=10)]),
     [res(0, 0, a=0)], cpu_mem(UNRESOLVABLE, EXT_A), {}),
    ("extended resource allocatable enforced", resource_pod(res(1, 1, a=1)), [res(0, 0, a=5)], cpu_mem(UNSCHEDULABLE, EXT_A), {}),
    ("extended resource allocatable enforced for init container", resource_pod(res(), init=[res(1, 1, a=1)]),
     [res(0, 0, a=5)], cpu_mem(UNSCHEDULABLE, EXT_A), {}),
    ("extended resource allocatable enforced for multiple containers", resource_pod(res(1, 1, a=3), res(1, 1, a=3)),
     [res(0, 0, a=2)], cpu_mem(UNRESOLVABLE, EXT_A), {}),
    ("extended resource allocatable admits multiple init containers", resource_pod(res(), init=[res(1, 1, a=3), res(1, 1, a=3)]),
     [res(0, 0, a=2)], None, {}),
    ("extended resource allocatable enforced for multiple init containers",
     resource_pod(res(), init=[res(1, 1, a=6), res(1, 1, a=3)]), [res(0, 0, a=2)], cpu_mem(UNRESOLVABLE, EXT_A), {}),
    ("extended resource allocatable enforced for unknown resource", resource_pod(res(1, 1, b=1)), [res(0, 0)],
     cpu_mem(UNRESOLVABLE, EXT_B), {}),
    ("extended resource allocatable enforced for unknown resource for init container",
     resource_pod(res(), init=[res(1, 1, b=1)]), [res(0, 0)], cpu_mem(UNRESOLVABLE, EXT_B), {}),
    ("kubernetes.io resource capacity enforced", resource_pod(res(0, 0, kio_a=10)), [res(0, 0)], cpu_mem(UNRESOLVABLE, K8S_IO_A), {}),
    ("kubernetes.io resource capacity enforced for init container", resource_pod(res(), init=[res(0, 0, kio_b=10)]),
     [res(0, 0)], cpu_mem(UNRESOLVABLE, K8S_IO_B), {}),
    ("hugepages resource capacity enforced", resource_pod(res(0, 0, huge=10)), [res(0, 0, huge=0)], cpu_mem(UNRESOLVABLE, HUGE_A), {}),
    ("hugepages resource capacity enforced for init container", resource_pod(res(), init=[res(0, 0, huge=10)]),
     [res(0, 0, huge=0)], cpu_mem(UNRESOLVABLE, HUGE_A), {}),
    ("hugepages resource allocatable enforced for multiple containers", resource_pod(res(0, 0, huge=3), res(0, 0, huge=3)),
     [res(0, 0, huge=2)], cpu_mem(UNRESOLVABLE, HUGE_A), {}),
    ("skip checking ignored extended resource", resource_pod(res(1, 1, b=1)), [res(0, 0)], None,
     {"ignoredResources": [EXT_B]}),
    ("resources + pod overhead fits", resource_pod(res(1, 1), overhead={"cpu": "3m", "memory": "13"}), [res(5, 5)], None, {}),
    ("requests + overhead does not fit for memory", resource_pod(res(1, 1), overhead={"cpu": "1m", "memory": "15"}),
     [res(5, 5)], cpu_mem(UNSCHEDULABLE, "memory"), {}),
    ("skip checking ignored extended resource via resource groups", resource_pod(res(1, 1, b=1)), [res(0, 0)], None,
     {"ignoredResourceGroups": ["example.com"]}),
    ("skip checking extended resource request with quantity zero via resource groups",
     resource_pod(res(1, 1, b=0)), [res(0, 0)], None, {}),
]


@pytest.mark.parametrize("name,p,existing,want,args", ENOUGH_REQUESTS, ids=[c[0] for c in ENOUGH_REQUESTS])
def test_enough_requests(name, p, existing, want, args):
    n = node("node", allocatable=FIT_NODE_ALLOCATABLE)
    i = info(n, [resource_pod(r, name=f"e{k}") for k, r in enumerate(existing)])
    plugin = Fit(args, handle([i]))
    cs = CycleState()
    assert plugin.pre_filter(cs, p, [i]) == OK
    got = plugin.filter(cs, p, i)
    if want is None:
        assert got == OK
    else:
        assert (got.code, got.reasons) == want


def test_too_many_pods():
    """TestNotEnoughRequests: a node full of pods, any pod: `Too many pods`."""
    n = node("node", allocatable={"cpu": "10m", "memory": "20", "pods": "1"})
    i = info(n, [resource_pod(res(10, 20), name="e")])
    plugin = Fit({}, handle([i]))
    for p in (resource_pod(), resource_pod(res(1, 1))):
        got = plugin.filter(CycleState(), p, i)
        assert got.reasons[0] == "Too many pods" and got.code == UNSCHEDULABLE


def cap(cpu, mem, foo=None):
    out = {"cpu": str(cpu), "memory": str(mem)}
    if foo is not None:
        out["intel.com/foo"] = str(foo)
    return out


def req(cpu=None, mem=None, foo=None):
    r = {}
    if cpu is not None:
        r["cpu"] = str(cpu)
    if mem is not None:
        r["memory"] = str(mem)
    if foo is not None:
        r["intel.com/foo"] = str(foo)
    return r


def run_scores(plugin_cls, args, requested, nodes, existing, normalize=True):
    pods_by_node = {}
    for node_name, requests in existing:
        pods_by_node.setdefault(node_name, []).append(
            pod(f"e{len(pods_by_node.get(node_name, []))}", node_name=node_name, containers=containers(*requests)))
    infos = [info(node(n, allocatable=a), pods_by_node.get(n, [])) for n, a in nodes]
    plugin = plugin_cls(args, handle(infos))
    p = pod("p", containers=containers(*requested))
    return scores(plugin, p, infos)


EXT = "intel.com/foo"
TWO_CONTAINERS = [req(1000, 2000), req(2000, 3000)]
LEAST_ALLOCATED = [
    ("nothing scheduled, nothing requested", [], [("node1", cap(4000, 10000)), ("node2", cap(4000, 10000))], [],
     {"node1": 100, "node2": 100}, None),
    ("nothing scheduled, resources requested, differently sized nodes", TWO_CONTAINERS,
     [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))], [], {"node1": 37, "node2": 50}, None),
    ("no resources requested, pods scheduled", [], [("node1", cap(4000, 10000)), ("node2", cap(4000, 10000))],
     [("node1", []), ("node1", []), ("node2", []), ("node2", [])], {"node1": 100, "node2": 100}, None),
    ("no resources requested, pods scheduled with resources", [], [("node1", cap(10000, 20000)), ("node2", cap(10000, 20000))],
     [("node1", [req(3000, 0)]), ("node1", [req(3000, 0)]), ("node2", [req(3000, 0)]), ("node2", [req(3000, 5000)])],
     {"node1": 70, "node2": 57}, None),
    ("resources requested, pods scheduled with resources", TWO_CONTAINERS,
     [("node1", cap(10000, 20000)), ("node2", cap(10000, 20000))],
     [("node1", [req(3000, 0)]), ("node2", [req(3000, 5000)])], {"node1": 57, "node2": 45}, None),
    ("resources requested, pods scheduled with resources, differently sized nodes", TWO_CONTAINERS,
     [("node1", cap(10000, 20000)), ("node2", cap(10000, 50000))],
     [("node1", [req(3000, 0)]), ("node2", [req(3000, 5000)])], {"node1": 57, "node2": 60}, None),
    ("requested resources exceed node capacity", [req(3000, 0)], [("node1", cap(4000, 10000)), ("node2", cap(4000, 10000))],
     [("node1", [req(3000, 0)]), ("node2", [req(3000, 5000)])], {"node1": 50, "node2": 25}, None),
    ("zero node resources, pods scheduled with resources", [], [("node1", {}), ("node2", {})],
     [("node1", [req(3000, 0)]), ("node2", [req(3000, 5000)])], {"node1": 0, "node2": 0}, None),
    ("nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes", TWO_CONTAINERS,
     [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))], [], {"node1": 41, "node2": 50},
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
    ("bypass extended resource if the pod does not request", TWO_CONTAINERS,
     [("node1", cap(6000, 10000)), ("node2", cap(6000, 10000, foo=4))], [], {"node1": 50, "node2": 50},
     [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]),
    ("honor extended resource if the pod requests", [req(1000, 2000), req(2000, 3000, foo=2)],
     [("node1", cap(6000, 10000, foo=4)), ("node2", cap(6000, 10000, foo=10))], [],
     {"node1": 50, "node2": 60},
     [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]),
    ("if the node doesn't have a resource", [req(3000, 4000)],
     [("node1", cap(6000, 10000)), ("node2", cap(6000, 10000, foo=4))], [], {"node1": 55, "node2": 55},
     [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
]


@pytest.mark.parametrize("name,requested,nodes,existing,expected,resources", LEAST_ALLOCATED, ids=[c[0] for c in LEAST_ALLOCATED])
def test_least_allocated(name, requested, nodes, existing, expected, resources):
    strategy = {"type": "LeastAllocated"}
    if resources:
        strategy["resources"] = resources
    assert run_scores(Fit, {"scoringStrategy": strategy}, requested, nodes, existing) == expected


@pytest.mark.parametrize("name,resources,field", [
    ("resource with negative weight", [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
     "scoringStrategy.resources[0].weight"),
    ("resource weight larger than MaxNodeScore", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
     "scoringStrategy.resources[1].weight"),
])
def test_least_allocated_invalid_weight(name, resources, field):
    with pytest.raises(ArgsError) as e:
        Fit({"scoringStrategy": {"type": "LeastAllocated", "resources": resources}}, handle())
    assert str(e.value).startswith(f"{field}: Invalid value: ")
    assert "not in valid range (0, 100]" in str(e.value)


LEAST_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
RTCR = [
    ("nothing scheduled, nothing requested (default - least requested nodes have priority)", [],
     [("node1", cap(4000, 10000)), ("node2", cap(4000, 10000))], [("node1", []), ("node1", [])],
     {"node1": 100, "node2": 100}),
    ("nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
     TWO_CONTAINERS, [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))], [("node1", []), ("node1", [])],
     {"node1": 38, "node2": 50}),
    ("no resources requested, pods scheduled with resources (default - least requested nodes have priority)", [],
     [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))],
     [("node1", [req(3000, 5000)]), ("node2", [req(3000, 5000)])], {"node1": 38, "node2": 50}),
]


@pytest.mark.parametrize("name,requested,nodes,existing,expected", RTCR, ids=[c[0] for c in RTCR])
def test_requested_to_capacity_ratio(name, requested, nodes, existing, expected):
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": LEAST_SHAPE}}}
    assert run_scores(Fit, args, requested, nodes, existing) == expected


BROKEN_LINEAR = [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize("points,assertions", BROKEN_LINEAR, ids=[f"case_{i}" for i in range(len(BROKEN_LINEAR))])
def test_broken_linear_function(points, assertions):
    fn = build_broken_linear_function(points)
    assert [(p, fn(p)) for p, _ in assertions] == assertions


MB = 1024 * 1024
SINGLE_EXTENDED = [
    ("nothing scheduled, nothing requested", [], [], {"node1": 0, "node2": 0}),
    ("resources requested, pods scheduled with less resources", [req(foo=2)], [("node1", [])], {"node1": 2, "node2": 5}),
    ("resources requested, pods scheduled with resources, on node with existing pod running ", [req(foo=2)],
     [("node2", [req(foo=2)])], {"node1": 2, "node2": 10}),
    ("resources requested, pods scheduled with more resources", [req(foo=4)], [("node1", [])], {"node1": 5, "node2": 10}),
]


@pytest.mark.parametrize("name,requested,existing,expected", SINGLE_EXTENDED, ids=[c[0] for c in SINGLE_EXTENDED])
def test_resource_bin_packing_single_extended(name, requested, existing, expected):
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": [{"name": EXT, "weight": 1}],
                                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                                       {"utilization": 100, "score": 1}]}}}
    nodes = [("node1", {"cpu": "4", "memory": str(10000 * MB), EXT: "8"}),
             ("node2", {"cpu": "4", "memory": str(10000 * MB), EXT: "4"})]
    assert run_scores(Fit, args, requested, nodes, existing) == expected


def test_requested_to_capacity_ratio_shape_validation():
    bad = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
        {"utilization": 30, "score": 1}, {"utilization": 20, "score": 11}]}}}
    with pytest.raises(ArgsError) as e:
        Fit(bad, handle())
    assert str(e.value) == ("[scoringStrategy.shape[1].utilization: Invalid value: 20: utilization values must be sorted "
                            "in increasing order, scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]]")
    with pytest.raises(ArgsError) as e:
        Fit({"scoringStrategy": {"type": "Bogus"}}, handle())
    assert str(e.value) == ('scoringStrategy.type: Unsupported value: "Bogus": supported values: '
                            '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"')


CPU_ONLY = [req(1000, 0), req(2000, 0)]
CPU_AND_MEMORY = [req(1000, 2000), req(2000, 3000)]
BALANCED = [
    ("nothing scheduled, resources requested, differently sized machines", CPU_AND_MEMORY,
     [("machine1", cap(4000, 10000)), ("machine2", cap(6000, 10000))], [], {"machine1": 87, "machine2": 100}),
    ("resources requested, pods scheduled with resources", CPU_AND_MEMORY,
     [("machine1", cap(10000, 20000)), ("machine2", cap(10000, 20000))],
     [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)], {"machine1": 82, "machine2": 95}),
    ("resources requested, pods scheduled with resources, differently sized machines", CPU_AND_MEMORY,
     [("machine1", cap(10000, 20000)), ("machine2", cap(10000, 50000))],
     [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)], {"machine1": 82, "machine2": 80}),
    # v1.35 caps each fraction at 1: machine1 (1, 0) -> 50, machine2 (1, 0.5) -> 75.
    ("requested resources exceed node capacity", CPU_ONLY,
     [("machine1", cap(4000, 10000)), ("machine2", cap(4000, 10000))],
     [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)], {"machine1": 50, "machine2": 75}),
    ("zero node resources, pods scheduled with resources", CPU_ONLY, [("machine1", {}), ("machine2", {})],
     [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)], {"machine1": 100, "machine2": 100}),
]


@pytest.mark.parametrize("name,requested,nodes,existing,expected", BALANCED, ids=[c[0] for c in BALANCED])
def test_balanced_allocation(name, requested, nodes, existing, expected):
    assert run_scores(BalancedAllocation, {}, requested, nodes, existing) == expected


@pytest.mark.parametrize("name,existing", [
    ("nothing scheduled, nothing requested", []),
    ("no resources requested, pods scheduled with resources", [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
])
def test_balanced_allocation_skips_best_effort_pods(name, existing):
    infos = [info(node("machine1", allocatable=cap(10000, 20000))), info(node("machine2", allocatable=cap(10000, 20000)))]
    plugin = BalancedAllocation({}, handle(infos))
    best_effort = pod("p", containers=containers({}))
    assert plugin.pre_score(CycleState(), best_effort, infos).code == SKIP
    # Without PreScore the plugin scores such a pod 0 everywhere.
    assert [plugin.score(CycleState(), best_effort, i) for i in infos] == [0, 0]


def test_balanced_allocation_weights_must_be_one():
    with pytest.raises(ArgsError) as e:
        BalancedAllocation({"resources": [{"name": "cpu", "weight": 2}]}, handle())
    assert str(e.value) == "resources[0].weight: Invalid value: 2: must be 1"


def test_fit_counts_init_containers_and_overhead_of_pods_on_the_node():
    """NodeInfo.Requested of v1.35 sums each pod's effective request: an init container
    larger than the regular ones, and the overhead, are counted."""
    n = node("node", allocatable={"cpu": "10m", "memory": "100", "pods": "10"})
    on_node = resource_pod(res(1, 1), init=[res(6, 1)], overhead={"cpu": "2m"}, name="e")
    i = info(n, [on_node])
    plugin = Fit({}, handle([i]))
    got = plugin.filter(CycleState(), resource_pod(res(3, 1)), i)
    assert (got.code, got.reasons) == (UNSCHEDULABLE, ("Insufficient cpu",))
    assert plugin.filter(CycleState(), resource_pod(res(2, 1)), i) == OK


def test_events():
    assert Fit.events == {"AssignedPod/Delete", "Node/Add", "Node/UpdateNodeAllocatable", "Pod/UpdatePodScaleDown"}


MOST_ALLOCATED = [
    ("nothing scheduled, nothing requested", [], [("node1", cap(4000, 10000)), ("node2", cap(4000, 10000))], [],
     {"node1": 0, "node2": 0}, None),
    ("nothing scheduled, resources requested, differently sized nodes", TWO_CONTAINERS,
     [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))], [], {"node1": 62, "node2": 50}, None),
    ("no resources requested, pods scheduled with resources", [], [("node1", cap(10000, 20000)), ("node2", cap(10000, 20000))],
     [("node1", [req(3000, 0)]), ("node1", [req(3000, 0)]), ("node2", [req(3000, 0)]), ("node2", [req(3000, 5000)])],
     {"node1": 30, "node2": 42}, None),
    ("resources requested, pods scheduled with resources", TWO_CONTAINERS,
     [("node1", cap(10000, 20000)), ("node2", cap(10000, 20000))],
     [("node1", [req(3000, 0)]), ("node2", [req(3000, 5000)])], {"node1": 42, "node2": 55}, None),
    ("resources requested equal node capacity", [req(2000, 4000), req(3000, 5000)],
     [("node1", cap(5000, 10000)), ("node2", cap(10000, 9000))], [], {"node1": 95, "node2": 75}, None),
    ("nothing scheduled, resources requested, differently sized nodes (weighted)", TWO_CONTAINERS,
     [("node1", cap(4000, 10000)), ("node2", cap(6000, 10000))], [], {"node1": 58, "node2": 50},
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
    ("no resources requested, pods scheduled, nonzero request for resource", [{}],
     [("node1", {"cpu": "250m", "memory": "1000Mi"}), ("node2", {"cpu": "250m", "memory": "1000Mi"})],
     [("node1", [{}]), ("node1", [{}])], {"node1": 80, "node2": 30}, None),
    ("bypass extended resource if the pod does not request", TWO_CONTAINERS,
     [("node1", cap(6000, 10000)), ("node2", cap(6000, 10000, foo=4))], [], {"node1": 50, "node2": 50},
     [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]),
    ("honor extended resource if the pod request", [req(3000, 5000, foo=2)],
     [("node1", cap(6000, 10000, foo=4)), ("node2", cap(6000, 10000, foo=10))], [], {"node1": 50, "node2": 40},
     [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]),
    ("if the node doesn't have a resource", [req(3000, 4000)],
     [("node1", cap(6000, 10000)), ("node2", cap(6000, 10000, foo=4))], [], {"node1": 45, "node2": 45},
     [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
]


@pytest.mark.parametrize("name,requested,nodes,existing,expected,resources", MOST_ALLOCATED, ids=[c[0] for c in MOST_ALLOCATED])
def test_most_allocated(name, requested, nodes, existing, expected, resources):
    strategy = {"type": "MostAllocated"}
    if resources:
        strategy["resources"] = resources
    assert run_scores(Fit, {"scoringStrategy": strategy}, requested, nodes, existing) == expected


@pytest.mark.parametrize("name,args,message", [
    # validation_pluginargs_test.go, TestValidateFitArgs
    ("IgnoredResources: too long value", {"ignoredResources": ["a" * 64]},
     f'ignoredResources[0]: Invalid value: "{"a" * 64}": name part must be no more than 63 characters'),
    ("IgnoredResourceGroups: name is with slash", {"ignoredResourceGroups": ["example.com/aaa"]},
     "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't contain '/'"),
])
def test_fit_args_validation(name, args, message):
    with pytest.raises(ArgsError) as e:
        Fit(args, handle())
    assert str(e.value) == message
