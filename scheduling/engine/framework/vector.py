"""The fast forms of the default plugins (engine.framework.fast reads them): what each
plugin's Filter and Score give, for every node at once, from the scheduler's cache.

Each form says for which pods it holds and declines (returns None) otherwise; the plugin's
own method is the definition and runs node by node then. Two kinds:

* keys (`filter_key`, `score_key`): the verdict or score of a node depends only on that
  node, its pods and the key; the cache computes it with the plugin itself, once per key
  and node, and again only for nodes whose pods changed (SchedulerCache.node_local);
* vectors (`filter_mask`, `score_vector`, `normalize_vector`): numpy over the cache's node
  arrays (allocatable, requested, non-zero requested, pod count) for NodeResourcesFit and
  NodeResourcesBalancedAllocation, exact in int64 / float64 as the plain code is in Python.

A node that holds a pod with init containers or overhead is computed with the plain code
(the cache's arrays sum regular containers only, as NodeInfo does; the framework adds the
init and overhead part per node): `Extras`.
tests/engine/framework/test_fast_equivalence.py holds the two paths to the same decisions.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from scheduling.engine.api.objects import CPU, MEMORY, Pod
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.plugins import image_locality
from scheduling.engine.framework.plugins import pod_topology_spread as spread
from scheduling.engine.framework.plugins.noderesources import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    pod_requests,
)
from scheduling.engine.scheduler.cache import SchedulerCache


class Forms:
    """The fast forms of one plugin (each optional)."""

    pre_score_vector: Callable[[Any, Any, Pod, SchedulerCache, np.ndarray], Any] | None = None
    filter_key: Callable[[Any, Any, Pod], Any] | None = None
    filter_mask: Callable[[Any, Any, Pod, SchedulerCache], Any] | None = None
    score_key: Callable[[Any, Any, Pod], Any] | None = None
    score_vector: Callable[[Any, Any, Pod, SchedulerCache, np.ndarray], Any] | None = None
    normalize_vector: Callable[[Any, Any, Pod, np.ndarray], Any] | None = None


def _tolerations(plugin, cs, pod: Pod):
    return pod.tolerations


def _node_affinity_required(plugin, cs, pod: Pod):
    affinity = pod.affinity
    required = affinity.node_affinity.required if affinity is not None and affinity.node_affinity is not None else None
    return tuple(sorted(pod.node_selector.items())), required


def _node_affinity_preferred(plugin, cs, pod: Pod):
    affinity = pod.affinity
    return affinity.node_affinity.preferred if affinity is not None and affinity.node_affinity is not None else ()


def _host_ports(plugin, cs, pod: Pod):
    return tuple((p.host_ip, p.protocol, p.host_port) for p in pod.host_ports)


def _images(plugin, cs, pod: Pod):
    return tuple(c.image for c in pod.init_containers + pod.containers)


def _static_filter(key_of):
    """A filter_mask for a plugin whose verdict reads only the Node (not its pods) and what
    `key_of` names of the pod: computed with the plugin once per key for the run."""
    def form(plugin, cs, pod: Pod, cache: SchedulerCache):
        return cache.per_node(("framework-static-filter", plugin.name, key_of(plugin, cs, pod)),
                              lambda info: plugin.filter(cs, pod, info).is_success, dtype=bool)
    return form


def _static_scores(key_of):
    """A score_vector for a plugin whose raw score reads only the Node (not its pods) and
    what `key_of` names of the pod."""
    def form(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
        return cache.per_node(("framework-static-score", plugin.name, key_of(plugin, cs, pod)),
                              lambda info: plugin.score(cs, pod, info))[idx]
    return form


def _image_pre_score(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
    """ImageLocality's PreScore state is only read by its plain Score (static per image
    list, computed once per list by the score vector)."""
    return fw.OK


def _images_on_nodes(cache: SchedulerCache) -> frozenset[str]:
    """Every image name some node reports (kept on the cache: nodes are fixed while it lives)."""
    names = getattr(cache, "framework_images", None)
    if names is None:
        names = cache.framework_images = frozenset(
            image_locality.normalized_image_name(name) for info in cache.infos for image in info.node.images
            for name in image.names)
    return names


def _image_scores(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
    images = _images(plugin, cs, pod)
    if not _images_on_nodes(cache) & {image_locality.normalized_image_name(i) for i in images}:
        # no node has any of the pod's images: every node scores calculatePriority(0)
        return np.full(len(idx), image_locality.calculate_priority(0, len(images)), dtype=np.int64)
    key = ("framework-image-locality", images)
    state: dict = {}  # the plugin's own PreScore state, made once when the key is new

    def one(info) -> int:
        if not state:
            plugin.pre_score(state, pod, ())
        return plugin.score(state, pod, info)

    return cache.per_node(key, one)[idx]


def _node_name(plugin, cs, pod: Pod, cache: SchedulerCache):
    return True if not pod.node_name else None


def go_div_vector(a: np.ndarray, b: int) -> np.ndarray:
    """Go's integer division (truncation toward zero) of every entry of `a` by `b`."""
    q = np.abs(a) // abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def default_normalize(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """helper.DefaultNormalizeScore over an array."""
    max_count = max(int(scores.max()) if len(scores) else 0, 0)
    if max_count == 0:
        return np.full(len(scores), fw.MAX_NODE_SCORE, dtype=np.int64) if reverse else scores
    out = go_div_vector(fw.MAX_NODE_SCORE * scores, max_count)
    return fw.MAX_NODE_SCORE - out if reverse else out


# --- NodeResourcesFit and BalancedAllocation --------------------------------------------------------------


def extras(framework, cache: SchedulerCache) -> np.ndarray:
    """The indexes of the nodes holding a pod with init containers or overhead (kept on the
    framework for its run; the runtime notes the nodes of such pods as it binds them)."""
    known = getattr(framework, "extra_nodes", None)
    if known is None:
        known = framework.extra_nodes = {i for i, info in enumerate(cache.infos)
                                         if any(p.init_containers or p.overhead for p in info.pods)}
    array = getattr(framework, "extra_nodes_array", None)
    if array is None or len(array) != len(known):  # the set only grows
        array = framework.extra_nodes_array = np.fromiter(known, dtype=np.int64, count=len(known))
    return array


def _fit_mask(plugin, cs, pod: Pod, cache: SchedulerCache):
    if not cache.exact:
        return None
    request = pod_requests(pod).fit
    if any(request.scalar.values()):
        return None
    mask = cache.pod_count + 1 <= cache.allowed_pods
    if request.milli_cpu or request.memory or request.ephemeral_storage:
        if request.milli_cpu > 0:
            mask &= request.milli_cpu <= cache.alloc_cpu - cache.req_cpu
        if request.memory > 0:
            mask &= request.memory <= cache.alloc_mem - cache.req_mem
        if request.ephemeral_storage > 0:
            mask &= request.ephemeral_storage <= cache.alloc_eph - cache.req_eph
    framework = plugin.handle.framework
    for i in extras(framework, cache).tolist():
        mask[i] = plugin.filter(cs, pod, cache.infos[i]).is_success
    return mask


def _cpu_memory(scorer) -> bool:
    return scorer.names in ((CPU, MEMORY), (MEMORY, CPU), (CPU,), (MEMORY,))


def _weighted(parts: list[tuple[np.ndarray, np.ndarray, int]]) -> np.ndarray:
    """Σ score × weight over the resources a node has (allocatable > 0), ÷ Σ weight (0 when none)."""
    total = np.zeros(len(parts[0][0]), dtype=np.int64)
    weights = np.zeros(len(parts[0][0]), dtype=np.int64)
    for score, alloc, weight in parts:
        has = alloc != 0
        total += np.where(has, score * weight, 0)
        weights += np.where(has, weight, 0)
    return np.where(weights == 0, 0, total // np.maximum(weights, 1))


def _every_node_has_cpu_and_memory(cache: SchedulerCache) -> bool:
    """No node with zero allocatable cpu or memory (kept on the cache: nodes are fixed
    while it lives); then the scores below need no guard against dividing by zero."""
    known = getattr(cache, "framework_all_allocatable", None)
    if known is None:
        known = cache.framework_all_allocatable = bool(cache.alloc_cpu.all() and cache.alloc_mem.all())
    return known


def _fit_scores(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
    scorer = plugin.scorer
    if plugin.strategy not in (LEAST_ALLOCATED, MOST_ALLOCATED) or not _cpu_memory(scorer) or not cache.exact:
        return None
    r = pod_requests(pod)
    if _every_node_has_cpu_and_memory(cache):
        # leastResourceScorer / mostResourceScorer with every allocatable > 0
        total = 0
        for name, weight in zip(scorer.names, scorer.weights):
            if name == CPU:
                alloc, req = cache.alloc_cpu[idx], cache.nz_cpu[idx] + r.non_zero_cpu
            else:
                alloc, req = cache.alloc_mem[idx], cache.nz_mem[idx] + r.non_zero_memory
            if plugin.strategy == LEAST_ALLOCATED:
                score = np.maximum(alloc - req, 0) * fw.MAX_NODE_SCORE // alloc
            else:
                score = np.minimum(req, alloc) * fw.MAX_NODE_SCORE // alloc
            total = total + score * weight
        scores = total // sum(scorer.weights)
        _plain_on_extras(plugin, cs, pod, cache, idx, scores)
        return scores
    parts = []
    for name, weight in zip(scorer.names, scorer.weights):
        if name == CPU:
            alloc, req = cache.alloc_cpu[idx], cache.nz_cpu[idx] + r.non_zero_cpu
        else:
            alloc, req = cache.alloc_mem[idx], cache.nz_mem[idx] + r.non_zero_memory
        safe = np.maximum(alloc, 1)
        if plugin.strategy == LEAST_ALLOCATED:
            score = np.where((alloc == 0) | (req > alloc), 0, (alloc - req) * fw.MAX_NODE_SCORE // safe)
        else:
            score = np.where(alloc == 0, 0, np.minimum(req, alloc) * fw.MAX_NODE_SCORE // safe)
        parts.append((score, alloc, weight))
    scores = _weighted(parts)
    _plain_on_extras(plugin, cs, pod, cache, idx, scores)
    return scores


def _balanced_scores(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
    scorer = plugin.scorer
    if not _cpu_memory(scorer) or not cache.exact:
        return None
    r = pod_requests(pod)
    if len(scorer.names) == 2 and _every_node_has_cpu_and_memory(cache):
        f0, f1 = ((np.minimum((cache.req_cpu[idx] + r.all.milli_cpu) / cache.alloc_cpu[idx], 1.0) if name == CPU else
                   np.minimum((cache.req_mem[idx] + r.all.memory) / cache.alloc_mem[idx], 1.0)) for name in scorer.names)
        scores = ((1 - np.abs((f0 - f1) / 2)) * fw.MAX_NODE_SCORE).astype(np.int64)
        _plain_on_extras(plugin, cs, pod, cache, idx, scores)
        return scores
    fractions = []
    for name in scorer.names:
        if name == CPU:
            alloc, req = cache.alloc_cpu[idx], cache.req_cpu[idx] + r.all.milli_cpu
        else:
            alloc, req = cache.alloc_mem[idx], cache.req_mem[idx] + r.all.memory
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.minimum(req / np.where(alloc == 0, 1, alloc), 1.0)
        fractions.append((fraction, alloc != 0))
    if len(fractions) == 2:
        (f0, has0), (f1, has1) = fractions
        std = np.where(has0 & has1, np.abs((f0 - f1) / 2), 0.0)
    else:
        std = np.zeros(len(idx))
    scores = ((1 - std) * fw.MAX_NODE_SCORE).astype(np.int64)
    _plain_on_extras(plugin, cs, pod, cache, idx, scores)
    return scores


def _plain_on_extras(plugin, cs, pod, cache: SchedulerCache, idx: np.ndarray, scores: np.ndarray) -> None:
    special = extras(plugin.handle.framework, cache)
    if not len(special):
        return
    for j in np.flatnonzero(np.isin(idx, special)).tolist():
        scores[j] = plugin.score(cs, pod, cache.infos[int(idx[j])])


def _reverse_normalize(plugin, cs, pod, scores):
    return default_normalize(scores, True)


def _normalize(plugin, cs, pod, scores):
    return default_normalize(scores, False)


# --- PodTopologySpread's scoring ------------------------------------------------------------------------

SPREAD_KEY = "PreScoreVector" + spread.NAME


def _spread_pre_score(plugin, cs, pod: Pod, cache: SchedulerCache, idx: np.ndarray):
    """PreScore of PodTopologySpread over the feasible nodes `idx`, its per-node loops as
    arrays: the raw score of every node (cs[SPREAD_KEY]: raw scores and the ignored nodes)."""
    if not cache.n:
        return fw.SKIPPED
    if not pod.topology_spread_constraints and not plugin.default_constraints:
        return fw.SKIPPED
    require_all = bool(pod.topology_spread_constraints) or not plugin.system_defaulted
    try:
        constraints = tuple(plugin.get_constraints(pod, spread.SCHEDULE_ANYWAY))
    except ValueError as e:
        return fw.error(f"calculating preScoreState: {e}")
    if not constraints:
        return fw.SKIPPED
    keys = tuple(c.topology_key for c in constraints)
    codes = [cache.label_codes(key)[0] for key in keys]
    ignored = np.zeros(len(idx), dtype=bool)
    if require_all:
        for c in codes:
            ignored |= c[idx] < 0
    counted = idx[~ignored]
    total = np.zeros(len(idx), dtype=np.float64)
    for i, c in enumerate(constraints):
        node_codes = codes[i]
        counts = cache.pod_counts.counts(("spread", pod.namespace, c.selector), [pod.namespace],
                                         _selector_match(pod.namespace, c.selector), True)
        if c.selector.empty() or c.selector.nothing:
            counts = np.zeros(cache.n, dtype=np.int64)  # countPodsMatchSelector counts nothing
        if c.topology_key == spread.LABEL_HOSTNAME:
            weight = spread.topology_normalizing_weight(len(counted))
            count = counts[idx]
        else:
            # the domains among the nodes scored ("" for a node without the key, when not
            # every key is required), and the matching pods of the eligible nodes per domain
            shifted, size = cache.domain_codes(c.topology_key)
            known = np.bincount(shifted[counted], minlength=size) > 0
            weight = spread.topology_normalizing_weight(int(np.count_nonzero(known)))
            eligible = _eligible(plugin, cache, pod, constraints, i, require_all)
            per_domain = np.bincount(shifted[eligible], weights=counts[eligible], minlength=size).astype(np.int64)
            per_domain[~known] = 0
            count = per_domain[shifted[idx]]
        term = count * weight + (c.max_skew - 1)
        total = np.where(node_codes[idx] < 0, total, total + term)
    raw = np.where(ignored, 0, np.floor(total + 0.5)).astype(np.int64)
    cs[SPREAD_KEY] = (raw, ignored)
    return fw.OK


def _spread_mask(plugin, cs, pod: Pod, cache: SchedulerCache):
    """PodTopologySpread's Filter on every node: each DoNotSchedule constraint's key
    present and the skew of the node's domain within maxSkew."""
    state = cs.get(spread.PREFILTER_KEY)
    if state is None:
        return None
    mask = np.ones(cache.n, dtype=bool)
    for i, c in enumerate(state.constraints):
        codes, values = cache.label_codes(c.topology_key)
        counts = state.tp_value_to_match_num[i]
        per_code = np.zeros(len(values) + 1, dtype=np.int64)
        for value, code in values.items():
            per_code[code] = counts.get(value, 0)
        skew = per_code[codes] + state.self_match[i] - state.min_match_num(i, c.min_domains)
        mask &= (codes >= 0) & (skew <= c.max_skew)
    return mask


def _selector_match(namespace: str, selector):
    return lambda ns, labels: ns == namespace and selector.matches(labels)


def _eligible(plugin, cache: SchedulerCache, pod: Pod, constraints, i: int, require_all: bool) -> np.ndarray:
    """The nodes whose pods count for constraint i (every key present when required, the node
    inclusion policies met): a mask over every node, kept for the run per what it reads."""
    c = constraints[i]
    keys = tuple(x.topology_key for x in constraints) if require_all else ()
    affinity = None
    if c.node_affinity_policy == spread.HONOR:
        a = pod.affinity
        required = a.node_affinity.required if a is not None and a.node_affinity is not None else None
        affinity = (tuple(sorted(pod.node_selector.items())), required)
    tolerations = pod.tolerations if c.node_taints_policy == spread.HONOR else None

    def one(info) -> bool:
        labels = info.node.labels
        if keys and not all(k in labels for k in keys):
            return False
        return c.match_node_inclusion_policies(pod, info.node)

    return cache.per_node(("spread-eligible", keys, c.node_affinity_policy, c.node_taints_policy, affinity, tolerations),
                          one, dtype=bool)


def _spread_scores(plugin, cs, pod, cache: SchedulerCache, idx: np.ndarray):
    state = cs.get(SPREAD_KEY)
    return None if state is None else state[0].copy()


def _spread_normalize(plugin, cs, pod, scores: np.ndarray):
    state = cs.get(SPREAD_KEY)
    if state is None:
        return None
    ignored = state[1]
    counted = scores[~ignored]
    if not len(counted):
        return np.zeros(len(scores), dtype=np.int64)
    low, high = int(counted.min()), max(int(counted.max()), 0)
    if high == 0:
        out = np.full(len(scores), fw.MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = fw.MAX_NODE_SCORE * (high + low - scores) // high
    return np.where(ignored, 0, out)


def _forms(**kwargs) -> Forms:
    forms = Forms()
    for name, value in kwargs.items():
        setattr(forms, name, value)
    return forms


FORMS: dict[str, Forms] = {
    "NodeUnschedulable": _forms(filter_mask=_static_filter(_tolerations)),
    "NodeName": _forms(filter_mask=_node_name),
    "TaintToleration": _forms(filter_mask=_static_filter(_tolerations), score_vector=_static_scores(_tolerations),
                              normalize_vector=_reverse_normalize),
    "NodeAffinity": _forms(filter_mask=_static_filter(_node_affinity_required),
                           score_vector=_static_scores(_node_affinity_preferred), normalize_vector=_normalize),
    "NodePorts": _forms(filter_key=_host_ports),
    "NodeResourcesFit": _forms(filter_mask=_fit_mask, score_vector=_fit_scores),
    "NodeResourcesBalancedAllocation": _forms(score_vector=_balanced_scores),
    "ImageLocality": _forms(pre_score_vector=_image_pre_score, score_vector=_image_scores),
    "PodTopologySpread": _forms(filter_mask=_spread_mask, pre_score_vector=_spread_pre_score, score_vector=_spread_scores,
                                normalize_vector=_spread_normalize),
}
