"""MatchNodeSelector: `spec.nodeSelector` and required node affinity (Kubernetes 1.11).

The selectors are built and matched by the one matcher, engine.api.selectors
(`labels.NewRequirement` validation: an invalid key or value is an error, not a mismatch;
`metav1.LabelSelectorAsSelector`: nil selects nothing, empty selects everything;
`NodeSelectorRequirementsAsSelector`: an empty list selects nothing; matchFields: only
`In`/`NotIn` with one value). Here: `v1helper.MatchNodeSelectorTerms` (terms ORed; inside a
term expressions and fields ANDed; a term whose selector cannot be built is skipped), and
the wrappers the other modules call with the engine's objects.

Upstream: pkg/scheduler/algorithm/predicates/predicates.go (`PodMatchNodeSelector`,
`podMatchesNodeSelectorAndAffinityTerms`, `nodeMatchesNodeSelectorTerms`),
pkg/apis/core/v1/helper/helpers.go.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.api import selectors
from scheduling.engine.api.objects import LabelSelector, NodeSelectorTerm, Pod, Requirement
from scheduling.engine.api.selectors import EVERYTHING, NOTHING, Selector, SelectorError, selector_from_set
from scheduling.engine.api.validation.field import is_qualified_name as qualified_name_errors

__all__ = ["EVERYTHING", "NOTHING", "Selector", "SelectorError", "selector_from_set"]

NAME = "MatchNodeSelector"
ERR_NODE_SELECTOR_NOT_MATCH = "node(s) didn't match node selector"
REASONS = (ERR_NODE_SELECTOR_NOT_MATCH,)


def is_qualified_name(value: str) -> bool:
    """validation.IsQualifiedName: `[prefix/]name`, prefix a DNS-1123 subdomain."""
    return not qualified_name_errors(value)


def _expressions(reqs: Iterable[Requirement]) -> tuple[selectors.Expression, ...]:
    return tuple((r.key, r.operator, r.values) for r in reqs)


def node_selector_requirements_as_selector(reqs: Iterable[Requirement]) -> Selector:
    """v1helper.NodeSelectorRequirementsAsSelector; raises SelectorError."""
    return selectors.node_selector_requirements_as_selector(_expressions(reqs))


def label_selector_as_selector(selector: LabelSelector | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None selects nothing, an empty selector everything;
    raises SelectorError for what apimachinery refuses."""
    if selector is None:
        return NOTHING
    return selectors.label_selector_as_selector(selector.match_labels, _expressions(selector.match_expressions))


def node_fields(node) -> dict[str, str]:
    """algorithm.NodeFieldSelectorKeys: only `metadata.name`."""
    return {"metadata.name": node.name}


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
            try:
                selector = node_selector_requirements_as_selector(term.match_expressions)
            except SelectorError:
                continue
            if not selector.matches(node_labels):
                continue
        if term.match_fields and not selectors.node_field_selector_matches(_expressions(term.match_fields), fields):
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
# scheduler's cache (engine.scheduler.cache) computes it once per run for each such pair.
pod_match_node_selector.static_key = _node_selector_key
