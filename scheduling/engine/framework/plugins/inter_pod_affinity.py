"""InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity, Kubernetes v1.35).

* PreFilter: the incoming pod's required terms (a namespaceSelector with requirements is
  merged into the namespaces it selects; an empty one keeps every namespace), and three
  counts per (topologyKey, value): the existing pods' required anti-affinity terms that
  match the incoming pod (at their nodes' values), the existing pods matching ALL the
  incoming pod's affinity terms (for each term, at its key), the existing pods matching
  each of its anti-affinity terms. Skip when the first is empty and the pod has no
  required term.
* Filter, in this order:
  affinity: the node must carry every term's key, and each of its values must have
  matching pods; unless no pod matches anywhere and the pod matches its own terms (the
  first pod of a group) -> `node(s) didn't match pod affinity rules`
  (UnschedulableAndUnresolvable);
  anti-affinity: no term's value on the node may have matching pods -> `node(s) didn't
  match pod anti-affinity rules` (Unschedulable);
  existing pods' anti-affinity: no label of the node may be a counted pair -> `node(s)
  didn't satisfy existing pods anti-affinity rules` (Unschedulable).
* AddPod / RemovePod: the counts with a pod added or removed (preemption, nominated pods).
* PreScore / Score / NormalizeScore: per (key, value), the weights of the incoming pod's
  preferred terms matched by existing pods (anti-affinity negative), of the existing pods'
  preferred terms matched by the incoming pod, and `hardPodAffinityWeight` for the
  existing pods' required affinity terms it matches; a node scores the sum over its
  labels; normalized to `100 * (score - min) / (max - min)` (0 when all equal).

Args (InterPodAffinityArgs): `hardPodAffinityWeight` (default 1, 0..100) and
`ignorePreferredTermsOfExistingPods` (default false).

The existing pods' terms and the pods a term matches come from
engine.framework.plugins.pod_index (counts per distinct term and per label group), not
from a walk over every pod and term in each cycle.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

import numpy as np

from scheduling.engine.api.objects import Pod
from scheduling.engine.api.validation import field
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import ArgsError, CycleState, Plugin, Status
from scheduling.engine.framework.plugins.pod_index import (
    HARD_AFFINITY,
    PREFERRED_AFFINITY,
    AffinityTerm,
    index_for,
    pod_terms,
)
from scheduling.engine.scheduler.cluster import NodeInfo

NAME = "InterPodAffinity"
PREFILTER_KEY = "PreFilter" + NAME
PRESCORE_KEY = "PreScore" + NAME

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

_AFFINITY_RULES_NOT_MATCH = fw.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_AFFINITY_RULES_NOT_MATCH = fw.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = fw.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT, MAX_HARD_POD_AFFINITY_WEIGHT = 0, 100


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: an empty list matches nothing."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)


def _bump(counts: Counter, pair, value: int) -> None:
    n = counts.get(pair, 0) + value
    if n:
        counts[pair] = n
    else:
        counts.pop(pair, None)


class PreFilterState:
    """preFilterState: the three counts, the incoming pod's merged required terms, and its
    namespace's labels."""

    def __init__(self, pod: Pod, affinity_terms, anti_affinity_terms, namespace_labels):
        self.pod = pod
        self.affinity_terms: tuple[AffinityTerm, ...] = tuple(affinity_terms)
        self.anti_affinity_terms: tuple[AffinityTerm, ...] = tuple(anti_affinity_terms)
        self.namespace_labels = namespace_labels
        self.existing_anti_affinity_counts: Counter = Counter()
        self.affinity_counts: Counter = Counter()
        self.anti_affinity_counts: Counter = Counter()

    def clone(self) -> "PreFilterState":
        out = PreFilterState(self.pod, self.affinity_terms, self.anti_affinity_terms, self.namespace_labels)
        out.existing_anti_affinity_counts = Counter(self.existing_anti_affinity_counts)
        out.affinity_counts = Counter(self.affinity_counts)
        out.anti_affinity_counts = Counter(self.anti_affinity_counts)
        return out

    def update_with_pod(self, updated: Pod, node, multiplier: int) -> None:
        """updateWithPod."""
        labels = node.labels
        for t in pod_terms(updated).required_anti_affinity:
            if t.matches(self.pod, self.namespace_labels) and t.topology_key in labels:
                _bump(self.existing_anti_affinity_counts, (t.topology_key, labels[t.topology_key]), multiplier)
        if pod_matches_all_affinity_terms(self.affinity_terms, updated):
            for t in self.affinity_terms:
                if t.topology_key in labels:
                    _bump(self.affinity_counts, (t.topology_key, labels[t.topology_key]), multiplier)
        for t in self.anti_affinity_terms:
            if t.matches(updated, None) and t.topology_key in labels:
                _bump(self.anti_affinity_counts, (t.topology_key, labels[t.topology_key]), multiplier)


class PreScoreState:
    def __init__(self):
        self.topology_score: dict[str, dict[str, int]] = {}

    def clone(self) -> "PreScoreState":
        return self


def parse_args(args: Mapping[str, Any] | None) -> tuple[int, bool]:
    """InterPodAffinityArgs defaulted and validated: (hardPodAffinityWeight,
    ignorePreferredTermsOfExistingPods)."""
    args = dict(args or {})
    weight = args.get("hardPodAffinityWeight")
    weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT if weight is None else weight
    if not isinstance(weight, int) or isinstance(weight, bool) or not (
            MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT):
        raise ArgsError(str(field.invalid(
            "hardPodAffinityWeight", weight,
            f"not in valid range [{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]")))
    return weight, bool(args.get("ignorePreferredTermsOfExistingPods", False))


class InterPodAffinity(Plugin):
    name = NAME
    # EventsToRegister (v1.35, queueing hints on).
    events = frozenset({"AssignedPod/Add", "AssignedPod/UpdatePodLabel", "AssignedPod/Delete",
                        "Node/Add", "Node/UpdateNodeLabel"})

    def __init__(self, args: Mapping[str, Any] | None, handle: fw.Handle):
        super().__init__(args, handle)
        self.hard_pod_affinity_weight, self.ignore_preferred_terms_of_existing_pods = parse_args(args)

    # --- namespaces ---------------------------------------------------------------------------------

    def _all_namespace_labels(self) -> dict[str, Mapping[str, str]]:
        """The Namespaces the informer lists: those with labels known, and the cluster's others."""
        cached = getattr(self, "_ns_labels", None)
        if cached is not None:
            return cached
        out: dict[str, Mapping[str, str]] = {}
        state = self.handle.state
        for ns in getattr(state, "namespaces", None) or ():
            out[ns] = {}
        out.update(self.handle.namespace_labels or {})
        self._ns_labels = out
        return out

    def _namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """GetNamespaceLabelsSnapshot: the namespace's labels (none when unknown)."""
        return (self.handle.namespace_labels or {}).get(namespace) or {}

    # --- PreFilter / Filter ---------------------------------------------------------------------------

    def pre_filter(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        terms = pod_terms(pod)
        if terms.error:
            return fw.unresolvable(f"parsing pod: {terms.error}")
        index = index_for(self.handle, nodes)
        if not terms.required_affinity and not terms.required_anti_affinity and not index.anti:
            return fw.SKIPPED
        all_ns = self._all_namespace_labels()
        affinity = [t.merged(all_ns) for t in terms.required_affinity]
        anti = [t.merged(all_ns) for t in terms.required_anti_affinity]
        ns_labels = self._namespace_labels(pod.namespace)
        state = PreFilterState(pod, affinity, anti, ns_labels)
        # Existing pods' required anti-affinity terms matching the incoming pod.
        existing = state.existing_anti_affinity_counts
        for term, pairs in index.anti.items():
            if term.matches(pod, ns_labels):
                existing.update(pairs)
        if affinity or anti:
            by_name = index.by_name
            if affinity:
                # The existing pods matching all the terms: their groups are in every term's.
                groups = None
                for t in affinity:
                    matched = set(index.term_groups(t, all_ns))
                    groups = matched if groups is None else groups & matched
                counts = index.sum_counts(index.all, sorted(groups or ()))
                keys = [t.topology_key for t in affinity]
                for name, n in counts.items():
                    labels = by_name[name].node.labels
                    for key in keys:
                        if key in labels:
                            state.affinity_counts[(key, labels[key])] += n
            for t in anti:
                key = t.topology_key
                for name, n in index.term_counts(t, all_ns).items():
                    labels = by_name[name].node.labels
                    if key in labels:
                        state.anti_affinity_counts[(key, labels[key])] += n
        if not existing and not affinity and not anti:
            return fw.SKIPPED
        cs[PREFILTER_KEY] = state
        return fw.OK

    def add_pod(self, cs: CycleState, pod: Pod, pod_to_add: Pod, info: NodeInfo) -> Status:
        state: PreFilterState | None = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'error reading "{PREFILTER_KEY}" from cycleState: not found')
        state.update_with_pod(pod_to_add, info.node, 1)
        return fw.OK

    def remove_pod(self, cs: CycleState, pod: Pod, pod_to_remove: Pod, info: NodeInfo) -> Status:
        state: PreFilterState | None = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'error reading "{PREFILTER_KEY}" from cycleState: not found')
        state.update_with_pod(pod_to_remove, info.node, -1)
        return fw.OK

    @staticmethod
    def satisfy_pod_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
        pods_exist = True
        counts = state.affinity_counts
        for t in state.affinity_terms:
            value = labels.get(t.topology_key)
            if value is None:
                return False  # all topology labels must exist on the node
            if counts.get((t.topology_key, value), 0) <= 0:
                pods_exist = False
        if not pods_exist:
            # The first pod of a series with affinity to themselves.
            return not counts and pod_matches_all_affinity_terms(state.affinity_terms, state.pod)
        return True

    @staticmethod
    def satisfy_pod_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
        counts = state.anti_affinity_counts
        if counts:
            for t in state.anti_affinity_terms:
                value = labels.get(t.topology_key)
                if value is not None and counts.get((t.topology_key, value), 0) > 0:
                    return False
        return True

    @staticmethod
    def satisfy_existing_pods_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
        counts = state.existing_anti_affinity_counts
        if counts:
            for pair in labels.items():
                if counts.get(pair, 0) > 0:
                    return False
        return True

    def filter(self, cs: CycleState, pod: Pod, info: NodeInfo) -> Status:
        state: PreFilterState | None = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'error reading "{PREFILTER_KEY}" from cycleState: not found')
        labels = info.node.labels
        if state.affinity_terms and not self.satisfy_pod_affinity(state, labels):
            return _AFFINITY_RULES_NOT_MATCH
        if not self.satisfy_pod_anti_affinity(state, labels):
            return _ANTI_AFFINITY_RULES_NOT_MATCH
        if not self.satisfy_existing_pods_anti_affinity(state, labels):
            return _EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
        return fw.OK

    # --- PreScore / Score / NormalizeScore ---------------------------------------------------------------

    def pre_score(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        if not nodes:
            return fw.SKIPPED
        a = pod.affinity
        has_constraints = a is not None and (
            (a.pod_affinity is not None and bool(a.pod_affinity.preferred))
            or (a.pod_anti_affinity is not None and bool(a.pod_anti_affinity.preferred)))
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return fw.SKIPPED
        terms = pod_terms(pod)
        if terms.error:
            return fw.error(f"failed to parse pod: {terms.error}")
        all_nodes = list(self.handle.node_infos.values())
        index = index_for(self.handle, all_nodes)
        if not has_constraints and not index.scored:
            return fw.SKIPPED
        all_ns = self._all_namespace_labels()
        ns_labels = self._namespace_labels(pod.namespace)
        score: dict[str, dict[str, int]] = {}

        def add(key: str, value: str, amount: int) -> None:
            per_value = score.get(key)
            if per_value is None:
                per_value = score[key] = {}
            per_value[value] = per_value.get(value, 0) + amount

        by_name = index.by_name
        if has_constraints:
            # The incoming pod's preferred terms against every existing pod.
            for weighted, sign in ((terms.preferred_affinity, 1), (terms.preferred_anti_affinity, -1)):
                for term, weight in weighted:
                    merged = term.merged(all_ns)
                    key = merged.topology_key
                    for name, n in index.term_counts(merged, all_ns).items():
                        labels = by_name[name].node.labels
                        if key in labels:
                            add(key, labels[key], sign * weight * n)
        # The existing pods' terms the incoming pod matches.
        hard = self.hard_pod_affinity_weight
        for (term, kind, weight), pairs in index.scored.items():
            if kind == HARD_AFFINITY:
                if hard <= 0:
                    continue
                amount = hard
            elif kind == PREFERRED_AFFINITY:
                amount = weight
            else:
                amount = -weight
            if not term.matches(pod, ns_labels):
                continue
            for (key, value), n in pairs.items():
                add(key, value, amount * n)
        if not score:
            return fw.SKIPPED
        state = PreScoreState()
        state.topology_score = score
        cs[PRESCORE_KEY] = state
        return fw.OK

    def score(self, cs: CycleState, pod: Pod, info: NodeInfo) -> int:
        state: PreScoreState | None = cs.get(PRESCORE_KEY)
        if state is None:
            raise fw.ScoreError(f'error reading "{PRESCORE_KEY}" from cycleState: not found')
        labels = info.node.labels
        total = 0
        for key, per_value in state.topology_score.items():
            value = labels.get(key)
            if value is not None:
                total += per_value.get(value, 0)
        return total

    def normalize_score(self, cs: CycleState, pod: Pod, scores: dict[str, int]) -> None:
        state: PreScoreState | None = cs.get(PRESCORE_KEY)
        if state is None or not state.topology_score or not scores:
            return
        lo, hi = min(scores.values()), max(scores.values())
        diff = hi - lo
        for name, s in scores.items():
            scores[name] = int(fw.MAX_NODE_SCORE * ((s - lo) / diff)) if diff > 0 else 0


# --- the same, a node vector at a time (the framework's fast path reads these forms) ---------------------


def _pair_codes(counts: Mapping, key: str, values: Mapping[str, int]) -> np.ndarray:
    """The counts of the pairs of `key` by the label's value code, with a last 0 for code -1."""
    out = np.zeros(len(values) + 1, dtype=np.int64)
    for (k, value), n in counts.items():
        if k == key:
            code = values.get(value)
            if code is not None:
                out[code] = n
    return out


def _ipa_filter_mask(self: InterPodAffinity, cs: CycleState, pod: Pod, cache) -> np.ndarray | None:
    state: PreFilterState | None = cs.get(PREFILTER_KEY)
    if state is None:
        return None
    mask = np.ones(cache.n, dtype=bool)
    if state.affinity_terms:
        present = np.ones(cache.n, dtype=bool)
        exist = np.ones(cache.n, dtype=bool)
        for t in state.affinity_terms:
            codes, values = cache.label_codes(t.topology_key)
            present &= codes >= 0
            exist &= _pair_codes(state.affinity_counts, t.topology_key, values)[codes] > 0
        first_of_group = not state.affinity_counts and pod_matches_all_affinity_terms(state.affinity_terms, state.pod)
        mask &= present & (exist | first_of_group)
    if state.anti_affinity_counts:
        for t in state.anti_affinity_terms:
            codes, values = cache.label_codes(t.topology_key)
            mask &= ~((codes >= 0) & (_pair_codes(state.anti_affinity_counts, t.topology_key, values)[codes] > 0))
    for (key, value), n in state.existing_anti_affinity_counts.items():
        if n > 0:
            codes, values = cache.label_codes(key)
            code = values.get(value)
            if code is not None:
                mask &= codes != code
    return mask


def _ipa_score_vector(self: InterPodAffinity, cs: CycleState, pod: Pod, cache, idx: np.ndarray) -> np.ndarray | None:
    state: PreScoreState | None = cs.get(PRESCORE_KEY)
    if state is None:
        return None
    total = np.zeros(len(idx), dtype=np.int64)
    for key, per_value in state.topology_score.items():
        codes, values = cache.label_codes(key)
        by_code = np.zeros(len(values) + 1, dtype=np.int64)
        for value, score in per_value.items():
            code = values.get(value)
            if code is not None:
                by_code[code] = score
        total += by_code[codes[idx]]
    return total


def _ipa_normalize_vector(self: InterPodAffinity, cs: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray | None:
    state: PreScoreState | None = cs.get(PRESCORE_KEY)
    if state is None or not state.topology_score or not len(scores):
        return None
    low, high = int(scores.min()), int(scores.max())
    if high - low <= 0:
        return np.zeros(len(scores), dtype=np.int64)
    return (fw.MAX_NODE_SCORE * ((scores - low) / (high - low))).astype(np.int64)


InterPodAffinity.filter_mask = _ipa_filter_mask
InterPodAffinity.score_vector = _ipa_score_vector
InterPodAffinity.normalize_vector = _ipa_normalize_vector
