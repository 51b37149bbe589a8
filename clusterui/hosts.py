"""Which names and addresses the server answers to, from the address it listens on.

`manage.py serve --host H` (`make run HOST=H`) calls `serve_on(H, port)` before it builds
the ASGI application (Channels' websocket origin check reads ALLOWED_HOSTS when it is
built). Listening on a wildcard (`0.0.0.0`, `::`) serves the room: the machine's own
addresses are added to ALLOWED_HOSTS and, with the port, to CSRF_TRUSTED_ORIGINS, and the
first of them becomes JOIN_HOST, the address the training session page puts in its join
link and QR code (what a phone in the room can reach; `localhost` is the phone itself).
Listening on one address adds that address. Nothing is sent anywhere to find the addresses:
they are read from the machine's interfaces. `CLUSTERUI_ADDRESSES` (comma-separated) names
them instead, e.g. when a machine has several networks and the room is on one of them.
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import socket
import struct

from django.conf import settings

WILDCARDS = ("0.0.0.0", "::", "[::]", "")
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"]
ADDRESSES_ENV = "CLUSTERUI_ADDRESSES"

_SIOCGIFADDR = 0x8915  # Linux: the IPv4 address of an interface


def _interface_addresses() -> list[str]:
    """The IPv4 address of each network interface (Linux ioctl), else what the host name
    resolves to. No packet leaves the machine."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:
                packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # no IPv4 address on this interface
            found.append(socket.inet_ntoa(packed[20:24]))
    if not found:
        try:
            found = [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
        except OSError:
            found = []
    return found


def machine_addresses(environ=os.environ) -> list[str]:
    """The addresses other machines reach this one at, best first: CLUSTERUI_ADDRESSES if
    set, else the interfaces' IPv4 addresses that are not loopback nor link-local, private
    ones (a LAN) before the others."""
    named = [a.strip() for a in environ.get(ADDRESSES_ENV, "").split(",") if a.strip()]
    if named:
        return named
    addresses = []
    for text in _interface_addresses():
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified or text in addresses:
            continue
        addresses.append(text)
    return sorted(addresses, key=lambda a: not ipaddress.ip_address(a).is_private)


def url_host(address: str) -> str:
    """An address as it stands in a URL or a Host header: IPv6 in brackets."""
    try:
        return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
    except ValueError:
        return address  # a name


def serving(host: str, port: int, environ=os.environ) -> dict:
    """What listening on `host`:`port` adds: {"hosts": [...], "origins": [...], "join_host": str|None}."""
    if host in WILDCARDS:
        addresses = machine_addresses(environ)
    elif host in ("127.0.0.1", "localhost", "::1", "[::1]"):
        addresses = []
    else:
        addresses = [host.strip("[]")]
    hosts = [url_host(a) for a in addresses]
    origins = [f"{scheme}://{h}:{port}" for h in hosts for scheme in ("http", "https")]
    return {"hosts": hosts, "origins": origins, "join_host": hosts[0] if hosts else None}


def serve_on(host: str, port: int, environ=os.environ) -> dict:
    """Make the settings follow the listening address (see the module docstring); returns
    what `serving` found. Names already allowed stay allowed."""
    found = serving(host, port, environ)
    settings.ALLOWED_HOSTS = _union(settings.ALLOWED_HOSTS, found["hosts"])
    settings.CSRF_TRUSTED_ORIGINS = _union(settings.CSRF_TRUSTED_ORIGINS, found["origins"])
    settings.JOIN_HOST = found["join_host"]
    return found


def _union(first, more) -> list[str]:
    out = list(first)
    out.extend(item for item in more if item not in out)
    return out
