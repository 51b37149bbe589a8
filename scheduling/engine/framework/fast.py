"""The framework's scheduling cycle a node vector at a time: the same decisions as
`runtime.schedule_one` node by node, with the scheduler's cache (engine.scheduler.cache:
node arrays, node-local results kept across cycles and refreshed only where pods changed,
pod counts by selector).

A plugin offers fast forms next to its plain methods (the plain method stays the
definition; a form may decline by returning None, and then the plain method runs node by
node on the nodes still in the running):

* `filter_key(cs, pod)`: a hashable key such that the plugin's Filter verdict on a node
  depends only on that node (its Node and its pods) and the key. The verdicts are computed
  with `filter` itself, once per key and node, and again only for nodes whose pods changed.
* `filter_mask(cs, pod, cache)`: where Filter passes, every node at once (a bool array).
* `score_key(cs, pod)`: the same for the raw Score of a node.
* `score_vector(cs, pod, cache, idx)`: the raw scores of the nodes `idx` (int64 array).
* `normalize_vector(cs, pod, scores)`: NormalizeScore on an int64 array, in place or returned.

Sampling (numFeasibleNodesToFind) is computed from the full verdicts: the first nodes that
pass, from the start index round the ring, as the node-by-node loop finds them. A node
with other pods nominated to it is checked with the plain
RunFilterPluginsWithNominatedPods. When no node fits, the statuses are computed node by
node (the message and preemption read them). tests/engine/framework/test_fast_equivalence.py
requires identical results from both paths on generated clusters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scheduling.engine.api.objects import Pod
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework import vector
from scheduling.engine.framework.interface import CycleState
from scheduling.engine.framework.plugins.helper import PRE_FILTER_RESULT_KEY
from scheduling.engine.framework.result import FrameworkResult, fit_error
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.scheduler import NO_NODES_AVAILABLE, TOTAL

# `framework` below is an engine.framework.runtime.Framework (which imports this module).
Framework = Any


def _nodes(cache: SchedulerCache, nodes) -> list:
    return cache.infos[nodes] if isinstance(nodes, slice) else [cache.infos[i] for i in nodes.tolist()]


def _form(plugin, name: str):
    """The plugin's own fast form `name`, else the one engine.framework.vector has for it
    (both called with the same arguments, the plugin first); looked up once per plugin."""
    forms = plugin.__dict__.get("fast_forms")
    if forms is None:
        forms = plugin.__dict__["fast_forms"] = {}
    if name in forms:
        return forms[name]
    own = getattr(plugin, name, None)
    if own is not None:
        form = forms[name] = lambda _plugin, *args: own(*args)
        return form
    known = vector.FORMS.get(plugin.name)
    form = forms[name] = getattr(known, name, None) if known is not None else None
    return form


def plugin_mask(plugin, cs: CycleState, pod: Pod, cache: SchedulerCache) -> np.ndarray | None:
    form = _form(plugin, "filter_mask")
    if form is not None:
        mask = form(plugin, cs, pod, cache)
        if mask is not None:
            return mask
    key_of = _form(plugin, "filter_key")
    if key_of is not None:
        key = key_of(plugin, cs, pod)
        if key is not None:
            def compute(nodes):
                infos = _nodes(cache, nodes)
                return np.fromiter((plugin.filter(cs, pod, info).is_success for info in infos), dtype=bool, count=len(infos))

            return cache.node_local(("framework-filter", plugin.name, key), compute,
                                    lambda info: plugin.filter(cs, pod, info).is_success)
    return None


def plugin_scores(plugin, cs: CycleState, pod: Pod, cache: SchedulerCache, idx: np.ndarray) -> np.ndarray:
    form = _form(plugin, "score_vector")
    if form is not None:
        scores = form(plugin, cs, pod, cache, idx)
        if scores is not None:
            return np.asarray(scores, dtype=np.int64)
    key_of = _form(plugin, "score_key")
    if key_of is not None:
        key = key_of(plugin, cs, pod)
        if key is not None:
            def compute(nodes):
                infos = _nodes(cache, nodes)
                return np.fromiter((plugin.score(cs, pod, info) for info in infos), dtype=np.int64, count=len(infos))

            return cache.node_local(("framework-score", plugin.name, key), compute,
                                    lambda info: plugin.score(cs, pod, info))[idx]
    infos = cache.infos
    return np.fromiter((plugin.score(cs, pod, infos[i]) for i in idx.tolist()), dtype=np.int64, count=len(idx))


def feasible(framework: Framework, cs: CycleState, pod: Pod, cache: SchedulerCache, start: int,
             to_find: int) -> tuple[list[int], int]:
    """(the indexes of the nodes found feasible, in the order the loop finds them; how many
    nodes the loop processed)."""
    n = cache.n
    mask = np.ones(n, dtype=bool)
    slow = []
    for plugin in framework.points["filter"]:
        if plugin.name in cs.skip_filter:
            continue
        m = plugin_mask(plugin, cs, pod, cache)
        if m is None:
            slow.append(plugin)
        elif m is not True:
            mask &= m
    plain: dict[int, bool] = {}
    for name, waiting in framework.handle.nominated.items():
        i = cache.index.get(name)
        if i is not None and any(p.key != pod.key for p in waiting):
            plain[i] = framework.run_filter_with_nominated_pods(cs, pod, cache.infos[i]).is_success
            mask[i] = plain[i]
    order = np.concatenate((np.arange(start, n, dtype=np.int64), np.arange(0, start, dtype=np.int64)))
    positions = np.flatnonzero(mask[order])
    found: list[int] = []
    if not slow:
        take = positions[:to_find]
        found = order[take].tolist()
        processed = int(take[-1]) + 1 if len(take) >= to_find else n
        return found, processed
    infos = cache.infos
    for pos in positions.tolist():
        i = int(order[pos])
        if i not in plain and not all(p.filter(cs, pod, infos[i]).is_success for p in slow):
            continue
        found.append(i)
        if len(found) >= to_find:
            return found, pos + 1
    return found, n


def schedule_one(framework: Framework, pod: Pod, rng, *, start: int, preemption: bool,
                 cache: SchedulerCache) -> tuple[FrameworkResult, int, CycleState | None] | None:
    result = FrameworkResult(pod=pod)
    infos = cache.infos
    n = cache.n
    if not n:
        result.message = NO_NODES_AVAILABLE
        return result, start, None
    preemptor = framework.instances.get("DefaultPreemption")
    if preemptor is not None:
        preemptor.rng = rng
    nodes = list(infos)
    cs = CycleState()
    status = framework.run_pre_filter(cs, pod, nodes)
    if status.is_success and cs.get(PRE_FILTER_RESULT_KEY):
        return None  # a PreFilterResult restricts the nodes: the node-by-node cycle takes it
    if not status.is_success:
        result.prefilter_message = status.message
        for info in nodes:
            result.statuses[info.name] = status
            result.filters[info.name] = status.reasons
        return fit_error(framework, cs, pod, result, n, preemption), start, cs
    chosen: list[int] = []
    nominated_node = pod.nominated_node_name
    if nominated_node and nominated_node in cache.index:
        i = cache.index[nominated_node]
        if framework.run_filter_with_nominated_pods(cs, pod, infos[i]).is_success:
            chosen = [i]
            result.evaluated = (nominated_node,)
    if not chosen:
        chosen, processed = feasible(framework, cs, pod, cache, start, framework.num_feasible_nodes_to_find(n))
        start = (start + processed) % n
    if not chosen:
        for info in nodes:  # the reasons, for the message and preemption
            st = framework.run_filter_with_nominated_pods(cs, pod, info)
            result.statuses[info.name] = st
            result.filters[info.name] = () if st.is_success else st.reasons
        return fit_error(framework, cs, pod, result, n, preemption), start, cs
    if len(chosen) == 1:
        result.node = infos[chosen[0]].name
        result.tied = (result.node,)
        return result, start, cs
    result.prioritized = True
    feasible_infos = [infos[i] for i in chosen]
    idx = np.array(chosen, dtype=np.int64)
    try:
        status = pre_score(framework, cs, pod, cache, idx, feasible_infos)
        if not status.is_success:
            raise fw.ScoreError(status.message)
        totals = scores(framework, cs, pod, cache, idx)
    except fw.ScoreError as e:
        result.prioritized = False
        result.error = result.message = str(e)
        return result, start, cs
    tied = np.sort(idx[totals == totals.max()]).tolist()
    result.node = infos[tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]].name
    return result, start, cs


def pre_score(framework: Framework, cs: CycleState, pod: Pod, cache: SchedulerCache, idx: np.ndarray,
              infos: list) -> fw.Status:
    """RunPreScorePlugins, with a plugin's vector PreScore where it has one."""
    for plugin in framework.points["preScore"]:
        form = _form(plugin, "pre_score_vector")
        status = form(plugin, cs, pod, cache, idx) if form is not None else plugin.pre_score(cs, pod, infos)
        if status.is_skip:
            cs.skip_score.add(plugin.name)
        elif not status.is_success:
            return status.with_plugin(plugin.name)
    return fw.OK


def scores(framework: Framework, cs: CycleState, pod: Pod, cache: SchedulerCache, idx: np.ndarray) -> np.ndarray:
    """RunScorePlugins over the nodes `idx`: the weighted totals."""
    totals = np.zeros(len(idx), dtype=np.int64)
    if not framework.has_score_plugins():
        return totals + 1
    names = None
    for plugin in framework.points["score"]:
        if plugin.name in cs.skip_score:
            continue
        raw = plugin_scores(plugin, cs, pod, cache, idx)
        if plugin.name in framework.normalizers:
            form = _form(plugin, "normalize_vector")
            if form is not None:
                normalized = form(plugin, cs, pod, raw)
                raw = raw if normalized is None else np.asarray(normalized, dtype=np.int64)
            else:
                if names is None:
                    names = [cache.infos[i].name for i in idx.tolist()]
                by_node = dict(zip(names, raw.tolist()))
                plugin.normalize_score(cs, pod, by_node)
                raw = np.fromiter(by_node.values(), dtype=np.int64, count=len(by_node))
        high, low = (int(raw.max()), int(raw.min())) if len(raw) else (0, 0)
        if high > fw.MAX_NODE_SCORE or low < fw.MIN_NODE_SCORE:
            bad = high if high > fw.MAX_NODE_SCORE else low
            raise fw.ScoreError(f"plugin {plugin.name!r} returns an invalid score {bad}, it should in the range of "
                                f"[{fw.MIN_NODE_SCORE}, {fw.MAX_NODE_SCORE}] after normalizing")
        totals += raw * framework.weights.get(plugin.name, 1)
    return totals


__all__ = ["feasible", "plugin_mask", "plugin_scores", "schedule_one", "scores", "TOTAL"]
