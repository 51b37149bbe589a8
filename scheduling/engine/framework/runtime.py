"""One profile's framework at work: a scheduling cycle for one pod (schedule_one.go's
schedulePod: PreFilter, Filter with nominated pods, PostFilter, PreScore, Score,
NormalizeScore, selectHost) and the queue of a pass (run_queue).

`Framework` holds a profile's plugins, built for one pass over one snapshot (a Handle).
`schedule_one` returns a FrameworkResult, the 1.11 ScheduleResult with the framework's
statuses beside the reasons (which plugin rejected each node, with which code).

Decisions:
* Nodes to find (numFeasibleNodesToFind): as upstream, with `percentageOfNodesToScore`
  (0: adaptive, 50 - nodes/125, at least 5 %, at least 100 nodes). Filtering starts at the
  node after the last one the previous cycle evaluated (nextStartNodeIndex), which the
  caller keeps (`start`) so that a resumed loop evaluates the same nodes.
* With `explain`, every node's filter verdict is computed for the reader; the decision is
  made on the nodes upstream would have evaluated, so explaining changes nothing.
* Ties: selectHost's reservoir sampling picks each tied node with equal chance; we draw
  `rng.randrange(len(tied))` over the tied nodes in node order (only when several tie).
* The queue of a pass: every pending pod of the profile's scheduler in PrioritySort order
  (priority, then the time it entered the queue: its creation, then input order); a pod
  with scheduling gates stays out (PreEnqueue) and gets no event. A pod that fits nowhere
  may be retried in the same pass when a pod bound after it or a preemption makes room,
  as the queue's events move it back (see engine.controllers.scheduling for the events
  between passes). Backoff (1 s doubling to 10 s) is not waited for on the simulated
  clock: a pod moved back is tried at once.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from scheduling.engine.api.objects import Pod
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import CycleState, Handle, Status
from scheduling.engine.framework.plugins import plugin_class
from scheduling.engine.framework.plugins.helper import PRE_FILTER_RESULT_KEY
from scheduling.engine.framework.plugins.pod_index import index_for
from scheduling.engine.framework import fast
from scheduling.engine.framework.result import (
    SCHEDULING_GATED_MESSAGE,
    SCHEDULING_GATED_REASON,
    FrameworkResult,
    fit_error,
    fit_error_message,
)
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.scheduler.preemption import PreemptionResult
from scheduling.engine.scheduler.scheduler import (
    NO_NODES_AVAILABLE,
    TOTAL,
    LazyRandom,
    ScheduleResult,
    is_pending,
    replace_status,
)

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
MAX_ATTEMPTS_PER_RUN = 10

EXTENSION_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                    "reserve", "permit", "preBind", "bind", "postBind")
# extension point -> the method a plugin implements for it
METHODS = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "less",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
}


@dataclass(frozen=True)
class Profile:
    """A KubeSchedulerConfiguration profile after defaulting: the plugins of each extension
    point in order with their score weights, each plugin's args."""

    scheduler_name: str
    plugins: Mapping[str, tuple[tuple[str, int], ...]]  # point -> ((plugin, weight), ...)
    plugin_config: Mapping[str, Mapping[str, Any]]
    percentage_of_nodes_to_score: int | None = None  # None: the configuration's (0: adaptive)

    kind = "framework"  # what the pages and the controller ask a scheduler

    def enabled(self, point: str) -> list[str]:
        return [name for name, _ in self.plugins.get(point, ())]

    def weight(self, name: str) -> int:
        return dict(self.plugins.get("score", ())).get(name, 0)

    @property
    def disable_preemption(self) -> bool:
        return not self.plugins.get("postFilter")

    def to_doc(self) -> dict:
        """The profile as KubeSchedulerConfiguration would print it (its effective plugins)."""
        return {
            "schedulerName": self.scheduler_name,
            "plugins": {point: {"enabled": [{"name": n, **({"weight": w} if point == "score" else {})}
                                            for n, w in self.plugins.get(point, ())]}
                        for point in EXTENSION_POINTS if self.plugins.get(point)},
            "pluginConfig": [{"name": n, "args": dict(a)} for n, a in self.plugin_config.items()],
            **({} if self.percentage_of_nodes_to_score is None
               else {"percentageOfNodesToScore": self.percentage_of_nodes_to_score}),
        }


class Framework:
    """A profile's plugins, made for one snapshot (frameworkImpl)."""

    def __init__(self, profile: Profile, handle: Handle, percentage_of_nodes_to_score: int = 0):
        self.profile = profile
        self.handle = handle
        handle.framework = self
        self.percentage = (profile.percentage_of_nodes_to_score if profile.percentage_of_nodes_to_score is not None
                           else percentage_of_nodes_to_score)
        self.instances: dict[str, fw.Plugin] = {}
        self.points: dict[str, list[fw.Plugin]] = {}
        for point in EXTENSION_POINTS:
            method = METHODS[point]
            plugins = []
            for name in profile.enabled(point):
                plugin = self.plugin(name)
                if hasattr(plugin, method):
                    plugins.append(plugin)
            self.points[point] = plugins
        self.weights = {name: weight for name, weight in profile.plugins.get("score", ())}
        self.normalizers = {p.name for p in self.points["score"] if hasattr(p, "normalize_score")}

    def plugin(self, name: str) -> fw.Plugin:
        plugin = self.instances.get(name)
        if plugin is None:
            plugin = plugin_class(name)(self.profile.plugin_config.get(name), self.handle)
            plugin.name = name
            self.instances[name] = plugin
        return plugin

    # --- the extension points ---------------------------------------------------------------------

    def run_pre_enqueue(self, pod: Pod) -> Status:
        for p in self.points["preEnqueue"]:
            status = p.pre_enqueue(pod)
            if not status.is_success:
                return status.with_plugin(p.name)
        return fw.OK

    def run_pre_filter(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        """RunPreFilterPlugins: a plugin that returns Skip is left out of Filter."""
        return self._run_pre("preFilter", cs.skip_filter, cs, pod, nodes)

    def _run_pre(self, point: str, skipped: set[str], cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        method = METHODS[point]
        for p in self.points[point]:
            status = getattr(p, method)(cs, pod, nodes)
            if status.is_skip:
                skipped.add(p.name)
            elif not status.is_success:
                return status.with_plugin(p.name)
        return fw.OK

    def run_filter(self, cs: CycleState, pod: Pod, info: NodeInfo) -> Status:
        skip = cs.skip_filter
        for p in self.points["filter"]:
            if p.name in skip:
                continue
            status = p.filter(cs, pod, info)
            if not status.is_success:
                return status.with_plugin(p.name)
        return fw.OK

    def add_pod(self, cs: CycleState, pod: Pod, pod_to_add: Pod, info: NodeInfo) -> Status:
        """RunPreFilterExtensionAddPod."""
        return self._extension("add_pod", cs, pod, pod_to_add, info)

    def remove_pod(self, cs: CycleState, pod: Pod, pod_to_remove: Pod, info: NodeInfo) -> Status:
        """RunPreFilterExtensionRemovePod."""
        return self._extension("remove_pod", cs, pod, pod_to_remove, info)

    def _extension(self, method: str, cs: CycleState, pod: Pod, other: Pod, info: NodeInfo) -> Status:
        for p in self.points["preFilter"]:
            if p.name in cs.skip_filter or not hasattr(p, method):
                continue
            status = getattr(p, method)(cs, pod, other, info)
            if not status.is_success:
                return status.with_plugin(p.name)
        return fw.OK

    def run_filter_with_nominated_pods(self, cs: CycleState, pod: Pod, info: NodeInfo) -> Status:
        """RunFilterPluginsWithNominatedPods: with pods of equal or higher priority nominated
        to the node added first (to a clone of the state and of the NodeInfo), then, if
        that passed, without them."""
        waiting = [p for p in self.handle.nominated.get(info.name, ()) if p.key != pod.key and p.priority >= pod.priority]
        if waiting:
            state2 = cs.clone()
            info2 = info.clone()
            for other in waiting:
                added = replace_status(other, node_name=info.name)
                info2.add_pod(added)
                status = self.add_pod(state2, pod, added, info2)
                if not status.is_success:
                    return status
            status = self.run_filter(state2, pod, info2)
            if not status.is_success:
                return status
        return self.run_filter(cs, pod, info)

    def run_post_filter(self, cs: CycleState, pod: Pod, statuses: Mapping[str, Status]):
        """(PreemptionResult or None, the PostFilter message)."""
        messages: list[str] = []
        outcome = None
        for p in self.points["postFilter"]:
            result, status = p.post_filter(cs, pod, statuses)
            if status.is_success:
                return result, ""
            messages.append(status.message)
            if result is not None:
                outcome = result
            if status.code != fw.UNSCHEDULABLE:
                break
        return outcome, ", ".join(m for m in messages if m)

    def run_reserve(self, cs: CycleState, pod: Pod, node: str) -> Status:
        """RunReservePluginsReserve; on a failure every Reserve plugin's Unreserve runs (in
        reverse order) and the attempt fails with that status."""
        for p in self.points["reserve"]:
            status = p.reserve(cs, pod, node)
            if not status.is_success:
                for q in reversed(self.points["reserve"]):
                    if hasattr(q, "unreserve"):
                        q.unreserve(cs, pod, node)
                return status.with_plugin(p.name)
        return fw.OK

    def run_pre_score(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        """RunPreScorePlugins: a plugin that returns Skip is left out of Score."""
        return self._run_pre("preScore", cs.skip_score, cs, pod, nodes)

    def run_score(self, cs: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[dict[str, dict[str, int]], list[int]]:
        """RunScorePlugins: ({node: {plugin: normalized score}}, weighted totals in `nodes` order)."""
        per_node: dict[str, dict[str, int]] = {info.name: {} for info in nodes}
        totals = [0] * len(nodes)
        for p in self.points["score"]:
            if p.name in cs.skip_score:
                continue
            scores = {info.name: p.score(cs, pod, info) for info in nodes}
            if p.name in self.normalizers:
                p.normalize_score(cs, pod, scores)
            weight = self.weights.get(p.name, 1)
            for i, info in enumerate(nodes):
                score = scores[info.name]
                if score > fw.MAX_NODE_SCORE or score < fw.MIN_NODE_SCORE:
                    raise fw.ScoreError(
                        f"plugin {p.name!r} returns an invalid score {score}, it should in the range of "
                        f"[{fw.MIN_NODE_SCORE}, {fw.MAX_NODE_SCORE}] after normalizing")
                per_node[info.name][p.name] = score
                totals[i] += score * weight
        return per_node, totals

    def has_filter_plugins(self) -> bool:
        return bool(self.points["filter"])

    def has_score_plugins(self) -> bool:
        return bool(self.points["score"])

    def num_feasible_nodes_to_find(self, num_all_nodes: int) -> int:
        """numFeasibleNodesToFind."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        percentage = self.percentage or 0
        if percentage == 0:
            percentage = 50 - num_all_nodes // 125
            if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
                percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
        num_nodes = num_all_nodes * percentage // 100
        return max(num_nodes, MIN_FEASIBLE_NODES_TO_FIND)


# --- one cycle -------------------------------------------------------------------------------------


def schedule_one(
    framework: Framework,
    pod: Pod,
    rng,
    *,
    explain: bool = True,
    start: int = 0,
    preemption: bool = True,
    cache: SchedulerCache | None = None,
) -> tuple[FrameworkResult, int]:
    """schedulePod (and, when the pod fits nowhere, the PostFilter plugins), then Reserve on
    the chosen node: the result and the next start index.

    With a `cache` (and without `explain`) the same decisions are made a node vector at a
    time (module engine.framework.fast); without, node by node."""
    result, start, cs = _schedule_pod(framework, pod, rng, explain=explain, start=start, preemption=preemption,
                                      cache=cache)
    if result.node is not None:
        status = framework.run_reserve(cs, pod, result.node)
        if not status.is_success:  # the scheduling cycle fails: the pod waits for a retry
            result.error = result.message = status.message
            result.node = None
    return result, start


def _schedule_pod(
    framework: Framework,
    pod: Pod,
    rng,
    *,
    explain: bool = True,
    start: int = 0,
    preemption: bool = True,
    cache: SchedulerCache | None = None,
) -> tuple[FrameworkResult, int, CycleState | None]:
    """schedulePod (and, when the pod fits nowhere, the PostFilter plugins): the result and
    the next start index.

    With a `cache` (and without `explain`) the same decisions are made a node vector at a
    time (module engine.framework.fast); without, node by node."""
    if cache is not None and not explain:
        done = fast.schedule_one(framework, pod, rng, start=start, preemption=preemption, cache=cache)
        if done is not None:
            return done
    infos = framework.handle.node_infos
    result = FrameworkResult(pod=pod)
    nodes = list(infos.values())
    if not nodes:
        result.message = NO_NODES_AVAILABLE
        return result, start, None
    preemptor = framework.instances.get("DefaultPreemption")
    if preemptor is not None:
        preemptor.rng = rng  # the candidates' offset, drawn only when it matters
    cs = CycleState()
    status = framework.run_pre_filter(cs, pod, nodes)
    if not status.is_success:
        # Every node is rejected with the PreFilter plugin's status.
        result.prefilter_message = status.message
        for info in nodes:
            result.statuses[info.name] = status
            result.filters[info.name] = status.reasons
        return fit_error(framework, cs, pod, result, len(nodes), preemption), start, cs
    candidates = nodes
    allowed, plugins = pre_filter_result(cs)
    if allowed is not None:
        # A PreFilterResult: only these nodes can fit; the others are not evaluated.
        if not allowed:
            status = fw.unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously")
            result.prefilter_message = status.message
            for info in nodes:
                result.statuses[info.name] = status
                result.filters[info.name] = status.reasons
            return fit_error(framework, cs, pod, result, len(nodes), preemption), start, cs
        absent = fw.unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}]")
        candidates = [info for info in nodes if info.name in allowed]
        for info in nodes:
            if info.name not in allowed:
                result.statuses[info.name] = absent

    feasible: list[NodeInfo] = []
    evaluated: list[str] = []
    # A pod nominated by an earlier preemption tries its nominated node first.
    nominated_node = pod.nominated_node_name
    if nominated_node and nominated_node in infos:
        info = infos[nominated_node]
        status = framework.run_filter_with_nominated_pods(cs, pod, info)
        if status.is_success:
            feasible = [info]
            evaluated = [nominated_node]
            result.statuses[nominated_node] = fw.OK
    if not feasible and candidates:
        n = len(candidates)
        to_find = framework.num_feasible_nodes_to_find(n)
        processed = 0
        start %= n
        for i in range(n):
            info = candidates[(start + i) % n]
            processed += 1
            status = framework.run_filter_with_nominated_pods(cs, pod, info) if framework.has_filter_plugins() else fw.OK
            result.statuses[info.name] = status
            evaluated.append(info.name)
            if status.is_success:
                feasible.append(info)
                if len(feasible) >= to_find:
                    break
        start = (start + processed) % n
    result.evaluated = tuple(evaluated)
    if explain:
        for info in nodes:
            if info.name not in result.statuses:
                result.statuses[info.name] = framework.run_filter_with_nominated_pods(cs, pod, info)
        result.statuses = {info.name: result.statuses[info.name] for info in nodes}
        result.domain_counts = _domain_counts(framework, cs)
    for name, status in result.statuses.items():
        result.filters[name] = () if status.is_success else status.reasons
    if not feasible:
        return fit_error(framework, cs, pod, result, len(nodes), preemption), start, cs
    if not explain:
        result.filters = {}
        result.statuses = {}
    if len(feasible) == 1:
        result.node = feasible[0].name
        result.tied = (result.node,)
        if explain:
            result.scores = _scores_for_reader(framework, cs, pod, feasible)
        return result, start, cs
    result.prioritized = True
    try:
        status = framework.run_pre_score(cs, pod, feasible)
        if not status.is_success:
            raise fw.ScoreError(status.message)
        if framework.has_score_plugins():
            per_node, totals = framework.run_score(cs, pod, feasible)
        else:
            per_node, totals = {info.name: {} for info in feasible}, [1] * len(feasible)
    except fw.ScoreError as e:
        result.prioritized = False
        result.error = result.message = str(e)
        return result, start, cs
    best = max(totals)
    tied = [info.name for info, total in zip(feasible, totals) if total == best]
    if len(tied) > 1:
        order = {name: i for i, name in enumerate(infos)}
        tied.sort(key=order.__getitem__)
        result.node = tied[rng.randrange(len(tied))]
    else:
        result.node = tied[0]
    if explain:
        result.tied = tuple(tied)
        result.scores = {info.name: {**per_node[info.name], TOTAL: total} for info, total in zip(feasible, totals)}
    return result, start, cs


def pre_filter_result(cs: CycleState) -> tuple[frozenset | None, list[str]]:
    """The PreFilterResult the PreFilter plugins left (the intersection of their node
    sets; None: every node) and the plugins that restricted the nodes, sorted."""
    results = cs.get(PRE_FILTER_RESULT_KEY)
    if not results:
        return None, []
    allowed = None
    for names in results.values():
        allowed = names if allowed is None else allowed & names
    return allowed, sorted(results)


def _scores_for_reader(framework: Framework, cs: CycleState, pod: Pod, feasible: list[NodeInfo]) -> dict:
    """The scores of a single feasible node (upstream does not score it: shown, deciding nothing)."""
    try:
        cs2 = cs.clone()
        if not framework.run_pre_score(cs2, pod, feasible).is_success:
            return {}
        per_node, totals = framework.run_score(cs2, pod, feasible) if framework.has_score_plugins() else (
            {feasible[0].name: {}}, [1])
    except fw.ScoreError:
        return {}
    return {info.name: {**per_node[info.name], TOTAL: total} for info, total in zip(feasible, totals)}


def _domain_counts(framework: Framework, cs: CycleState) -> dict[str, dict[str, int]]:
    plugin = framework.instances.get("PodTopologySpread")
    counts = getattr(plugin, "domain_counts", None)
    if counts is None or "PodTopologySpread" in cs.skip_filter:
        return {}
    try:
        return counts(cs) or {}
    except (KeyError, AttributeError):
        return {}


# --- the queue ---------------------------------------------------------------------------------------


def run_queue(
    state: ClusterState,
    profile: Profile,
    rng: random.Random | None,
    preemption: bool = True,
    *,
    scheduler_name: str | None = None,
    now: float = 0.0,
    explain: bool = True,
    node_infos: dict[str, NodeInfo] | None = None,
    rng_for_attempt: Callable[[Pod, int], random.Random] | None = None,
    pending: Iterable[int] | None = None,
    start: int = 0,
    namespace_labels: Mapping[str, Mapping[str, str]] | None = None,
    percentage_of_nodes_to_score: int = 0,
    fast_path: bool = True,
    **_ignored,
) -> tuple[list[FrameworkResult], int]:
    """Schedule every pending pod of the profile's scheduler in PrioritySort order; one
    result per attempt, and the next start index. Updates `state.pods` and the NodeInfos
    in place as engine.scheduler.scheduler.run_queue does (binds, nominations, victims'
    deletionTimestamp)."""
    scheduler_name = scheduler_name or profile.scheduler_name
    infos = node_infos if node_infos is not None else state.node_infos()
    nominated: dict[str, list[Pod]] = defaultdict(list)
    handle = Handle(state=state, node_infos=infos, nominated=nominated, namespace_labels=namespace_labels or {})
    framework = Framework(profile, handle, percentage_of_nodes_to_score)
    preemption = preemption and not profile.disable_preemption

    candidates: Iterable[int] = range(len(state.pods)) if pending is None else sorted(pending)
    index: dict[str, int] = {}
    heap: list[tuple[int, int, str]] = []
    results: list[FrameworkResult] = []
    for i in candidates:
        pod = state.pods[i]
        if not is_pending(pod, scheduler_name):
            continue
        index[pod.key] = i
        if pod.nominated_node_name:
            nominated[pod.nominated_node_name].append(pod)
        gate = framework.run_pre_enqueue(pod)
        if not gate.is_success:
            held = FrameworkResult(pod=pod, gated=True, message=SCHEDULING_GATED_MESSAGE, time=now)
            results.append(held)
            continue
        heap.append((-pod.priority, i, pod.key))
    heapq.heapify(heap)
    cache = SchedulerCache(infos, state) if fast_path and not explain and heap and infos else None
    if cache is not None:
        # The plugins' pod index (engine.framework.plugins.pod_index) hears of every change
        # through the cache, which observes the NodeInfos from here on (binds and victims).
        cache.forward = index_for(handle, list(infos.values())).observer
        cache.attach()
    queue = _Queue(framework, state, index, heap, nominated, cache, start)
    try:
        queue.drain(rng, rng_for_attempt, explain, preemption, now, results)
    finally:
        if cache is not None:
            cache.detach()
    return results, queue.start


class _Queue:
    """One pass of the scheduling queue: the active queue (a heap in PrioritySort order),
    the pods held unschedulable in this pass, the nominated pods, and the next start index."""

    def __init__(self, framework: Framework, state: ClusterState, index: dict[str, int], heap: list,
                 nominated: dict[str, list[Pod]], cache: SchedulerCache | None, start: int):
        self.framework, self.state, self.index, self.heap = framework, state, index, heap
        self.nominated, self.cache, self.start = nominated, cache, start
        self.infos = framework.handle.node_infos
        self.unschedulable: set[str] = set()
        self.attempts: Counter[str] = Counter()

    def current(self, key: str) -> Pod:
        return self.state.pods[self.index[key]]

    def update(self, pod: Pod) -> None:
        self.state.pods[self.index[pod.key]] = pod

    def set_nomination(self, pod: Pod, node: str) -> Pod:
        nominated = self.nominated
        if pod.nominated_node_name:
            nominated[pod.nominated_node_name] = [p for p in nominated[pod.nominated_node_name] if p.key != pod.key]
        pod = replace_status(pod, nominated_node_name=node)
        if node:
            nominated[node].append(pod)
        self.update(pod)
        return pod

    def requeue(self, keys) -> None:
        """Move pods held unschedulable back to the active queue (at most MAX_ATTEMPTS_PER_RUN tries each)."""
        for key in sorted(keys, key=self.index.__getitem__):
            self.unschedulable.discard(key)
            if self.attempts[key] < MAX_ATTEMPTS_PER_RUN:
                heapq.heappush(self.heap, (-self.current(key).priority, self.index[key], key))

    def drain(self, rng, rng_for_attempt, explain: bool, preemption: bool, now: float, results: list) -> None:
        """Pop, schedule, bind or nominate; move back what a bind may help."""
        while self.heap:
            _, _, key = heapq.heappop(self.heap)
            pod = self.current(key)
            if pod.node_name:
                continue
            self.attempts[key] += 1
            draw = rng if rng_for_attempt is None else LazyRandom(rng_for_attempt, pod, self.attempts[key])
            result, self.start = schedule_one(self.framework, pod, draw, explain=explain, start=self.start,
                                              preemption=preemption, cache=self.cache)
            result.time = now
            results.append(result)
            if result.node is not None:
                self.bind(pod, result.node)
            else:
                self.unschedulable.add(key)
                if result.preemption is not None:
                    self.preempted(pod, result.preemption, now)

    def bind(self, pod: Pod, node: str) -> None:
        if pod.nominated_node_name:
            pod = self.set_nomination(pod, "")
        bound = replace_status(pod, node_name=node, phase="Running")
        self.infos[node].add_pod(bound)
        extra = getattr(self.framework, "extra_nodes", None)
        if extra is not None and self.cache is not None and (bound.init_containers or bound.overhead):
            extra.add(self.cache.index[node])  # the vector forms compute this node the plain way
        self.update(bound)
        # AssignedPod/Add: a pod that InterPodAffinity or PodTopologySpread rejected may now fit.
        if self.unschedulable:
            self.requeue([k for k in self.unschedulable if _may_help(bound, self.current(k))])

    def preempted(self, pod: Pod, outcome: PreemptionResult, now: float) -> None:
        """The preemptor nominated to the freed node, its victims terminating, the lower
        pods nominated there sent back to the queue."""
        if outcome.nominated_node is None:
            if outcome.clear_nomination and pod.nominated_node_name:
                self.set_nomination(pod, "")
            return
        self.set_nomination(pod, outcome.nominated_node)
        info = self.infos[outcome.nominated_node]
        for victim in outcome.victims:
            since = victim.deletion_timestamp if victim.is_terminating else now
            terminating = replace_status(victim, deletion_timestamp=since)
            info.replace_pod(victim, terminating)
            if victim.key in self.index or _find(self.state, victim.key, self.index):
                self.update(terminating)
        for lower in outcome.lower_priority_nominated:
            if lower.key in self.index:
                self.set_nomination(self.current(lower.key), "")
                if lower.key in self.unschedulable:
                    self.requeue([lower.key])


def _find(state: ClusterState, key: str, index: dict[str, int]) -> bool:
    for i, pod in enumerate(state.pods):
        if pod.key == key:
            index[key] = i
            return True
    return False


def _may_help(bound: Pod, waiting: Pod) -> bool:
    """Whether binding `bound` could make `waiting` schedulable (InterPodAffinity's and
    PodTopologySpread's AssignedPod/Add events): a waiting pod in the same namespace with
    topology spread constraints or required pod affinity."""
    if waiting.namespace != bound.namespace:
        affinity = waiting.affinity
        return bool(affinity and affinity.pod_affinity and affinity.pod_affinity.required)
    if waiting.topology_spread_constraints:
        return True
    affinity = waiting.affinity
    return bool(affinity and affinity.pod_affinity and affinity.pod_affinity.required)


def last_results(results: Iterable[ScheduleResult]) -> dict[str, ScheduleResult]:
    last: dict[str, ScheduleResult] = {}
    for r in results:
        last[r.pod.key] = r
    return last


__all__ = ["Framework", "FrameworkResult", "Profile", "SCHEDULING_GATED_MESSAGE", "SCHEDULING_GATED_REASON",
           "fit_error_message", "run_queue", "schedule_one", "PreemptionResult"]
