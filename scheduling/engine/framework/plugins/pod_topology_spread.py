"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread, Kubernetes v1.35).

* PreFilter: the pod's DoNotSchedule constraints (or, for a pod without constraints, the
  default constraints with the selector of its Services, ReplicationController, ReplicaSet
  or StatefulSet: buildDefaultConstraints / helper.DefaultSelector); none: Skip. For each
  constraint, the number of matching pods (same namespace, not terminating) per topology
  value over the eligible nodes (every topology key present, nodeAffinityPolicy Honor: the
  pod's nodeSelector and required node affinity match, nodeTaintsPolicy Honor: no
  untolerated NoSchedule/NoExecute taint), and its two critical paths (the least matched
  domains). `matchLabelKeys` add the pod's values of those labels to the selector.
* Filter: a node without a constraint's topology key is UnschedulableAndUnresolvable
  (`node(s) didn't match pod topology spread constraints (missing required label)`);
  `matching pods in the node's domain + 1 if the pod matches itself - global minimum` above
  maxSkew is Unschedulable (`node(s) didn't match pod topology spread constraints`). The
  global minimum is 0 while there are fewer domains than minDomains.
* AddPod / RemovePod keep the counts right for preemption and nominated pods.
* PreScore / Score / NormalizeScore: the ScheduleAnyway constraints (or the defaults);
  per node the sum over constraints of `count * log(domains + 2) + maxSkew - 1` (the
  hostname key counts the node's own pods), rounded; nodes lacking a key are ignored
  (scored 0) unless only system defaults apply; normalized to
  `100 * (max + min - score) / max` (100 for all when max is 0).

Args (PodTopologySpreadArgs): `defaultingType` System (default: hostname maxSkew 3 and
zone maxSkew 5, ScheduleAnyway) or List (`defaultConstraints`, validated as upstream).

Counting reads engine.framework.plugins.pod_index (the bound pods grouped by labels, per
node) instead of walking every pod of every node in each cycle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from scheduling.engine.api.objects import Pod, TopologySpreadConstraint, untolerated_taints
from scheduling.engine.api.selectors import NOTHING, Selector, SelectorError, selector_from_set
from scheduling.engine.api.validation import field
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import ArgsError, CycleState, Plugin, Status
from scheduling.engine.framework.plugins.pod_index import as_selector, index_for
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.predicates.node_selector import pod_matches_node_selector_and_affinity

NAME = "PodTopologySpread"
PREFILTER_KEY = "PreFilter" + NAME
PRESCORE_KEY = "PreScore" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
_CONSTRAINTS_NOT_MATCH = fw.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
_NODE_LABEL_NOT_MATCH = fw.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"
DO_NOT_SCHEDULE_TAINT_EFFECTS = ("NoSchedule", "NoExecute")  # helper.DoNotScheduleTaintsFilterFunc
MAX_INT32 = 2**31 - 1

SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)


@dataclass(frozen=True)
class Constraint:
    """topologySpreadConstraint: a v1.TopologySpreadConstraint with its selector parsed."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def match_node_inclusion_policies(self, pod: Pod, node) -> bool:
        if self.node_affinity_policy == HONOR and not pod_matches_node_selector_and_affinity(pod, node):
            return False
        if self.node_taints_policy == HONOR and untolerated_taints(pod.tolerations, node.taints, DO_NOT_SCHEDULE_TAINT_EFFECTS):
            return False
        return True


def node_labels_match_spread_constraints(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: every topology key is a label of the node."""
    return all(c.topology_key in labels for c in constraints)


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """mergeLabelSetWithSelector: labels.SelectorFromSet(matchLabels) plus the selector's
    requirements; a selector without requirements to give (Nothing) is kept."""
    if selector.nothing:
        return selector
    merged = selector_from_set(match_labels)
    return Selector(tuple(sorted(merged.requirements + selector.requirements, key=lambda r: r.key)))


class CriticalPaths:
    """criticalPaths: the two least matched domains (paths[0] holds the minimum)."""

    __slots__ = ("paths",)

    def __init__(self, paths=None):
        self.paths = paths if paths is not None else [["", MAX_INT32], ["", MAX_INT32]]

    def update(self, value: str, num: int) -> None:
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])

    def as_tuples(self) -> tuple[tuple[str, int], tuple[str, int]]:
        return tuple(self.paths[0]), tuple(self.paths[1])


class PreFilterState:
    """preFilterState: the constraints, their critical paths and matched pods per value."""

    def __init__(self, constraints: Sequence[Constraint] = (), self_match: Sequence[int] = ()):
        self.constraints = tuple(constraints)
        self.self_match = tuple(self_match)  # 1 where the incoming pod matches the constraint's selector
        self.critical_paths: list[CriticalPaths] = []
        self.tp_value_to_match_num: list[dict[str, int]] = []
        self._parts: list[tuple] | None = None

    def parts(self) -> list[tuple]:
        """Per constraint what Filter reads: (key, maxSkew, self match, minDomains, counts, paths);
        the counts and paths are the state's own, so AddPod/RemovePod show through."""
        if self._parts is None:
            self._parts = [(c.topology_key, c.max_skew, self.self_match[i], c.min_domains,
                            self.tp_value_to_match_num[i], self.critical_paths[i])
                           for i, c in enumerate(self.constraints)]
        return self._parts

    def min_match_num(self, i: int, min_domains: int) -> int:
        """minMatchNum: the global minimum, 0 while there are fewer domains than minDomains."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].paths[0][1]

    def clone(self) -> "PreFilterState":
        out = PreFilterState(self.constraints, self.self_match)
        out.critical_paths = [p.clone() for p in self.critical_paths]
        out.tp_value_to_match_num = [dict(m) for m in self.tp_value_to_match_num]
        return out


class PreScoreState:
    """preScoreState (never copied: Clone returns itself)."""

    def __init__(self):
        self.constraints: tuple[Constraint, ...] = ()
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []
        self.node_counts: list[dict[str, int] | None] = []  # hostname constraints: pods per node
        self.parts: list[tuple] = []  # per constraint: (key, node counts or None, counts per value, weight, maxSkew - 1)

    def clone(self) -> "PreScoreState":
        return self


def critical_paths_of(counts: Mapping[str, int]) -> CriticalPaths:
    """The critical paths of the counts (upstream updates them value by value in map order; a
    tie between domains is broken by value here). Many domains (a hostname key on a large
    cluster): the two minima found without visiting every domain in Python."""
    paths = CriticalPaths()
    if len(counts) <= 32:
        for value in sorted(counts):
            paths.update(value, counts[value])
        return paths
    nums = list(counts.values())
    low = min(nums)
    first = next(v for v, n in counts.items() if n == low)
    if nums.count(low) > 1:
        second_num = low
        second = next(v for v, n in counts.items() if n == low and v != first)
    else:
        second, second_num = min(((v, n) for v, n in counts.items() if v != first), key=lambda item: (item[1], item[0]))
    paths.paths = [[first, low], [second, second_num]]
    return paths


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    return count * weight + (max_skew - 1)


# --- args ---------------------------------------------------------------------------------------------


def _constraint_doc_errors(docs: Sequence[Any]) -> list[field.FieldError]:
    """ValidatePodTopologySpreadArgs' checks of each default constraint."""
    errors: list[field.FieldError] = []
    seen: list[tuple[str, str]] = []
    for i, doc in enumerate(docs):
        p = f"defaultConstraints[{i}]"
        doc = doc if isinstance(doc, Mapping) else {}
        max_skew = doc.get("maxSkew") or 0
        if not isinstance(max_skew, int) or max_skew <= 0:
            errors.append(field.invalid(f"{p}.maxSkew", max_skew, "not in valid range (0, inf)"))
        key = doc.get("topologyKey") or ""
        if not key:
            errors.append(field.required_value(f"{p}.topologyKey", "can not be empty"))
        else:
            for msg in field.is_qualified_name(key):
                errors.append(field.invalid(f"{p}.topologyKey", key, msg))
        when = doc.get("whenUnsatisfiable") or ""
        if not when:
            errors.append(field.required_value(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errors.append(field.not_supported(f"{p}.whenUnsatisfiable", when, [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]))
        if doc.get("labelSelector") is not None:
            errors.append(field.forbidden(f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod"))
        if (key, when) in seen:
            errors.append(field.duplicate(f"defaultConstraints[{i}]", f"{{{key}, {when}}}"))
        seen.append((key, when))
    return errors


def _aggregate(errors: Sequence[field.FieldError]) -> str:
    """ErrorList.ToAggregate().Error(): one message, or several in [...] (duplicates dropped)."""
    messages: list[str] = []
    for err in errors:
        if str(err) not in messages:
            messages.append(str(err))
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def parse_args(args: Mapping[str, Any] | None) -> tuple[str, tuple[TopologySpreadConstraint, ...]]:
    """PodTopologySpreadArgs defaulted and validated: (defaultingType, defaultConstraints).
    Raises ArgsError with upstream's field errors."""
    args = dict(args or {})
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    docs = list(args.get("defaultConstraints") or ())
    errors: list[field.FieldError] = []
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errors.append(field.not_supported("defaultingType", defaulting, [SYSTEM_DEFAULTING, LIST_DEFAULTING]))
    elif defaulting == SYSTEM_DEFAULTING and docs:
        errors.append(field.invalid("defaultingType", defaulting, "when .defaultConstraints are not empty"))
    errors.extend(_constraint_doc_errors(docs))
    if errors:
        raise ArgsError(_aggregate(errors))
    if defaulting == SYSTEM_DEFAULTING:
        return defaulting, SYSTEM_DEFAULT_CONSTRAINTS
    return defaulting, tuple(TopologySpreadConstraint.from_doc(d) for d in docs)


# --- the plugin ------------------------------------------------------------------------------------------


class PodTopologySpread(Plugin):
    name = NAME
    # EventsToRegister (v1.35, queueing hints on): assigned pods added, relabelled or deleted,
    # the pod's own tolerations, nodes added, deleted, relabelled or retainted.
    events = frozenset({
        "AssignedPod/Add", "AssignedPod/UpdatePodLabel", "AssignedPod/Delete", "UnscheduledPod/UpdatePodToleration",
        "Node/Add", "Node/Delete", "Node/UpdateNodeLabel", "Node/UpdateNodeTaint",
    })

    def __init__(self, args: Mapping[str, Any] | None, handle: fw.Handle):
        super().__init__(args, handle)
        self.defaulting_type, self.default_constraints = parse_args(args)
        self.system_defaulted = self.defaulting_type == SYSTEM_DEFAULTING
        self._default_selectors: dict = {}
        self._filtered: dict = {}
        self._defaults: dict = {}
        self._eligible: dict = {}
        self._eligible_index = None

    # --- constraints --------------------------------------------------------------------------------

    def filter_topology_spread_constraints(self, constraints, pod_labels: Mapping[str, str], action: str) -> list[Constraint]:
        """filterTopologySpreadConstraints: the constraints of `action`, selectors parsed
        (raises SelectorError), matchLabelKeys merged. Kept per constraints and the labels
        their matchLabelKeys read (the pods of one template ask again and again)."""
        constraints = tuple(constraints)
        read = tuple((k, pod_labels.get(k)) for c in constraints for k in c.match_label_keys)
        memo_key = (constraints, read, action)
        hit = self._filtered.get(memo_key)
        if hit is None:
            hit = self._filtered[memo_key] = tuple(self._filter_constraints(constraints, pod_labels, action))
        return list(hit)

    def _filter_constraints(self, constraints, pod_labels: Mapping[str, str], action: str) -> list[Constraint]:
        result = []
        for c in constraints:
            if c.when_unsatisfiable != action:
                continue
            selector = as_selector(c.label_selector)
            if c.match_label_keys:
                match_labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
                if match_labels:
                    selector = merge_label_set_with_selector(match_labels, selector)
            result.append(Constraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=selector,
                min_domains=1 if c.min_domains is None else c.min_domains,
                node_affinity_policy=c.node_affinity_policy or HONOR,
                node_taints_policy=c.node_taints_policy or IGNORE,
            ))
        return result

    def default_selector(self, pod: Pod) -> Selector:
        """helper.DefaultSelector: the selectors of the Services selecting the pod merged,
        plus its controller's (ReplicationController: merged as a set; ReplicaSet,
        StatefulSet: their requirements added)."""
        ref = pod.controller_ref
        key = (pod.label_set, (ref.kind, ref.name) if ref is not None else None)
        hit = self._default_selectors.get(key)
        if hit is not None:
            return hit
        state = self.handle.state
        label_set: dict[str, str] = {}
        for svc in state.services:
            if svc.namespace != pod.namespace or svc.selector is None:
                continue
            if all(pod.labels.get(k) == v for k, v in svc.selector.match_labels):
                label_set.update(svc.selector.match_labels)
        selector = selector_from_set(label_set)
        if ref is not None:
            owner = next((c for c in state.controllers
                          if c.kind == ref.kind and c.name == ref.name and c.namespace == pod.namespace), None)
            if owner is not None and ref.kind == "ReplicationController":
                if owner.selector is not None:
                    label_set.update(owner.selector.match_labels)
                selector = selector_from_set(label_set)
            elif owner is not None and ref.kind in ("ReplicaSet", "StatefulSet"):
                try:
                    other = as_selector(owner.selector)
                except SelectorError:
                    other = NOTHING
                if not other.nothing and other.requirements:
                    selector = Selector(tuple(sorted(selector.requirements + other.requirements, key=lambda r: r.key)))
        self._default_selectors[key] = selector
        return selector

    def build_default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """buildDefaultConstraints, kept per what it reads of the pod (as default_selector)."""
        ref = pod.controller_ref
        memo_key = (pod.label_set, (ref.kind, ref.name) if ref is not None else None, action)
        hit = self._defaults.get(memo_key)
        if hit is None:
            hit = self._defaults[memo_key] = tuple(self._build_default_constraints(pod, action))
        return list(hit)

    def _build_default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        constraints = self.filter_topology_spread_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = self.default_selector(pod)
        if selector.empty():
            return []
        return [Constraint(c.max_skew, c.topology_key, selector, c.min_domains, c.node_affinity_policy, c.node_taints_policy)
                for c in constraints]

    def get_constraints(self, pod: Pod, action: str = DO_NOT_SCHEDULE) -> list[Constraint]:
        """getConstraints: the pod's constraints of `action`, or the default ones; raises
        SelectorError wrapped in upstream's words (ValueError)."""
        if pod.topology_spread_constraints:
            try:
                return self.filter_topology_spread_constraints(pod.topology_spread_constraints, pod.labels, action)
            except SelectorError as e:
                kind = "hard" if action == DO_NOT_SCHEDULE else "soft"
                raise ValueError(f"obtaining pod's {kind} topology spread constraints: {e}") from None
        if not self.default_constraints:
            return []
        try:
            return self.build_default_constraints(pod, action)
        except SelectorError as e:
            kind = "hard" if action == DO_NOT_SCHEDULE else "soft"
            raise ValueError(f"setting default {kind} topology spread constraints: {e}") from None

    # --- eligible nodes ---------------------------------------------------------------------------------

    def _eligible_nodes(self, index, pod: Pod, constraints: Sequence[Constraint], i: int,
                        require_all: bool) -> tuple[dict[str, str], dict[str, int]]:
        """(node name -> topology value of constraint i, for the nodes counted: every key
        present (when required) and the node inclusion policies met, missing keys reading "";
        every such value -> 0). Kept per (keys, key, the pod's node selection, its tolerations)."""
        if self._eligible_index is not index:
            self._eligible = {}
            self._eligible_index = index
        c = constraints[i]
        keys = tuple(x.topology_key for x in constraints) if require_all else ()
        affinity = None
        if c.node_affinity_policy == HONOR:
            a = pod.affinity
            required = a.node_affinity.required if a is not None and a.node_affinity is not None else None
            affinity = (tuple(sorted(pod.node_selector.items())), required)
        tolerations = pod.tolerations if c.node_taints_policy == HONOR else None
        memo_key = (keys, c.topology_key, affinity, tolerations)
        hit = self._eligible.get(memo_key)
        if hit is not None:
            return hit
        out: dict[str, str] = {}
        key = c.topology_key
        for info in index.nodes:
            node = info.node
            labels = node.labels
            if keys and not all(k in labels for k in keys):
                continue
            if affinity is not None and (affinity[0] or affinity[1] is not None) and not pod_matches_node_selector_and_affinity(pod, node):
                continue
            if tolerations is not None and node.taints and untolerated_taints(tolerations, node.taints, DO_NOT_SCHEDULE_TAINT_EFFECTS):
                continue
            out[node.name] = labels.get(key, "")
        hit = self._eligible[memo_key] = (out, dict.fromkeys(out.values(), 0))
        return hit

    # --- PreFilter / Filter -----------------------------------------------------------------------------

    def cal_pre_filter_state(self, pod: Pod, nodes: Sequence[NodeInfo]) -> PreFilterState:
        """calPreFilterState; raises ValueError."""
        try:
            constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        except ValueError as e:
            raise ValueError(f"get constraints from pod: {e}") from None
        labels = pod.labels
        state = PreFilterState(constraints, [1 if c.selector.matches(labels) else 0 for c in constraints])
        if not constraints:
            return state
        index = index_for(self.handle, nodes)
        for i, c in enumerate(constraints):
            eligible, zero = self._eligible_nodes(index, pod, constraints, i, True)
            counts = dict(zero)
            for name, n in index.live_counts(c.selector, pod.namespace).items():
                value = eligible.get(name)
                if value is not None:
                    counts[value] += n
            state.tp_value_to_match_num.append(counts)
            state.critical_paths.append(critical_paths_of(counts))
        return state

    def pre_filter(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        if not pod.topology_spread_constraints and not self.default_constraints:
            return fw.SKIPPED
        try:
            state = self.cal_pre_filter_state(pod, nodes)
        except ValueError as e:
            return fw.error(str(e))
        if not state.constraints:
            return fw.SKIPPED
        cs[PREFILTER_KEY] = state
        return fw.OK

    def _update_with_pod(self, state: PreFilterState, updated: Pod, preemptor: Pod, node, delta: int) -> None:
        """updateWithPod."""
        if state is None or updated.namespace != preemptor.namespace or node is None:
            return
        if not node_labels_match_spread_constraints(node.labels, state.constraints):
            return
        labels = updated.labels
        for i, c in enumerate(state.constraints):
            if not c.selector.matches(labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node):
                continue
            value = node.labels[c.topology_key]
            counts = state.tp_value_to_match_num[i]
            counts[value] = counts.get(value, 0) + delta
            state.critical_paths[i].update(value, counts[value])

    def add_pod(self, cs: CycleState, pod: Pod, pod_to_add: Pod, info: NodeInfo) -> Status:
        state = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'reading "{PREFILTER_KEY}" from cycleState: not found')
        self._update_with_pod(state, pod_to_add, pod, info.node, 1)
        return fw.OK

    def remove_pod(self, cs: CycleState, pod: Pod, pod_to_remove: Pod, info: NodeInfo) -> Status:
        state = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'reading "{PREFILTER_KEY}" from cycleState: not found')
        self._update_with_pod(state, pod_to_remove, pod, info.node, -1)
        return fw.OK

    def filter(self, cs: CycleState, pod: Pod, info: NodeInfo) -> Status:
        state: PreFilterState | None = cs.get(PREFILTER_KEY)
        if state is None:
            return fw.error(f'reading "{PREFILTER_KEY}" from cycleState: not found')
        if not state.constraints:
            return fw.OK
        labels = info.node.labels
        for key, max_skew, self_match, min_domains, counts, paths in state.parts():
            value = labels.get(key)
            if value is None:
                return _NODE_LABEL_NOT_MATCH
            # 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
            low = 0 if len(counts) < min_domains else paths.paths[0][1]
            if counts.get(value, 0) + self_match - low > max_skew:
                return _CONSTRAINTS_NOT_MATCH
        return fw.OK

    def domain_counts(self, cs: CycleState) -> dict[str, dict[str, int]]:
        """For the reader: per topology key of the pod's DoNotSchedule constraints, the
        matching pods per domain (value) the Filter verdicts were computed from."""
        state: PreFilterState | None = cs.get(PREFILTER_KEY)
        if state is None:
            return {}
        out: dict[str, dict[str, int]] = {}
        for c, counts in zip(state.constraints, state.tp_value_to_match_num):
            out.setdefault(c.topology_key, {}).update({v: counts[v] for v in sorted(counts)})
        return out

    # --- PreScore / Score / NormalizeScore --------------------------------------------------------------

    def pre_score(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        all_nodes = list(self.handle.node_infos.values())
        if not all_nodes:
            return fw.SKIPPED
        if not pod.topology_spread_constraints and not self.default_constraints:
            return fw.SKIPPED
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        state = PreScoreState()
        try:
            state.constraints = tuple(self.get_constraints(pod, SCHEDULE_ANYWAY))
        except ValueError as e:
            return fw.error(f"calculating preScoreState: {e}")
        constraints = state.constraints
        if not constraints:
            return fw.SKIPPED
        keys = [c.topology_key for c in constraints]
        kept = [info.node.labels for info in nodes]
        if require_all:
            if len(keys) == 1:
                only = keys[0]
                missing = [i for i, labels in enumerate(kept) if only not in labels]
            else:
                missing = [i for i, labels in enumerate(kept) if not all(k in labels for k in keys)]
            if missing:
                state.ignored_nodes.update(nodes[i].node.name for i in missing)
                skip = set(missing)
                kept = [labels for i, labels in enumerate(kept) if i not in skip]
        values: list[dict[str, int]] = [
            {} if key == LABEL_HOSTNAME else dict.fromkeys({labels.get(key, "") for labels in kept}, 0) for key in keys]
        state.topology_value_to_pod_counts = values
        state.topology_normalizing_weight = [
            topology_normalizing_weight(len(nodes) - len(state.ignored_nodes) if key == LABEL_HOSTNAME else len(values[i]))
            for i, key in enumerate(keys)]
        index = index_for(self.handle, all_nodes)
        state.node_counts = []
        for i, c in enumerate(constraints):
            counts = index.live_counts(c.selector, pod.namespace)
            if c.topology_key == LABEL_HOSTNAME:
                state.node_counts.append(counts)
                continue
            state.node_counts.append(None)
            if not counts:
                continue
            eligible = self._eligible_nodes(index, pod, constraints, i, require_all)[0]
            per_value = values[i]
            for name, count in counts.items():
                value = eligible.get(name)
                if value is not None and value in per_value:
                    per_value[value] += count
        state.parts = [(c.topology_key, state.node_counts[i], values[i], state.topology_normalizing_weight[i], c.max_skew - 1)
                       for i, c in enumerate(constraints)]
        cs[PRESCORE_KEY] = state
        return fw.OK

    def score(self, cs: CycleState, pod: Pod, info: NodeInfo) -> int:
        state: PreScoreState | None = cs.get(PRESCORE_KEY)
        if state is None:
            raise fw.ScoreError(f'error reading "{PRESCORE_KEY}" from cycleState: not found')
        node = info.node
        name = node.name
        if name in state.ignored_nodes:
            return 0
        labels = node.labels
        total = 0.0
        for key, node_counts, per_value, weight, extra in state.parts:
            value = labels.get(key)
            if value is None:
                continue
            count = node_counts.get(name, 0) if node_counts is not None else per_value.get(value, 0)
            total += count * weight + extra  # scoreForCount
        return int(total + 0.5)  # math.Round of a sum that is never negative

    def normalize_score(self, cs: CycleState, pod: Pod, scores: dict[str, int]) -> None:
        state: PreScoreState | None = cs.get(PRESCORE_KEY)
        if state is None:
            return
        ignored = state.ignored_nodes
        counted = [s for name, s in scores.items() if name not in ignored]
        if not counted:
            for name in scores:
                scores[name] = 0
            return
        min_score, max_score = min(counted), max(max(counted), 0)
        for name, s in scores.items():
            if name in ignored:
                scores[name] = 0
            elif max_score == 0:
                scores[name] = fw.MAX_NODE_SCORE
            else:
                scores[name] = fw.MAX_NODE_SCORE * (max_score + min_score - s) // max_score

