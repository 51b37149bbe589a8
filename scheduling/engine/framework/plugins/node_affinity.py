"""NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity).

Filter: the profile's `addedAffinity` (NodeAffinityArgs) required terms first
(`node(s) didn't match scheduler-enforced node affinity`), then the pod's `nodeSelector`
and required node affinity (`node(s) didn't match Pod's node affinity/selector`), both
UnschedulableAndUnresolvable. Terms are matched by component-helpers' nodeaffinity rules
(the same as v1helper.MatchNodeSelectorTerms: terms ORed, an empty or unparsable term
matches nothing, matchFields only `metadata.name`).
PreFilter: Skip when there is nothing to check; the node names a pod's required terms pin
through `metadata.name` In become the PreFilterResult (helper.PRE_FILTER_RESULT_KEY), and
terms that pin disjoint sets reject all nodes with `pod affinity terms conflict`.
Score: the sum of the weights of the matching preferred terms (the pod's and the added
ones), DefaultNormalizeScore.
"""

from __future__ import annotations

from functools import lru_cache

from scheduling.engine.framework.interface import (
    ArgsError,
    MAX_NODE_SCORE,
    OK,
    SKIPPED,
    Plugin,
    Status,
    ScoreError,
    unresolvable,
)
from scheduling.engine.framework.plugins.helper import default_normalize_score, set_pre_filter_result
from scheduling.engine.api import selectors
from scheduling.engine.api.objects import NodeAffinity as NodeAffinitySpec, NodeSelectorTerm, Pod
from scheduling.engine.api.selectors import SelectorError
from scheduling.engine.api.validation.field import is_qualified_name
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.predicates.node_selector import selector_from_set

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
OBJECT_NAME_FIELD = "metadata.name"


def _exprs(reqs):
    return tuple((r.key, r.operator, r.values) for r in reqs)


def _go_strings(values) -> str:
    """A []string as %#v prints it (field.Invalid's bad value)."""
    return "[]string{" + ", ".join(f'"{v}"' for v in values) + "}"


def _term_error(term: NodeSelectorTerm, path: str) -> list[str]:
    """nodeaffinity.newNodeSelectorTerm with a field path: the errors of each requirement."""
    errs = []
    for j, r in enumerate(term.match_expressions):
        p = f"{path}.matchExpressions[{j}]"
        op = selectors.NODE_SELECTOR_OPERATORS.get(r.operator)
        if op is None:
            errs.append(f'{p}.operator: Unsupported value: "{r.operator}"')
            continue
        key_errors = is_qualified_name(r.key)
        if key_errors:
            errs.append(f'{p}.key: Invalid value: "{r.key}": {"; ".join(key_errors)}')
            continue
        try:
            selectors.new_requirement(r.key, op, list(r.values))
        except SelectorError as e:
            errs.append(f"{p}.values: Invalid value: {_go_strings(r.values)}: {e}")
    for j, r in enumerate(term.match_fields):
        p = f"{path}.matchFields[{j}]"
        if len(r.values) != 1:
            errs.append(f"{p}.values: Invalid value: {_go_strings(r.values)}: must have one element")
        elif r.key != OBJECT_NAME_FIELD:
            errs.append(f'{p}.key: Invalid value: "{r.key}": not a valid field selector key')
    return errs


def validate_node_affinity_args(args) -> None:
    """ValidateNodeAffinityArgs: the added required terms and preferred terms must parse."""
    added = args.get("addedAffinity")
    if not added:
        return
    affinity = NodeAffinitySpec.from_doc(added)
    errs: list[str] = []
    base = "addedAffinity"
    if affinity.required is not None:
        for i, term in enumerate(affinity.required):
            errs += _term_error(term, f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]")
    for i, pref in enumerate(affinity.preferred):
        errs += _term_error(pref.preference, f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}]")
    if errs:
        raise ArgsError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")


@lru_cache(maxsize=4096)
def compile_terms(terms: tuple[NodeSelectorTerm, ...]) -> tuple:
    """The terms as (label selector or None, matchFields expressions) pairs, parsed once:
    an empty term, or one whose expressions do not parse, matches nothing and is dropped
    (v1helper.MatchNodeSelectorTerms / nodeaffinity.LazyErrorNodeSelector)."""
    out = []
    for term in terms:
        if not term.match_expressions and not term.match_fields:
            continue
        selector = None
        if term.match_expressions:
            try:
                selector = selectors.node_selector_requirements_as_selector(_exprs(term.match_expressions))
            except SelectorError:
                continue
        out.append((selector, _exprs(term.match_fields)))
    return tuple(out)


def match_compiled(compiled: tuple, node) -> bool:
    """Whether any compiled term matches the node (its labels and `metadata.name`)."""
    labels = node.labels
    for selector, fields in compiled:
        if selector is not None and not selector.matches(labels):
            continue
        if fields and not selectors.node_field_selector_matches(fields, {OBJECT_NAME_FIELD: node.name}):
            continue
        return True
    return False


class _Required:
    """nodeaffinity.RequiredNodeAffinity: the nodeSelector (labels.SelectorFromSet) and the
    required terms (LazyErrorNodeSelector), parsed once per pod."""

    __slots__ = ("selector", "terms")

    def __init__(self, pod: Pod):
        self.selector = selector_from_set(pod.node_selector) if pod.node_selector else None
        affinity = pod.affinity
        na = affinity.node_affinity if affinity is not None else None
        self.terms = compile_terms(na.required) if na is not None and na.required is not None else None

    def match(self, node) -> bool:
        if self.selector is not None and not self.selector.matches(node.labels):
            return False
        if self.terms is not None:
            return match_compiled(self.terms, node)
        return True


@lru_cache(maxsize=4096)
def _preferred_terms(preferred) -> tuple | None:
    """nodeaffinity.NewPreferredSchedulingTerms: terms with weight 0 or empty are dropped;
    raises SelectorError (Score then fails) for a term that does not parse. Each kept term
    as (weight, its compiled form)."""
    if preferred is None:
        return None
    out = []
    for p in preferred:
        term = p.preference
        if p.weight == 0 or (not term.match_expressions and not term.match_fields):
            continue
        if term.match_expressions:
            selectors.node_selector_requirements_as_selector(_exprs(term.match_expressions))
        out.append((p.weight, compile_terms((term,))))
    return tuple(out)


def _score_terms(terms, node) -> int:
    score = 0
    for weight, compiled in terms:
        if match_compiled(compiled, node):
            score += weight
    return score


class NodeAffinity(Plugin):
    name = NAME
    events = frozenset({"Node/Add", "Node/UpdateNodeLabel"})

    def __init__(self, args, handle):
        super().__init__(args, handle)
        validate_node_affinity_args(self.args)
        added = NodeAffinitySpec.from_doc(self.args.get("addedAffinity")) if self.args.get("addedAffinity") else None
        self.added_required = compile_terms(added.required) if added is not None and added.required is not None else None
        self.added_preferred = _preferred_terms(added.preferred) if added is not None and added.preferred else None

    # --- PreFilter / Filter ---------------------------------------------------------------

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        affinity = pod.affinity
        na = affinity.node_affinity if affinity is not None else None
        no_node_affinity = na is None or na.required is None
        if no_node_affinity and self.added_required is None and not pod.node_selector:
            return SKIPPED
        cs[PRE_FILTER_STATE_KEY] = _Required(pod)
        if no_node_affinity or not na.required:
            return OK
        node_names: set | None = None
        for term in na.required:
            term_names: set | None = None
            for r in term.match_fields:
                if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                    s = set(r.values)
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                # A term without a metadata.name requirement: every node may match.
                return OK
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return unresolvable(ERR_REASON_CONFLICT)
        if node_names:
            set_pre_filter_result(cs, NAME, node_names)
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        node = info.node
        if self.added_required is not None and not match_compiled(self.added_required, node):
            return unresolvable(ERR_REASON_ENFORCED)
        state = cs.get(PRE_FILTER_STATE_KEY)
        if state is None:
            state = _Required(pod)
        if not state.match(node):
            return unresolvable(ERR_REASON_POD)
        return OK

    # --- PreScore / Score -------------------------------------------------------------------

    @staticmethod
    def _pod_preferred(pod: Pod):
        affinity = pod.affinity
        na = affinity.node_affinity if affinity is not None else None
        if na is None or not na.preferred:
            return None
        return _preferred_terms(na.preferred)

    def pre_score(self, cs, pod: Pod, nodes) -> Status:
        try:
            preferred = self._pod_preferred(pod)
        except SelectorError as e:
            return Status("Error", (str(e),))
        if preferred is None and self.added_preferred is None:
            return SKIPPED
        cs[PRE_SCORE_STATE_KEY] = preferred
        return OK

    def score(self, cs, pod: Pod, info: NodeInfo) -> int:
        node = info.node
        count = 0
        if self.added_preferred:
            count += _score_terms(self.added_preferred, node)
        if PRE_SCORE_STATE_KEY in cs:
            preferred = cs[PRE_SCORE_STATE_KEY]
        else:
            try:
                preferred = self._pod_preferred(pod)
            except SelectorError as e:
                raise ScoreError(str(e)) from e
        if preferred:
            count += _score_terms(preferred, node)
        return count

    def normalize_score(self, cs, pod: Pod, scores: dict) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
