"""NodePorts, translated from upstream's node_ports_test.go (TestNodePorts). The sidecar
case ("TCP hostPort conflict from sidecar initContainer") is left out: the engine's
Container has no restartPolicy, so init containers' ports never count."""

import pytest

from scheduling.engine.framework.interface import CycleState, OK, SKIP, UNSCHEDULABLE
from scheduling.engine.framework.plugins.node_ports import ERR_REASON, NodePorts
from tests.engine.framework.plugin_builders import handle, info, node, pod


def ports_pod(name, *infos, init=False):
    ports = []
    for text in infos:
        protocol, ip, port = text.split("/")
        ports.append({"containerPort": int(port), "hostPort": int(port), "protocol": protocol, "hostIP": ip})
    key = "initContainers" if init else "containers"
    spec = {key: [{"name": "c", "ports": ports}]}
    if init:
        spec["containers"] = [{"name": "main"}]
    return pod(name, **spec)


CASES = [
    ("nothing running", ports_pod("m1"), [], "skip"),
    ("other port", ports_pod("m1", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/9090"], "fits"),
    ("same udp port", ports_pod("m1", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], "conflict"),
    ("same tcp port", ports_pod("m1", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], "conflict"),
    ("different host ip", ports_pod("m1", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.2/8080"], "fits"),
    ("different protocol", ports_pod("m1", "UDP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], "fits"),
    ("second udp port conflict", ports_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], "conflict"),
    ("first tcp port conflict", ports_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
     ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], "conflict"),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ports_pod("m1", "TCP/0.0.0.0/8001"), ["TCP/127.0.0.1/8001"], "conflict"),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ports_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
     ["TCP/127.0.0.1/8001"], "conflict"),
    ("second tcp port conflict to 0.0.0.0 hostIP", ports_pod("m1", "TCP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001"], "conflict"),
    ("second different protocol", ports_pod("m1", "UDP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001"], "fits"),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ports_pod("m1", "UDP/127.0.0.1/8001"),
     ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], "conflict"),
    ("non-sidecar initContainer using hostPort", ports_pod("m1", "TCP/0.0.0.0/8001", init=True), ["TCP/0.0.0.0/8001"], "skip"),
]


@pytest.mark.parametrize("name,p,existing,want", CASES, ids=[c[0] for c in CASES])
def test_node_ports(name, p, existing, want):
    i = info(node("n"), [ports_pod("e", *existing, ) if existing else ports_pod("e")])
    plugin = NodePorts({}, handle([i]))
    cs = CycleState()
    pre = plugin.pre_filter(cs, p, [i])
    if want == "skip":
        assert pre.code == SKIP
        return
    assert pre == OK
    got = plugin.filter(cs, p, i)
    if want == "fits":
        assert got == OK
    else:
        assert (got.code, got.reasons) == (UNSCHEDULABLE, (ERR_REASON,))
