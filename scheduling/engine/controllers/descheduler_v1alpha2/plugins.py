"""The descheduler's plugins (sigs.k8s.io/descheduler pkg/framework/plugins), each
`run(cycle, nodes, args)`; `PLUGINS` maps the plugin name to it. Each follows its upstream
file: which pods it lists (ListPodsOnANode: not Succeeded/Failed; ListAllPodsOnANode:
every phase), the filters it applies (the profile's DefaultEvictor Filter and
PreEvictionFilter, the args' namespaces and labelSelector), the order it evicts in and
how a limit stops it (the total limit ends the plugin; the node limit moves it to the
next node).

RemovePodsViolatingTopologySpreadConstraint balances each constraint's domains as
upstream's balanceDomains does (pods move from the domains above the ideal average,
lowest priority first, until the skew is within maxSkew), without its extra node-fit
checks beyond the DefaultEvictor's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.api.objects import CPU, MEMORY, PODS, LabelSelector, Node, untolerated_taints
from scheduling.engine.api.selectors import SelectorError
from scheduling.engine.store import is_terminating, sim_time
from scheduling.engine.controllers.descheduler_strategies.common import percentage
from scheduling.engine.scheduler.predicates.node_selector import (
    label_selector_as_selector,
    node_selector_requirements_as_selector,
    pod_matches_node_selector_and_affinity,
    selector_from_set,
)

from . import policy as P
from .evictor import NO_EVICTION_ANNOTATION, Cycle, LimitError, PodRef

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _ns_filter(args: Mapping[str, Any], key: str = "namespaces") -> Callable[[PodRef], bool]:
    ns = args.get(key) or {}
    include, exclude = set(ns.get("include") or ()), set(ns.get("exclude") or ())

    def ok(ref: PodRef) -> bool:
        if include and ref.pod.namespace not in include:
            return False
        return ref.pod.namespace not in exclude
    return ok


def _label_filter(args: Mapping[str, Any]) -> Callable[[PodRef], bool]:
    sel = LabelSelector.from_doc(args.get("labelSelector"))
    if sel is None or sel.is_empty:
        return lambda ref: True
    return lambda ref: sel.matches(ref.pod.labels)


def _pod_filter(cycle: Cycle, args: Mapping[str, Any], pre: bool = True) -> Callable[[PodRef], bool]:
    ns, labels = _ns_filter(args), _label_filter(args)
    return lambda ref: ns(ref) and labels(ref) and cycle.filter(ref) and (not pre or cycle.pre_eviction_filter(ref))


def _evict_list(cycle: Cycle, pods: Sequence[PodRef], plugin: str, reason: Callable[[PodRef], str],
                node_limit_breaks: bool = True) -> bool:
    """Evict `pods` in order; False when the total limit ended the plugin."""
    for ref in pods:
        try:
            cycle.evict(ref, plugin, reason(ref))
        except LimitError as exc:
            if exc.scope == "total":
                return False
            if exc.scope == "node" and node_limit_breaks:
                return True
    return True


# --- Deschedule plugins ------------------------------------------------------------------------


def _statuses(status: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return list(status.get(key) or ())


def _state_reasons(statuses, kinds=("waiting", "terminated")) -> set[str]:
    return {((c.get("state") or {}).get(k) or {}).get("reason") for c in statuses for k in kinds} - {None, ""}


def _condition_matches(cycle: Cycle, cond: Mapping[str, Any], f: Mapping[str, Any]) -> bool:
    """matchesConditionFields and the minTimeSinceLastTransitionSeconds check."""
    for field_ in ("type", "status", "reason"):
        if f.get(field_) and str(cond.get(field_) or "") != str(f[field_]):
            return False
    if f.get("minTimeSinceLastTransitionSeconds") is not None:
        t = sim_time(cond.get("lastTransitionTime"))
        if t is None:
            return False
        idle = cycle.now - t
        if idle < 0 or int(idle) < int(f["minTimeSinceLastTransitionSeconds"]):
            return False
    return True


def _age(cycle: Cycle, ref: PodRef) -> float:
    """Now minus creationTimestamp (a pod without one is as old as Go's zero time)."""
    created = ref.created()
    return math.inf if created is None else cycle.now - created


def pod_life_time(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """PodLifeTime: every pod (any phase) older than maxPodLifeTimeSeconds, in one of
    `states` (its phase, its status reason, a container's waiting or terminated reason; init
    and ephemeral containers when asked), with a matching condition, a matching exit code,
    of the owner kinds asked for; evicted oldest first."""
    base = _pod_filter(cycle, args)
    max_age = args.get("maxPodLifeTimeSeconds")
    states = set(args.get("states") or ())
    owner_kinds = args.get("ownerKinds") or {}
    conditions = list(args.get("conditions") or ())
    exit_codes = set(args.get("exitCodes") or ())
    init, ephemeral = bool(args.get("includingInitContainers")), bool(args.get("includingEphemeralContainers"))

    def ok(ref: PodRef) -> bool:
        if not base(ref):
            return False
        st = ref.status
        if max_age is not None:
            age = _age(cycle, ref)
            if age < 0 or (math.isfinite(age) and int(age) <= int(max_age)):
                return False
        if states:
            found = {st.get("phase") or "", st.get("reason") or ""} | _state_reasons(_statuses(st, "containerStatuses"))
            if init:
                found |= _state_reasons(_statuses(st, "initContainerStatuses"))
            if ephemeral:
                found |= _state_reasons(_statuses(st, "ephemeralContainerStatuses"))
            if not states & found:
                return False
        kinds = {o.kind for o in ref.pod.owner_references}
        if owner_kinds.get("include"):
            if not kinds & set(owner_kinds["include"]):
                return False
        elif owner_kinds.get("exclude") and kinds & set(owner_kinds["exclude"]):
            return False
        if conditions and not any(_condition_matches(cycle, c, f) for f in conditions for c in _statuses(st, "conditions")):
            return False
        if exit_codes:
            statuses = _statuses(st, "containerStatuses") + (_statuses(st, "initContainerStatuses") if init else [])
            if not any(((c.get("state") or {}).get("terminated") or {}).get("exitCode") in exit_codes for c in statuses
                       if ((c.get("state") or {}).get("terminated")) is not None):
                return False
        return True

    pods = [r for n in nodes for r in cycle.pods_on(n, all_phases=True) if ok(r)]
    pods.sort(key=lambda r: -_age(cycle, r))  # SortPodsBasedOnAge: the oldest first (stable)

    def reason(ref: PodRef) -> str:
        parts = []
        if max_age is not None:
            age = _age(cycle, ref)
            parts.append(f"older than maxPodLifeTimeSeconds {max_age}" + (f" (age {int(age)}s)" if math.isfinite(age) else ""))
        if states:
            parts.append(f"in state {ref.phase}" if ref.phase in states else "in one of the states " + ", ".join(sorted(states)))
        return "; ".join(parts) or "matches the PodLifeTime filters"
    for ref in pods:
        try:
            cycle.evict(ref, P.POD_LIFE_TIME, reason(ref))
        except LimitError as exc:
            if exc.scope == "total":
                return


def too_many_restarts(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemovePodsHavingTooManyRestarts: per node, pods at or above podRestartThreshold,
    most restarts first."""
    base = _pod_filter(cycle, args)
    threshold = int(args.get("podRestartThreshold") or 0)
    init = bool(args.get("includingInitContainers"))
    states = set(args.get("states") or ())

    def ok(ref: PodRef) -> bool:
        if not base(ref) or ref.restarts(init) < threshold:
            return False
        if states:
            st = ref.status
            statuses = list(st.get("containerStatuses") or ()) + (list(st.get("initContainerStatuses") or ()) if init else [])
            if ref.phase not in states and not any(((c.get("state") or {}).get("waiting") or {}).get("reason") in states for c in statuses):
                return False
        return True
    for node in nodes:
        pods = sorted((r for r in cycle.pods_on(node, all_phases=True) if ok(r)), key=lambda r: -r.restarts(init))
        if not _evict_list(cycle, pods, P.TOO_MANY_RESTARTS,
                           lambda r: f"{r.restarts(init)} container restarts, threshold {threshold}"):
            return


def remove_failed_pods(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemoveFailedPods: Failed pods older than minPodLifetimeSeconds (default 3600),
    matching reasons / exitCodes when given, owner kinds not excluded."""
    base = _pod_filter(cycle, args)
    min_age = args.get("minPodLifetimeSeconds")
    reasons, codes = set(args.get("reasons") or ()), set(args.get("exitCodes") or ())
    excluded = set(args.get("excludeOwnerKinds") or ())
    init = bool(args.get("includingInitContainers"))

    def ok(ref: PodRef) -> bool:
        if ref.phase != "Failed" or not base(ref):
            return False
        if min_age is not None:
            created = ref.created() or 0.0
            if int(cycle.now - created) < int(min_age):
                return False
        if excluded and any(o.kind in excluded for o in ref.pod.owner_references):
            return False
        st = ref.status
        statuses = list(st.get("containerStatuses") or ()) + (list(st.get("initContainerStatuses") or ()) if init else [])
        if reasons:
            found = [((c.get("state") or {}).get(s) or {}).get("reason") for c in statuses for s in ("waiting", "terminated")]
            if st.get("reason"):
                found.append(st.get("reason"))
            if not reasons & {f for f in found if f}:
                return False
        if codes:
            found_codes = {((c.get("state") or {}).get("terminated") or {}).get("exitCode") for c in statuses}
            if not codes & found_codes:
                return False
        return True
    for node in nodes:
        pods = [r for r in cycle.pods_on(node, all_phases=True) if ok(r)]
        if not _evict_list(cycle, pods, P.REMOVE_FAILED_PODS, lambda r: f"pod Failed{(' (' + r.status.get('reason') + ')') if r.status.get('reason') else ''}"):
            return


def node_taints(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemovePodsViolatingNodeTaints: pods that do not tolerate a NoSchedule taint (and
    PreferNoSchedule with includePreferNoSchedule) of their node, included/excluded taints
    by key or key=value."""
    base = _pod_filter(cycle, args)
    included = args.get("includedTaints")
    inc, exc = set(included or ()), set(args.get("excludedTaints") or ())
    effects = ("NoSchedule", "PreferNoSchedule") if args.get("includePreferNoSchedule") else ("NoSchedule",)

    def considered(t) -> bool:
        if t.effect not in effects:
            return False
        if t.key in exc or (t.value and f"{t.key}={t.value}" in exc):
            return False
        return included is None or t.key in inc or bool(t.value and f"{t.key}={t.value}" in inc)
    for node in nodes:
        taints = [t for t in node.taints if considered(t)]
        pods = []
        for ref in cycle.pods_on(node):
            if not base(ref):
                continue
            bad = untolerated_taints(ref.pod.tolerations, taints)
            if bad:
                pods.append((ref, bad[0]))
        by_key = {r.key: t for r, t in pods}
        if not _evict_list(cycle, [r for r, _ in pods], P.REMOVE_NODE_TAINTS,
                           lambda r: f"it does not tolerate the taint {by_key[r.key]} of node {r.pod.node_name}"):
            return


def _preferred_weight(ref: PodRef, node: Node) -> int:
    a = ref.pod.affinity
    if a is None or a.node_affinity is None:
        return 0
    total = 0
    for term in a.node_affinity.preferred or ():
        try:
            if node_selector_requirements_as_selector(term.preference.match_expressions).matches(node.labels):
                total += term.weight
        except SelectorError:
            continue
    return total


def node_affinity(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemovePodsViolatingNodeAffinity: for required affinity, pods whose node no longer
    matches and that fit another node; for preferred, pods for which another node scores
    a higher preferred weight."""
    base = _pod_filter(cycle, args)
    for affinity_type in args.get("nodeAffinityType") or ():
        for node in nodes:
            pods = []
            for ref in cycle.pods_on(node):
                a = ref.pod.affinity
                na = a.node_affinity if a is not None else None
                if affinity_type == REQUIRED:
                    if na is None or na.required is None or not base(ref):
                        continue
                    if pod_matches_node_selector_and_affinity(ref.pod, node):
                        continue
                    if not any(cycle.pod_fits_node(ref, n) for n in nodes):
                        continue
                    pods.append(ref)
                elif affinity_type == PREFERRED:
                    if na is None or not na.preferred or not base(ref):
                        continue
                    if not any(cycle.pod_fits_node(ref, n) for n in nodes):
                        continue
                    best = max((_preferred_weight(ref, n) for n in nodes), default=0)  # GetBestNodeWeightGivenPodPreferredAffinity
                    if best > _preferred_weight(ref, node):
                        pods.append(ref)
            reason = (f"node {node.name} no longer satisfies its {REQUIRED} node affinity" if affinity_type == REQUIRED
                      else f"another node better satisfies its {PREFERRED} node affinity")
            if not _evict_list(cycle, pods, P.REMOVE_NODE_AFFINITY, lambda r: reason):
                return


def _has_same_label_value(a: Node, b: Node, key: str) -> bool:
    """hasSameLabelValue: the same node, or both carry `key` with one value."""
    if a.name == b.name:
        return True
    return key in a.labels and key in b.labels and a.labels[key] == b.labels[key]


def _anti_affinity_partner(ref: PodRef, by_namespace: Mapping[str, list[PodRef]], node_map: Mapping[str, Node]) -> PodRef | None:
    """utils.CheckPodsWithAntiAffinityExist: a listed pod in the candidate's topology domain
    that one of its required anti-affinity terms matches (None: none)."""
    own = node_map.get(ref.pod.node_name)
    a = ref.pod.affinity
    if own is None or a is None or a.pod_anti_affinity is None:
        return None
    for term in a.pod_anti_affinity.required or ():
        namespaces = set(term.namespaces) if term.namespaces else {ref.pod.namespace}
        try:
            selector = label_selector_as_selector(term.label_selector)
        except SelectorError:
            return None
        for namespace in sorted(namespaces):
            for other in by_namespace.get(namespace, ()):
                if other.pod.name == ref.pod.name or other.pod.namespace not in namespaces or not selector.matches(other.pod.labels):
                    continue
                other_node = node_map.get(other.pod.node_name)
                if other_node is not None and _has_same_label_value(own, other_node, term.topology_key):
                    return other
    return None


def inter_pod_anti_affinity(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemovePodsViolatingInterPodAntiAffinity (pod_antiaffinity.go): the pods of the nodes
    (namespaces and labelSelector of the args), per node from the lowest priority, a pod whose
    required pod anti-affinity a pod in its topology domain matches is evicted (the
    DefaultEvictor permitting) and leaves the lists, so that its partner may stay."""
    ns, labels = _ns_filter(args), _label_filter(args)
    node_map = {n.name: n for n in nodes}
    listed = [r for n in nodes for r in cycle.pods_on(n) if ns(r) and labels(r)]
    by_namespace: dict[str, list[PodRef]] = defaultdict(list)
    by_node: dict[str, list[PodRef]] = defaultdict(list)
    for r in listed:
        by_namespace[r.pod.namespace].append(r)
        by_node[r.pod.node_name].append(r)
    for node in nodes:
        for ref in _sort_evictable(list(by_node[node.name])):
            partner = _anti_affinity_partner(ref, by_namespace, node_map)
            if partner is None or not (cycle.filter(ref) and cycle.pre_eviction_filter(ref)):
                continue
            try:
                if cycle.evict(ref, P.REMOVE_POD_ANTI_AFFINITY,
                               f"its required pod anti-affinity matches {partner.pod.namespace}/{partner.pod.name} on node {partner.pod.node_name}"):
                    by_namespace[ref.pod.namespace] = [r for r in by_namespace[ref.pod.namespace] if r.key != ref.key]
            except LimitError as exc:
                if exc.scope == "total":
                    return
                if exc.scope == "node":
                    break


def _qos_rank(ref: PodRef) -> int:
    return {"BestEffort": 0, "Burstable": 1, "Guaranteed": 2}.get(ref.pod.qos_class, 1)


# --- Balance plugins -------------------------------------------------------------------------------


def remove_duplicates(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemoveDuplicates: pods of the same owner (and the same images) on one node beyond
    the average over the nodes they could run on (ceil(count / feasible nodes)) are
    evicted; fewer than two feasible nodes: nothing."""
    base = _pod_filter(cycle, args)
    excluded = set(args.get("excludeOwnerKinds") or ())
    occurrence: dict[tuple, int] = defaultdict(int)
    duplicates: dict[tuple, dict[str, list[PodRef]]] = {}
    for node in nodes:
        seen: dict[tuple, bool] = {}
        for ref in cycle.pods_on(node):
            if not base(ref):
                continue
            owners = ref.pod.owner_references
            if not owners or any(o.kind in excluded for o in owners):
                continue
            images = "#".join(sorted(c.image for c in ref.pod.containers))
            keys = tuple(sorted(f"{ref.pod.namespace}/{o.kind}/{o.name}/{img}" for o in owners for img in images.split("#")))
            for o in owners:
                occurrence[(ref.pod.namespace, o.kind, o.name, images)] += 1
            if keys in seen:
                for o in owners:
                    duplicates.setdefault((ref.pod.namespace, o.kind, o.name, images), {}).setdefault(node.name, []).append(ref)
            else:
                seen[keys] = True
    for owner, per_node in duplicates.items():
        targets = _target_nodes(cycle, per_node, nodes)
        if len(targets) < 2:
            continue
        upper = math.ceil(occurrence[owner] / len(targets))
        for node_name in [n.name for n in nodes if n.name in per_node]:
            pods = per_node[node_name]
            if len(pods) + 1 > upper:
                for ref in pods[upper - 1:]:
                    try:
                        cycle.evict(ref, P.REMOVE_DUPLICATES,
                                    f"{occurrence[owner]} pods of {owner[1]}/{owner[2]} on {len(targets)} feasible nodes: at most {upper} on node {node_name}")
                    except LimitError as exc:
                        if exc.scope == "total":
                            return
                        break


def _target_nodes(cycle: Cycle, per_node: Mapping[str, list[PodRef]], nodes: Sequence[Node]) -> set[str]:
    out: set[str] = set()
    for refs in per_node.values():
        for ref in refs:
            matching = [n.name for n in nodes
                        if not untolerated_taints(ref.pod.tolerations, n.taints, ("NoSchedule", "NoExecute"))
                        and pod_matches_node_selector_and_affinity(ref.pod, n)]
            if len(matching) > 1:
                out.update(matching)
    return out


def node_requests(cycle: Cycle, node: Node) -> tuple[dict[str, float], dict[str, float], list[PodRef]]:
    """requestedUsageClient: the requests of the node's pods (not Succeeded/Failed) --
    cpu in millicores, memory in bytes, the pod count -- and the node's allocatable."""
    pods = cycle.pods_on(node)
    cpu = mem = 0
    for r in pods:
        req = r.pod.request
        cpu += req.milli_cpu
        mem += req.memory
    cap = node.allocatable_resource
    return ({CPU: float(cpu), MEMORY: float(mem), PODS: float(len(pods))},
            {CPU: float(cap.milli_cpu), MEMORY: float(cap.memory), PODS: float(cap.allowed_pods)}, pods)


def _percent(usage: Mapping[str, float], cap: Mapping[str, float], names) -> dict[str, float]:
    return {n: percentage(usage[n], cap[n]) for n in names}


def _sort_evictable(pods: list[PodRef]) -> list[PodRef]:
    """SortPodsBasedOnPriorityLowToHigh: pods without a priority first, then lower
    priorities; at one priority BestEffort, Burstable, Guaranteed; then the pods without the
    prefer-no-eviction annotation."""
    return sorted(pods, key=lambda r: (_explicit_priority(r), _qos_rank(r), NO_EVICTION_ANNOTATION in r.pod.annotations))


def _capped(cap: Mapping[str, float], threshold: Mapping[str, float], names) -> dict[str, float]:
    """capNodeCapacitiesToThreshold: the capacity, cut to the threshold's percentage
    (int64 truncation) for the resources the threshold names."""
    return {r: float(int(threshold[r] * 0.01 * cap[r])) if r in threshold else cap[r] for r in names}


def _tolerates_some_node(ref: PodRef, taints_of_nodes) -> bool:
    """utils.PodToleratesTaints: the pod tolerates every taint of at least one destination."""
    for taints in taints_of_nodes:
        if len(ref.pod.tolerations) >= len(taints) and not untolerated_taints(ref.pod.tolerations, taints):
            return True
    return False


def _evict_from_source_nodes(cycle: Cycle, plugin: str, args: Mapping[str, Any], sources, destinations, names,
                             continue_eviction, node_limit, reason) -> None:
    """evictPodsFromSourceNodes / evictPods (nodeutilization.go)."""
    available = {r: 0.0 for r in names}
    for d in destinations:
        for r in names:
            available[r] += d["capped"][r] - d["usage"][r]
    dest_taints = [d["node"].taints for d in destinations]
    excluded = set(((args.get("evictableNamespaces") or {}).get("exclude")) or ())
    for src in sources:
        removable = _sort_evictable([r for r in src["pods"] if cycle.filter(r)])
        if not removable or not continue_eviction(src, available):
            continue
        count = 0
        for ref in removable:
            if node_limit is not None and count >= int(node_limit):
                break
            if not _tolerates_some_node(ref, dest_taints):
                continue
            if ref.pod.namespace in excluded or not cycle.pre_eviction_filter(ref):
                continue
            try:
                if not cycle.evict(ref, plugin, reason(src)):
                    continue
            except LimitError as exc:
                if exc.scope == "total":
                    return
                break
            count += 1
            req = ref.pod.request
            used = {CPU: req.milli_cpu, MEMORY: req.memory, PODS: 1}
            for r in names:
                src["usage"][r] -= used[r]
                available[r] -= used[r]
            if not continue_eviction(src, available):
                break


def _fmt(pct: Mapping[str, float], names) -> str:
    return ", ".join(f"{r} {pct[r]:.0f}%" for r in names)


def low_node_utilization(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> list[dict]:
    """LowNodeUtilization: with static thresholds, nodes at or below every threshold are
    underutilized (unless cordoned) and nodes above any target overutilized; with
    useDeviationThresholds, both are the average usage minus / plus the given spans. From the
    overutilized, the most used first, pods (lowest priority first, BestEffort before
    Burstable before Guaranteed) that tolerate an underutilized node's taints are evicted while
    the node is still above its target (cpu, memory and pods capped to the target, the others
    to capacity) and the underutilized nodes still have room up to their targets.
    Returns every node's classification."""
    thresholds = {k: float(v) for k, v in (args.get("thresholds") or {}).items()}
    targets = {k: float(v) for k, v in (args.get("targetThresholds") or {}).items()}
    names = list(dict.fromkeys([*[n for n in thresholds if n in (CPU, MEMORY, PODS)], CPU, MEMORY, PODS]))
    infos = []
    for node in nodes:
        usage, cap, pods = node_requests(cycle, node)
        infos.append({"node": node, "usage": usage, "cap": cap, "pods": pods, "pct": _percent(usage, cap, names)})
    if args.get("useDeviationThresholds"):
        # the usage filtered to the thresholds' resources (filterResourceNames), averaged
        named = [r for r in names if r in thresholds]
        average = {r: sum(i["pct"][r] for i in infos) / max(1, len(infos)) for r in named}
        low_t = {r: min(100.0, max(0.0, average[r] - thresholds.get(r, 0.0))) for r in named}
        high_t = {r: min(100.0, max(0.0, average[r] + targets.get(r, 0.0))) for r in named}
    else:
        low_t, high_t = thresholds, targets
    low, high, report = [], [], []
    for i in infos:
        pct = i["pct"]
        if not i["node"].unschedulable and all(pct[r] <= low_t[r] for r in low_t if r in pct):
            cls = "underutilized"
            low.append(i)
        elif any(pct[r] > high_t[r] for r in high_t if r in pct):
            cls = "overutilized"
            high.append(i)
        else:
            cls = "appropriately utilized"
        i["capped"] = _capped(i["cap"], high_t, names)
        report.append({"node": i["node"].name, "classification": cls, **{r: round(pct[r], 2) for r in names}})
    if not low or len(low) <= int(args.get("numberOfNodes") or 0) or len(low) == len(nodes) or not high:
        return report
    high.sort(key=lambda i: -sum(i["usage"].values()))  # sortNodesByUsage, descending

    def go_on(src, available) -> bool:
        return any(src["usage"][r] > src["capped"][r] for r in names) and all(available[r] > 0 for r in names)

    def reason(src) -> str:
        return (f"node {src['node'].name} is overutilized ({_fmt(src['pct'], names)}; "
                f"targets {', '.join(f'{r} {high_t[r]:.0f}%' for r in names if r in high_t)})")
    _evict_from_source_nodes(cycle, P.LOW_NODE_UTILIZATION, args, high, low, names, go_on,
                             (args.get("evictionLimits") or {}).get("node"), reason)
    return report


def _requests_any(ref: PodRef, names) -> bool:
    containers = list(((ref.doc.get("spec") or {}).get("containers")) or ()) + list(((ref.doc.get("spec") or {}).get("initContainers")) or ())
    return any(name in (((c.get("resources") or {}).get("requests")) or {}) for name in names for c in containers)


def high_node_utilization(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> list[dict]:
    """HighNodeUtilization: nodes at or below every threshold are underutilized and their
    pods are evicted (least used node first) so the scheduler packs them on the other,
    schedulable nodes, while those have room; nothing when every node, or none, is
    underutilized. Returns every node's classification."""
    thresholds = {k: float(v) for k, v in (args.get("thresholds") or {}).items()}
    high_t = {r: 100.0 for r in thresholds}
    names = list(dict.fromkeys([*[n for n in thresholds if n in (CPU, MEMORY, PODS)], CPU, MEMORY, PODS]))
    low, schedulable, report = [], [], []
    for node in nodes:
        usage, cap, pods = node_requests(cycle, node)
        pct = _percent(usage, cap, names)
        info = {"node": node, "usage": usage, "cap": cap, "pods": pods, "pct": pct, "capped": _capped(cap, high_t, names)}
        if all(pct[r] <= thresholds[r] for r in thresholds if r in pct):
            low.append(info)
            cls = "underutilized"
        elif not node.unschedulable:
            schedulable.append(info)
            cls = "overutilized"
        else:
            cls = "appropriately utilized"
        report.append({"node": node.name, "classification": cls, **{r: round(pct[r], 2) for r in names}})
    if not low or len(low) <= int(args.get("numberOfNodes") or 0) or len(low) == len(nodes) or not schedulable:
        return report
    low.sort(key=lambda i: sum(i["usage"].values()))  # sortNodesByUsage, ascending
    if "OnlyThresholdingResources" in (args.get("evictionModes") or ()):
        # withResourceRequestForAny: only pods requesting one of the thresholds' resources
        for info in low:
            info["pods"] = [r for r in info["pods"] if _requests_any(r, thresholds)]

    def go_on(src, available) -> bool:
        return all(available[r] > 0 for r in names)

    def reason(src) -> str:
        return f"node {src['node'].name} is underutilized ({_fmt(src['pct'], names)}): its pods move to fuller nodes"
    _evict_from_source_nodes(cycle, P.HIGH_NODE_UTILIZATION, args, low, schedulable, names, go_on, None, reason)
    return report


def _tsc_selector(c, ref: PodRef):
    """newTopologySpreadConstraint's selector: the labelSelector (nil selects nothing) with
    the pod's values of matchLabelKeys added."""
    try:
        selector = label_selector_as_selector(c.label_selector)
    except SelectorError:
        return None
    extra = {k: ref.pod.labels[k] for k in c.match_label_keys if k in ref.pod.labels}
    if not extra:
        return selector
    return _AllOf((selector, selector_from_set(extra)))


class _AllOf:
    def __init__(self, parts):
        self.parts = parts

    def matches(self, labels) -> bool:
        return all(p.matches(labels) for p in self.parts)


def _has_selector_or_affinity(ref: PodRef) -> bool:
    spec = ref.doc.get("spec") or {}
    return spec.get("nodeSelector") is not None or ((spec.get("affinity") or {}).get("nodeAffinity")) is not None


def _explicit_priority(ref: PodRef) -> float:
    value = (ref.doc.get("spec") or {}).get("priority")
    return -math.inf if value is None else float(value)


def topology_spread(cycle: Cycle, nodes: Sequence[Node], args: Mapping[str, Any]) -> None:
    """RemovePodsViolatingTopologySpreadConstraint (topologyspreadconstraint.go): per
    namespace, every distinct constraint of its pods whose whenUnsatisfiable is in
    `constraints`; its domains are the nodes' values of the topology key (nodes the
    constraint's nodeAffinityPolicy / nodeTaintsPolicy include); when the largest and the
    smallest domain differ by more than maxSkew, balanceDomains moves pods from the largest
    domains to the smallest (at most half the excess skew, at most the distance to the
    ideal average), taking the last pods of the domain (those with a node selector or
    affinity, and the lower priorities, first in the list) and, with topologyBalanceNodeFit
    (default), only pods that fit a node of a domain below the average."""
    base = _pod_filter(cycle, args, pre=False)
    allowed = set(args.get("constraints") or ("DoNotSchedule",))
    node_fit = args.get("topologyBalanceNodeFit")
    node_fit = True if node_fit is None else bool(node_fit)
    node_map = {n.name: n for n in nodes}
    by_ns: dict[str, list[PodRef]] = defaultdict(list)
    for n in nodes:
        for r in cycle.pods_on(n):
            if base(r):
                by_ns[r.pod.namespace].append(r)
    chosen: dict[str, PodRef] = {}
    for namespace in sorted(by_ns):
        tscs = []
        for ref in by_ns[namespace]:
            for c in ref.pod.topology_spread_constraints:
                if c.when_unsatisfiable not in allowed:
                    continue
                selector = _tsc_selector(c, ref)
                if selector is None:
                    continue
                honor_affinity = (c.node_affinity_policy or "Honor") == "Honor"
                honor_taints = (c.node_taints_policy or "Ignore") == "Honor"
                key = (c.max_skew, c.topology_key, repr((c.label_selector, tuple(sorted(
                    (k, ref.pod.labels[k]) for k in c.match_label_keys if k in ref.pod.labels)))),
                       (ref.pod.node_selector and tuple(sorted(ref.pod.node_selector.items())),
                        repr(ref.pod.affinity.node_affinity.required if ref.pod.affinity and ref.pod.affinity.node_affinity else None))
                       if honor_affinity else None,
                       repr(ref.pod.tolerations) if honor_taints else None)
                if any(t["key"] == key for t in tscs):
                    continue
                tscs.append({"key": key, "c": c, "selector": selector, "pod": ref,
                             "affinity": honor_affinity, "taints": honor_taints})
        for tsc in tscs:
            c = tsc["c"]

            def included(node: Node, tsc=tsc) -> bool:  # matchNodeInclusionPolicies
                if tsc["affinity"] and not pod_matches_node_selector_and_affinity(tsc["pod"].pod, node):
                    return False
                if tsc["taints"] and untolerated_taints(tsc["pod"].pod.tolerations, node.taints, ("NoSchedule", "NoExecute")):
                    return False
                return True
            domains: dict[str, list[PodRef]] = {}
            for n in nodes:
                if c.topology_key in n.labels and included(n):
                    domains.setdefault(n.labels[c.topology_key], [])
            total = 0
            for ref in by_ns[namespace]:
                if is_terminating(ref.doc) or not tsc["selector"].matches(ref.pod.labels):
                    continue
                n = node_map.get(ref.pod.node_name)
                if n is None or c.topology_key not in n.labels:
                    continue
                domains.setdefault(n.labels[c.topology_key], []).append(ref)
                total += 1
            sizes = [len(v) for v in domains.values()]
            if not sizes or max(sizes) - min(sizes) <= c.max_skew:
                continue
            _balance_domains(cycle, chosen, c, domains, total, nodes, included, node_fit)
    exceeded: set[str] = set()
    for ref in chosen.values():
        if ref.pod.node_name in exceeded or not base(ref) or not cycle.pre_eviction_filter(ref):
            continue
        try:
            cycle.evict(ref, P.REMOVE_TOPOLOGY_SPREAD, ref.reason)  # type: ignore[attr-defined]
        except LimitError as exc:
            if exc.scope == "total":
                return
            if exc.scope == "node":
                exceeded.add(ref.pod.node_name)


def _balance_domains(cycle: Cycle, chosen: dict, c, domains: dict[str, list[PodRef]], total: int, nodes, included, node_fit) -> None:
    """balanceDomains."""
    ideal = total / len(domains)
    ordered = []
    for value, pods in domains.items():
        pods = sorted(pods, key=lambda r: (not _has_selector_or_affinity(r), _explicit_priority(r)))
        ordered.append([value, pods])
    ordered.sort(key=lambda d: len(d[1]))
    eligible = [n for n in nodes if included(n)]
    below = {d[0] for d in ordered if len(d[1]) < ideal}
    below_nodes = [n for n in eligible if c.topology_key in n.labels and n.labels[c.topology_key] in below]

    def fits_below(ref: PodRef) -> bool:
        return any(n.name != ref.pod.node_name and cycle.pod_fits_node(ref, n) for n in below_nodes)
    i, j = 0, len(ordered) - 1
    while i < j:
        if len(ordered[j][1]) <= ideal:
            j -= 1
        skew = len(ordered[j][1]) - len(ordered[i][1])
        if skew <= c.max_skew:
            i += 1
            continue
        above_avg = math.ceil(len(ordered[j][1]) - ideal)
        below_avg = math.ceil(ideal - len(ordered[i][1]))
        half_skew = math.ceil((skew - c.max_skew) / 2)
        move = int(min(above_avg, below_avg, half_skew))
        if move <= 0:
            i += 1
            continue
        ordered[j][1] = sorted(ordered[j][1], key=lambda r: fits_below(r))  # those that cannot move first
        to_move = ordered[j][1][len(ordered[j][1]) - move:]
        for ref in to_move:
            if node_fit and not fits_below(ref):
                continue
            if ref.key not in chosen:
                ref.reason = (f"topology spread constraint {c.topology_key} (maxSkew {c.max_skew}, {c.when_unsatisfiable}): "  # type: ignore[attr-defined]
                              f"{len(ordered[j][1])} matching pods in {ordered[j][0]}, {len(ordered[i][1])} in {ordered[i][0]}")
                chosen[ref.key] = ref
        ordered[j][1] = ordered[j][1][:len(ordered[j][1]) - move]
        ordered[i][1] = ordered[i][1] + to_move


PLUGINS: dict[str, Callable] = {
    P.POD_LIFE_TIME: pod_life_time,
    P.TOO_MANY_RESTARTS: too_many_restarts,
    P.REMOVE_FAILED_PODS: remove_failed_pods,
    P.REMOVE_NODE_TAINTS: node_taints,
    P.REMOVE_NODE_AFFINITY: node_affinity,
    P.REMOVE_POD_ANTI_AFFINITY: inter_pod_anti_affinity,
    P.REMOVE_DUPLICATES: remove_duplicates,
    P.LOW_NODE_UTILIZATION: low_node_utilization,
    P.HIGH_NODE_UTILIZATION: high_node_utilization,
    P.REMOVE_TOPOLOGY_SPREAD: topology_spread,
}
