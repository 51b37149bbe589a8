"""MatchNodeSelector: `spec.nodeSelector` and required node affinity (Kubernetes 1.11).

Also the label machinery the other modules reuse, built the way apimachinery builds it:
`labels.NewRequirement` validation (an invalid key or value is an error, not a mismatch),
`metav1.LabelSelectorAsSelector` (nil selects nothing, empty selects everything),
`v1helper.NodeSelectorRequirementsAsSelector` (an empty list selects nothing),
`NodeSelectorRequirementsAsFieldSelector` (only `In`/`NotIn` with one value) and
`v1helper.MatchNodeSelectorTerms` (terms ORed; inside a term expressions and fields ANDed;
a term whose selector cannot be built is skipped).

Upstream: pkg/scheduler/algorithm/predicates/predicates.go (`PodMatchNodeSelector`,
`podMatchesNodeSelectorAndAffinityTerms`, `nodeMatchesNodeSelectorTerms`),
pkg/apis/core/v1/helper/helpers.go, apimachinery pkg/labels/selector.go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

from scheduling.engine.api.objects import LabelSelector, NodeSelectorTerm, Pod, Requirement

NAME = "MatchNodeSelector"
ERR_NODE_SELECTOR_NOT_MATCH = "node(s) didn't match node selector"
REASONS = (ERR_NODE_SELECTOR_NOT_MATCH,)

# --- apimachinery validation ---------------------------------------------------------------

_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def is_qualified_name(value: str) -> bool:
    """validation.IsQualifiedName: `[prefix/]name`, prefix a DNS-1123 subdomain."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.fullmatch(name) is not None


def is_valid_label_value(value: str) -> bool:
    """validation.IsValidLabelValue: empty, or up to 63 characters of [-A-Za-z0-9_.] framed by alphanumerics."""
    return len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


def parse_go_int64(value: str) -> int | None:
    """strconv.ParseInt(value, 10, 64); None where Go returns an error."""
    if not _GO_INT.fullmatch(value):
        return None
    n = int(value)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


class SelectorError(ValueError):
    """A selector that apimachinery refuses to build (labels.NewRequirement & co)."""


# --- label selectors -----------------------------------------------------------------------

# Internal operators, as in apimachinery's `selection` package.
_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT, _EQUALS = "in", "notin", "exists", "!", "gt", "lt", "="


def _new_requirement(key: str, op: str, values: Iterable[str]) -> tuple[str, str, Any]:
    """labels.NewRequirement: validates and returns (key, op, operand)."""
    values = list(values)
    if not is_qualified_name(key):
        raise SelectorError(f"invalid label key {key!r}")
    if op in (_IN, _NOT_IN):
        if not values:
            raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
    elif op == _EQUALS:
        if len(values) != 1:
            raise SelectorError("exact-match compatibility requires one single value")
    elif op in (_EXISTS, _DOES_NOT_EXIST):
        if values:
            raise SelectorError("values set must be empty for exists and does not exist")
    elif op in (_GT, _LT):
        if len(values) != 1 or parse_go_int64(values[0]) is None:
            raise SelectorError("for 'Gt', 'Lt' operators, exactly one integer value is required")
    else:
        raise SelectorError(f"operator {op!r} is not recognized")
    for v in values:
        if not is_valid_label_value(v):
            raise SelectorError(f"invalid label value: {v!r}")
    if op in (_GT, _LT):
        return key, op, parse_go_int64(values[0])
    return key, op, frozenset(values)


def _requirement_matches(req: tuple[str, str, Any], labels: Mapping[str, str]) -> bool:
    """labels.Requirement.Matches."""
    key, op, operand = req
    if op in (_IN, _EQUALS):
        return key in labels and labels[key] in operand
    if op == _NOT_IN:
        return key not in labels or labels[key] not in operand
    if op == _EXISTS:
        return key in labels
    if op == _DOES_NOT_EXIST:
        return key not in labels
    # Gt / Lt
    if key not in labels:
        return False
    have = parse_go_int64(labels[key])
    if have is None:
        return False
    return have > operand if op == _GT else have < operand


@dataclass(frozen=True)
class Selector:
    """A built labels.Selector: `nothing` selects no object; no requirements selects every object."""

    requirements: tuple[tuple[str, str, Any], ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        return all(_requirement_matches(r, labels) for r in self.requirements)


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)

_NODE_OPS = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST, "Gt": _GT, "Lt": _LT}
_POD_OPS = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST}


@lru_cache(maxsize=4096)
def _node_requirements_selector(reqs: tuple[Requirement, ...]) -> Selector | str:
    if not reqs:
        return NOTHING
    try:
        built = []
        for r in reqs:
            if r.operator not in _NODE_OPS:
                raise SelectorError(f"{r.operator!r} is not a valid node selector operator")
            built.append(_new_requirement(r.key, _NODE_OPS[r.operator], r.values))
    except SelectorError as e:
        return str(e)
    return Selector(tuple(built))


def node_selector_requirements_as_selector(reqs: Iterable[Requirement]) -> Selector:
    """v1helper.NodeSelectorRequirementsAsSelector; raises SelectorError."""
    result = _node_requirements_selector(tuple(reqs))
    if isinstance(result, str):
        raise SelectorError(result)
    return result


@lru_cache(maxsize=4096)
def _label_selector(selector: LabelSelector | None) -> Selector | str:
    if selector is None:
        return NOTHING
    if selector.is_empty:
        return EVERYTHING
    try:
        built = [_new_requirement(k, _EQUALS, [v]) for k, v in selector.match_labels]
        for r in selector.match_expressions:
            if r.operator not in _POD_OPS:
                raise SelectorError(f"{r.operator!r} is not a valid pod selector operator")
            built.append(_new_requirement(r.key, _POD_OPS[r.operator], r.values))
    except SelectorError as e:
        return str(e)
    return Selector(tuple(built))


def label_selector_as_selector(selector: LabelSelector | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None selects nothing, an empty selector everything;
    raises SelectorError for what apimachinery refuses."""
    result = _label_selector(selector)
    if isinstance(result, str):
        raise SelectorError(result)
    return result


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """labels.SelectorFromSet (1.11): an empty map selects everything, and so does a map
    with an invalid key or value (the function gives up and returns the empty selector)."""
    if not labels:
        return EVERYTHING
    return _selector_from_items(tuple(sorted((k, str(v)) for k, v in labels.items())))


@lru_cache(maxsize=4096)
def _selector_from_items(items: tuple[tuple[str, str], ...]) -> Selector:
    try:
        return Selector(tuple(_new_requirement(k, _EQUALS, [v]) for k, v in items))
    except SelectorError:
        return EVERYTHING


# --- field selectors (matchFields) -------------------------------------------------------------


@lru_cache(maxsize=4096)
def _field_selector(reqs: tuple[Requirement, ...]) -> tuple[tuple[str, bool, str], ...] | None | str:
    if not reqs:
        return None  # fields.Nothing()
    built = []
    for r in reqs:
        if r.operator not in ("In", "NotIn"):
            return f"{r.operator!r} is not a valid node field selector operator"
        if len(r.values) != 1:
            return f"unexpected number of value ({len(r.values)}) for node field selector operator {r.operator!r}"
        built.append((r.key, r.operator == "In", r.values[0]))
    return tuple(built)


def node_fields(node) -> dict[str, str]:
    """algorithm.NodeFieldSelectorKeys: only `metadata.name`."""
    return {"metadata.name": node.name}


def _fields_match(reqs: tuple[Requirement, ...], fields: Mapping[str, str]) -> bool:
    built = _field_selector(reqs)
    if built is None or isinstance(built, str):
        return False
    # OneTermEqualSelector / OneTermNotEqualSelector: a missing field reads as "".
    return all((fields.get(key, "") == value) == equal for key, equal, value in built)


# --- node selector terms -------------------------------------------------------------------------


def _as_term(term: Any) -> NodeSelectorTerm:
    return term if isinstance(term, NodeSelectorTerm) else NodeSelectorTerm.from_doc(term)


def match_node_selector_terms(
    terms: Iterable[Any], node_labels: Mapping[str, str], fields: Mapping[str, str] | None
) -> bool:
    """v1helper.MatchNodeSelectorTerms. `terms` are NodeSelectorTerm objects or raw documents;
    `fields` None behaves like Go's nil fields.Set (every field reads as "")."""
    fields = fields or {}
    for raw in terms:
        term = _as_term(raw)
        # nil or empty term selects no objects
        if not term.match_expressions and not term.match_fields:
            continue
        if term.match_expressions:
            selector = _node_requirements_selector(term.match_expressions)
            if isinstance(selector, str) or not selector.matches(node_labels):
                continue
        if term.match_fields and not _fields_match(term.match_fields, fields):
            continue
        return True
    return False


def node_matches_node_selector_terms(terms: Iterable[Any], node, fields: Mapping[str, str] | None = None) -> bool:
    """nodeMatchesNodeSelectorTerms: the terms against the node's labels and its
    `metadata.name` field (pass `fields={}` for the PV node-affinity check, which has none)."""
    return match_node_selector_terms(terms, node.labels, node_fields(node) if fields is None else fields)


def pod_matches_node_selector_and_affinity(pod: Pod, node) -> bool:
    """podMatchesNodeSelectorAndAffinityTerms."""
    if pod.node_selector and not selector_from_set(pod.node_selector).matches(node.labels):
        return False
    affinity = pod.affinity
    if affinity is not None and affinity.node_affinity is not None:
        required = affinity.node_affinity.required
        # No required node affinity: every node.
        if required is None:
            return True
        return node_matches_node_selector_terms(required, node)
    return True


def pod_match_node_selector(pod: Pod, ctx, info) -> tuple[str, ...]:
    """MatchNodeSelector (PodMatchNodeSelector)."""
    if pod_matches_node_selector_and_affinity(pod, info.node):
        return ()
    return (ERR_NODE_SELECTOR_NOT_MATCH,)


def _node_selector_key(pod: Pod):
    affinity = pod.affinity
    required = affinity.node_affinity.required if affinity is not None and affinity.node_affinity is not None else None
    return tuple(sorted(pod.node_selector.items())), required


# Reads only the node, and of the pod its nodeSelector and required node affinity: the
# scheduler's cache (engine.cache) computes it once per run for each such pair.
pod_match_node_selector.static_key = _node_selector_key
