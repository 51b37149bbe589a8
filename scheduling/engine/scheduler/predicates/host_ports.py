"""PodFitsHostPorts (also registered as PodFitsPorts), Kubernetes 1.11.

A wanted (hostIP, protocol, hostPort) conflicts with the node's used ports
(`schedulercache.HostPortInfo.CheckConflict`): an empty hostIP means 0.0.0.0 and an empty
protocol TCP; `hostPort <= 0` never conflicts; "If ip is 0.0.0.0 check all IP's (protocol,
port) pair"; "If ip isn't 0.0.0.0, only check IP and 0.0.0.0's (protocol, port) pair".
Ports of one pod never conflict with each other here, and init containers' ports don't count
(`schedutil.GetContainerPorts` reads `spec.containers`).
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod

NAME = "PodFitsHostPorts"
ALIASES = ("PodFitsPorts",)
ERR_POD_NOT_FITS_HOST_PORTS = "node(s) didn't have free ports for the requested pod ports"
REASONS = (ERR_POD_NOT_FITS_HOST_PORTS,)

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


def ports_conflict(used_ports, host_ip: str, protocol: str, port: int) -> bool:
    """HostPortInfo.CheckConflict over `used_ports`, a collection of (hostIP, protocol, hostPort)."""
    if port <= 0:
        return False
    ip = host_ip or DEFAULT_BIND_ALL_HOST_IP
    protocol = protocol or "TCP"
    for used_ip, used_protocol, used_port in used_ports:
        if used_port != port or (used_protocol or "TCP") != protocol:
            continue
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return True
        if (used_ip or DEFAULT_BIND_ALL_HOST_IP) in (DEFAULT_BIND_ALL_HOST_IP, ip):
            return True
    return False


def pod_fits_host_ports(pod: Pod, ctx, info) -> tuple[str, ...]:
    """PodFitsHostPorts."""
    wanted = pod.host_ports
    if not wanted or not info.used_ports:
        return ()
    for p in wanted:
        if ports_conflict(info.used_ports, p.host_ip, p.protocol, p.host_port):
            return (ERR_POD_NOT_FITS_HOST_PORTS,)
    return ()


def _host_ports_mask(pod: Pod, ctx, cache):
    """pod_fits_host_ports on every node: only a node with used ports can conflict."""
    if not pod.host_ports:
        return ALL
    mask = np.ones(cache.n, dtype=bool)
    for i in cache.nodes_with_ports:
        if pod_fits_host_ports(pod, ctx, cache.infos[i]):
            mask[i] = False
    return mask


pod_fits_host_ports.mask = _host_ports_mask
