"""Release payloads: a version's pull spec and its manifests by runlevel and component.

The pull spec is deterministic (`quay.io/openshift-release-dev/ocp-release@sha256:<hex>`,
the hex a SHA-256 of the version's by-tag pull spec: a stand-in for the real digest, the
same in every run). Manifests come from scheduling.engine.openshift.data.runlevel_data, which has the 4.12,
4.13, 4.14, 4.16, 4.18, 4.20 and 4.22 payloads; a release uses the layout of the newest of those
not newer than its own minor (4.17 the 4.16 layout, 5.0 the 4.22 one), a release older than
4.12 the 4.12 layout.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from scheduling.engine.openshift.data.runlevel_data import RELEASES

from .versions import Version, is_version

REPOSITORY = "quay.io/openshift-release-dev/ocp-release"
CVO_COMPONENT = "cluster-version-operator"
MCO_OPERATOR = "machine-config"
_DIGEST = re.compile(r"@sha256:([0-9a-f]{64})$")


def pull_spec(version: str) -> str:
    digest = hashlib.sha256(f"{REPOSITORY}:{version}-x86_64".encode()).hexdigest()
    return f"{REPOSITORY}@sha256:{digest}"


def version_of_image(image: str, candidates) -> str | None:
    for v in candidates:
        if pull_spec(v) == image:
            return v
    return None


def layout_version(version: str) -> str:
    known = sorted(RELEASES, key=lambda v: Version(v + ".0"))
    if not is_version(version):
        return known[-1]
    line = Version(Version(version).minor_line + ".0")
    older = [v for v in known if Version(v + ".0") <= line]
    return older[-1] if older else known[0]


@dataclass(frozen=True)
class Component:
    runlevel: str
    name: str
    cluster_operators: tuple[str, ...]
    manifests: tuple[str, ...]  # lexicographic: the order the CVO applies them in


@dataclass(frozen=True)
class Runlevel:
    runlevel: str
    components: tuple[Component, ...]

    @property
    def cluster_operators(self) -> tuple[str, ...]:
        return tuple(co for c in self.components for co in c.cluster_operators)


@dataclass(frozen=True)
class Payload:
    version: str
    image: str
    runlevels: tuple[Runlevel, ...]

    @property
    def cluster_operators(self) -> tuple[str, ...]:
        return tuple(co for rl in self.runlevels for co in rl.cluster_operators)

    @property
    def manifest_count(self) -> int:
        return sum(len(c.manifests) for rl in self.runlevels for c in rl.components)

    def runlevel_of(self, operator: str) -> str | None:
        for rl in self.runlevels:
            if operator in rl.cluster_operators:
                return rl.runlevel
        return None


# ClusterOperators of TechPreviewNoUpgrade or optional platform pieces, not in a default cluster:
# the 4.12 and 4.13 data carry no feature-set flags, so they are named here; from 4.14 on the
# data leaves out the ClusterOperators whose manifest is TechPreviewNoUpgrade-only (cluster-api
# until 4.20, olm in 4.16), so cluster-api is in the 4.22 payload and olm from 4.18 on.
TECH_PREVIEW_OPERATORS = frozenset({"cluster-api", "platform-operators-aggregated"})
UNFLAGGED_LAYOUTS = frozenset({"4.12", "4.13"})


@lru_cache(maxsize=64)
def payload(version: str) -> Payload:
    by_rl: dict[str, list[Component]] = {}
    layout = layout_version(version)
    for runlevel, component, operators, manifests in RELEASES[layout]:
        ops = tuple(o for o in operators if layout not in UNFLAGGED_LAYOUTS or o not in TECH_PREVIEW_OPERATORS)
        # a few file names do not match the CVO's runlevel_component pattern: no component
        by_rl.setdefault(runlevel, []).append(Component(runlevel, component or "", ops, tuple(sorted(manifests))))
    runlevels = tuple(Runlevel(rl, tuple(sorted(cs, key=lambda c: c.name))) for rl, cs in sorted(by_rl.items()))
    return Payload(version, pull_spec(version), runlevels)
