"""The update graph of the real channel data and the CVO's evaluation of conditional updates.

Edges (the data has none; see scheduling/engine/openshift/data/README.md): we implement the approximation the
data README describes — `a -> b` in channel C iff both are listed in C, b > a, and either
same minor with z_min(b.minor) <= a, or next minor with minor_min(b.minor) <= a <=
minor_max(b.minor) and a not in minor_block_list (the next minor in the data's order: 4.22 is
followed by 5.0); and a was first listed no later than b
(a release image cannot name a predecessor that did not exist yet). Unconditional
blocked edges whose `from` regex finds `a+amd64` drop the edge; conditional edges attach
their risk. Risks are evaluated as the CVO does (pkg/cvo/availableupdates.go): matching
rules in order, the first that evaluates decides; none evaluates -> EvaluationFailed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.openshift.data.graph_data import GRAPH

from . import promql
from .payload import pull_spec
from .versions import Version, is_version

ARCH = "amd64"
REASON_NOT_EXPOSED = "NotExposedToRisks"
REASON_EVALUATION_FAILED = "EvaluationFailed"
REASON_MULTIPLE = "MultipleReasons"
MESSAGE_NOT_EXPOSED = "The update is recommended, because none of the conditional update risks apply to this cluster."
_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")


class NoMatchingRule(Exception):
    pass


@dataclass(frozen=True)
class Risk:
    name: str
    url: str
    message: str
    matching_rules: tuple[Mapping[str, Any], ...]

    def to_doc(self) -> dict:
        return {"name": self.name, "url": self.url, "message": self.message,
                "matchingRules": [dict(r) for r in self.matching_rules]}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    risks: tuple[Risk, ...] = ()


def channels() -> list[str]:
    return sorted(GRAPH["channels"], key=_channel_key)


def _channel_key(name: str):
    kind, _, line = name.rpartition("-")
    order = {"candidate": 0, "eus": 1, "fast": 2, "stable": 3}
    try:
        return (Version(line + ".0"), order.get(kind, 9), name)
    except ValueError:
        return (Version("0.0.0"), 9, name)


def channel_versions(channel: str) -> list[str]:
    return list((GRAPH["channels"].get(channel) or {}).get("versions") or [])


def channels_of(version: str) -> list[str]:
    """The channels a release is listed in (status.desired.channels), sorted by name as
    Cincinnati reports them."""
    return sorted(n for n, c in GRAPH["channels"].items() if version in c["versions"])


def risk(name: str) -> Risk:
    r = GRAPH["risks"][name]
    return Risk(name, r["url"], r["message"], tuple(r["matchingRules"]))


def _first_listed(version: str) -> str:
    return GRAPH["first_listed"].get(version) or "9999-99-99"


def next_minor(line: str) -> str | None:
    """The minor that follows `line` in the data's order (4.y -> 4.(y+1), and 4.22 -> 5.0)."""
    order = GRAPH["minors"]
    return order[order.index(line) + 1] if line in order and order.index(line) + 1 < len(order) else None


def _edge_allowed(a: Version, b: Version) -> bool:
    bs = GRAPH["build_suggestions"].get(b.minor_line)
    if bs is None or not b > a:
        return False
    if b.minor_line == a.minor_line:
        if Version(bs["z_min"]) > a or a.text in bs.get("z_block_list", ()):
            return False
    elif b.minor_line == next_minor(a.minor_line):
        if not (Version(bs["minor_min"]) <= a <= Version(bs["minor_max"])) or a.text in bs.get("minor_block_list", ()):
            return False
    else:
        return False
    return _first_listed(a.text) <= _first_listed(b.text)


@lru_cache(maxsize=None)
def _blocks() -> tuple[dict, dict]:
    blocked: dict[str, list[re.Pattern]] = {}
    for e in GRAPH["blocked_edges"]:
        blocked.setdefault(e["to"], []).append(re.compile(e["from"]))
    conditional: dict[str, list[tuple[re.Pattern, str]]] = {}
    for e in GRAPH["conditional_edges"]:
        conditional.setdefault(e["to"], []).append((re.compile(e["from"]), e["risk"]))
    return blocked, conditional


@lru_cache(maxsize=4096)
def updates_from(version: str, channel: str) -> tuple[Edge, ...]:
    """The edges out of `version` in `channel` (the targets the update service offers)."""
    listed = channel_versions(channel)
    if not is_version(version) or version not in listed:
        return ()
    a = Version(version)
    blocked, conditional = _blocks()
    source = f"{version}+{ARCH}"
    out: list[Edge] = []
    for target in listed:
        if not is_version(target) or not _edge_allowed(a, Version(target)):
            continue
        if any(p.search(source) for p in blocked.get(target, ())):
            continue
        names: list[str] = []
        for pattern, name in conditional.get(target, ()):
            if pattern.search(source) and name not in names:
                names.append(name)
        out.append(Edge(version, target, tuple(risk(n) for n in names)))
    out.sort(key=lambda e: Version(e.target), reverse=True)
    return tuple(out)


def edges(channel: str) -> list[Edge]:
    """Every edge of a channel (the graph the Cluster Settings page draws)."""
    return [e for v in channel_versions(channel) for e in updates_from(v, channel)]


# --- risk evaluation -----------------------------------------------------------------------------------------


def match_rules(rules: Sequence[Mapping[str, Any]], data: Sequence[promql.Sample] | promql.Dataset) -> bool:
    """clusterconditions.Match: the first rule that evaluates decides; unknown or failing
    rules are skipped; if none evaluates, an error."""
    errors: list[str] = []
    for rule in rules:
        kind = rule.get("type")
        if kind == "Always":
            return True
        if kind == "PromQL":
            try:
                return promql.match(((rule.get("promql") or {}).get("promql")) or "", data)
            except promql.PromQLError as exc:
                errors.append(str(exc))
                continue
        errors.append(f"unrecognized condition type {kind!r}")
    if errors:
        raise NoMatchingRule("; ".join(errors))
    raise NoMatchingRule("no recognized cluster conditions")


def evaluate(risks: Iterable[Risk], data: Sequence[promql.Sample] | promql.Dataset) -> dict:
    """The Recommended condition of a conditional update (status, reason, message)."""
    status = ""
    reason = ""
    messages: list[str] = []
    for r in risks:
        try:
            applies = match_rules(r.matching_rules, data)
        except NoMatchingRule as exc:
            if status != "False":
                status = "Unknown"
            reason = REASON_EVALUATION_FAILED if reason in ("", REASON_EVALUATION_FAILED) else REASON_MULTIPLE
            messages.append(f"Could not evaluate exposure to update risk {r.name} ({exc})\n"
                            f"  {r.name} description: {r.message}\n  {r.name} URL: {r.url}")
            continue
        if applies:
            status = "False"
            name = r.name if _REASON.match(r.name) else "ExposedToRisks"
            reason = name if reason == "" else REASON_MULTIPLE
            messages.append(f"{r.message} {r.url}")
    if not status:
        return {"type": "Recommended", "status": "True", "reason": REASON_NOT_EXPOSED, "message": MESSAGE_NOT_EXPOSED}
    return {"type": "Recommended", "status": status, "reason": reason, "message": "\n\n".join(messages)}


def release_doc(version: str) -> dict:
    """A configv1.Release: version, image, channels (url: the errata are not in the data)."""
    return {"version": version, "image": pull_spec(version), "channels": channels_of(version)}


def available(version: str, channel: str, data: Sequence[promql.Sample] | promql.Dataset, at: Any = 0) -> tuple[list, list]:
    """(status.availableUpdates, status.conditionalUpdates) for a cluster at `version`.
    A conditional update whose risks do not apply is also an available update."""
    recommended: list[dict] = []
    conditional: list[dict] = []
    for edge in updates_from(version, channel):
        release = release_doc(edge.target)
        if not edge.risks:
            recommended.append(release)
            continue
        cond = evaluate(edge.risks, data)
        conditional.append({"release": release, "risks": [r.to_doc() for r in edge.risks],
                            "conditions": [{**cond, "lastTransitionTime": at}]})
        if cond["status"] == "True":
            recommended.append(release)
    return recommended, conditional
