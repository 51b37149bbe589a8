"""PodFitsHostPorts: (hostIP, protocol, hostPort) conflicts, 0.0.0.0 against every IP."""

import pytest

from scheduling.engine.scheduler.predicates.host_ports import pod_fits_host_ports
from tests.engine.builders import cluster, evaluate, node, pod

CONFLICT = ("node(s) didn't have free ports for the requested pod ports",)


def with_ports(name, *ports, node_name=""):
    """ports: (hostPort, protocol, hostIP) tuples."""
    docs = [{"containerPort": 8080, "hostPort": hp, "protocol": proto, "hostIP": ip} for hp, proto, ip in ports]
    return pod(name, containers=[{"name": "c", "ports": docs}], node_name=node_name)


CASES = [
    pytest.param([], with_ports("p", (80, "TCP", "")), (), id="a free node fits"),
    pytest.param([with_ports("a", (80, "TCP", ""), node_name="n1")], with_ports("p", (80, "TCP", "")), CONFLICT, id="the same port and protocol conflict"),
    pytest.param([with_ports("a", (80, "TCP", ""), node_name="n1")], with_ports("p", (81, "TCP", "")), (), id="different ports do not conflict"),
    pytest.param([with_ports("a", (80, "TCP", ""), node_name="n1")], with_ports("p", (80, "UDP", "")), (), id="different protocols do not conflict"),
    pytest.param([with_ports("a", (80, "", ""), node_name="n1")], with_ports("p", (80, "TCP", "")), CONFLICT, id="an empty protocol means TCP"),
    pytest.param(
        [with_ports("a", (80, "TCP", "127.0.0.1"), node_name="n1")], with_ports("p", (80, "TCP", "0.0.0.0")), CONFLICT,
        id="0.0.0.0 conflicts with a port bound on a specific IP",
    ),
    pytest.param(
        [with_ports("a", (80, "TCP", "0.0.0.0"), node_name="n1")], with_ports("p", (80, "TCP", "127.0.0.1")), CONFLICT,
        id="a specific IP conflicts with a port bound on 0.0.0.0",
    ),
    pytest.param(
        [with_ports("a", (80, "TCP", ""), node_name="n1")], with_ports("p", (80, "TCP", "10.0.0.1")), CONFLICT,
        id="an empty host IP means 0.0.0.0",
    ),
    pytest.param(
        [with_ports("a", (80, "TCP", "127.0.0.1"), node_name="n1")], with_ports("p", (80, "TCP", "127.0.0.2")), (),
        id="two different specific IPs do not conflict",
    ),
    pytest.param(
        [with_ports("a", (80, "TCP", "127.0.0.1"), node_name="n1")], with_ports("p", (80, "TCP", "127.0.0.1")), CONFLICT,
        id="the same specific IP conflicts",
    ),
    pytest.param([with_ports("a", (0, "TCP", ""), node_name="n1")], with_ports("p", (0, "TCP", "")), (), id="host port 0 never conflicts"),
    pytest.param([], with_ports("p", (80, "TCP", ""), (80, "TCP", "")), (), id="the ports of one pod do not conflict with each other"),
]


@pytest.mark.parametrize("existing, incoming, reasons", CASES)
def test_pod_fits_host_ports(existing, incoming, reasons):
    assert evaluate(pod_fits_host_ports, incoming, cluster([node("n1")], existing)) == {"n1": reasons}
