"""SelectorSpreadPriority and ServiceSpreadingPriority (1.11 `priorities/selector_spreading.go`).

Selectors: every Service, ReplicationController, ReplicaSet and StatefulSet in the pod's
namespace whose selector matches the pod (`getSelectors`); ServiceSpreadingPriority is
registered with empty controller/replica-set/stateful-set listers, so services only.

Map: the node's pods in the pod's namespace, not being deleted (`DeletionTimestamp == nil`),
matching *any* selector; 0 when there are no selectors.
Reduce (over the nodes that passed the filters):

    zoneWeighting = 2.0 / 3.0
    fScore := 10.0
    if maxCountByNodeName > 0 { fScore = 10 * (float64(maxCountByNodeName-count) / float64(maxCountByNodeName)) }
    if haveZones && zoneID != "" {          // zone key: region + ":\\x00:" + zone labels
        zoneScore := 10.0
        if maxCountByZone > 0 { zoneScore = 10 * (float64(maxCountByZone-countsByZone[zoneID]) / float64(maxCountByZone)) }
        fScore = (fScore * (1.0 - zoneWeighting)) + (zoneWeighting * zoneScore)
    }
    score = int(fScore)

`haveZones` is true as soon as one node has a zone key, even if every count is 0.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.priorities.normalize import cached_node_counts, count_pods, live_pods_matching_any

SELECTOR_SPREAD = "SelectorSpreadPriority"
SERVICE_SPREADING = "ServiceSpreadingPriority"
NAME = SELECTOR_SPREAD

ZONE_WEIGHTING = 2.0 / 3.0
LABEL_ZONE_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_ZONE_FAILURE_DOMAIN = "failure-domain.beta.kubernetes.io/zone"
SPREAD_CONTROLLER_KINDS = ("ReplicationController", "ReplicaSet", "StatefulSet")


def zone_key(labels) -> str:
    """utilnode.GetZoneKey."""
    region = labels.get(LABEL_ZONE_REGION, "")
    zone = labels.get(LABEL_ZONE_FAILURE_DOMAIN, "")
    if not region and not zone:
        return ""
    return region + ":\x00:" + zone


def spread_counts(pod, infos, selectors, signature: str, match_memo: dict) -> list[int]:
    """Per node: pods of `pod`'s namespace, not terminating, matching any selector
    (cached per node under `signature`, which names the namespace and the selectors)."""
    if not selectors:
        return [0] * len(infos)
    ns = pod.namespace
    return cached_node_counts(infos, signature, lambda info: count_pods(info, ns, selectors, match_memo, live_only=True))


def zone_keys(infos) -> list[str]:
    """zone_key of each node, cached on its NodeInfo for as long as the Node is the same."""
    out = []
    append = out.append
    for info in infos:
        cache = info.cache
        node = info.node
        entry = cache.get("zone_key")
        if entry is not None and entry[0] is node:
            append(entry[1])
            continue
        key = zone_key(node.labels)
        cache["zone_key"] = (node, key)
        append(key)
    return out


def spread_reduce(infos, counts: list[int]) -> list[int]:
    max_by_node = 0
    for c in counts:
        if c > max_by_node:
            max_by_node = c
    zones = zone_keys(infos)
    by_zone: dict[str, int] = {}
    for zone, count in zip(zones, counts):
        if zone:
            by_zone[zone] = by_zone.get(zone, 0) + count
    max_by_zone = 0
    for c in by_zone.values():
        if c > max_by_zone:
            max_by_zone = c
    have_zones = bool(by_zone)
    scores: dict[tuple[int, str], int] = {}  # the score depends only on (count, zone)
    out = []
    append = out.append
    for zone, count in zip(zones, counts):
        score = scores.get((count, zone))
        if score is None:
            f_score = 10.0
            if max_by_node > 0:
                f_score = 10.0 * (float(max_by_node - count) / float(max_by_node))
            if have_zones and zone:
                zone_score = 10.0
                if max_by_zone > 0:
                    zone_score = 10.0 * (float(max_by_zone - by_zone[zone]) / float(max_by_zone))
                f_score = (f_score * (1.0 - ZONE_WEIGHTING)) + (ZONE_WEIGHTING * zone_score)
            score = scores[(count, zone)] = int(f_score)
        append(score)
    return out


def _selectors(pod, ctx, services_only: bool) -> tuple[list, str, dict]:
    key = "service_spreading" if services_only else "selector_spreading"
    memo = ctx.memo.get(key)
    if memo is None:
        selectors = [s.selector for s in ctx.services_for_pod]
        if not services_only:
            selectors += [c.selector for c in ctx.controllers_for_pod(*SPREAD_CONTROLLER_KINDS)]
        signature = f"spread\x00{pod.namespace}\x00{selectors!r}"
        memo = ctx.memo[key] = (selectors, signature, {})
    return memo


def selector_spread_priority(pod, ctx, infos) -> list[int]:
    selectors, signature, match_memo = _selectors(pod, ctx, services_only=False)
    return spread_reduce(infos, spread_counts(pod, infos, selectors, signature, match_memo))


def service_spreading_priority(pod, ctx, infos) -> list[int]:
    """ServiceSpreadingPriority. 1.11 registers it as a SelectorSpread with only the service
    lister, but its map reads the selectors of the per-cycle priority metadata, which hold
    the services, RCs, RSs and StatefulSets of the pod; so in 1.11 it scores exactly like
    SelectorSpreadPriority, and so does this."""
    selectors, signature, match_memo = _selectors(pod, ctx, services_only=False)
    return spread_reduce(infos, spread_counts(pod, infos, selectors, signature, match_memo))


# --- all nodes at once (engine.scheduler.cache) -------------------------------------------------------------


def _zone_ids(cache) -> tuple[np.ndarray, int]:
    """Per node a number for its zone key (-1 without one), and how many zone keys there are
    (kept while no node's labels change)."""
    entry = cache.by_labels.get("selector_spreading:zones")
    if entry is None:
        numbers: dict[str, int] = {}
        keys = (zone_key(info.node.labels) for info in cache.infos)
        ids = np.fromiter((numbers.setdefault(k, len(numbers)) if k else -1 for k in keys), dtype=np.int64, count=cache.n)
        entry = cache.by_labels["selector_spreading:zones"] = (ids, len(numbers))
    return entry


def spread_reduce_vector(cache, idx: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """spread_reduce over the nodes `idx` with their counts. A node's score depends only
    on its count and its zone: each (count, zone) pair is scored once, in a small table,
    with spread_reduce's float64 operations, and the nodes read their entry."""
    ids, zone_count = _zone_ids(cache)
    columns = ids[idx] + 1  # column 0: no zone
    max_by_node = int(counts.max(initial=0))
    by_zone = np.bincount(columns, weights=counts, minlength=zone_count + 1)[1:]  # sums of ints: exact
    have_zones = int(columns.max(initial=0)) > 0
    values = np.arange(max_by_node + 1)
    if max_by_node > 0:
        f_score = 10.0 * ((max_by_node - values).astype(np.float64) / float(max_by_node))
    else:
        f_score = np.full(1, 10.0)
    table = np.empty((max_by_node + 1, zone_count + 1), dtype=np.float64)
    table[:, 0] = f_score
    if have_zones:
        max_by_zone = by_zone.max()
        zone_score = 10.0 * ((max_by_zone - by_zone) / max_by_zone) if max_by_zone > 0 else np.full(zone_count, 10.0)
        table[:, 1:] = (f_score[:, None] * (1.0 - ZONE_WEIGHTING)) + (ZONE_WEIGHTING * zone_score[None, :])
    else:
        table[:, 1:] = f_score[:, None]
    return table.astype(np.int64).ravel().take(counts * (zone_count + 1) + columns)  # table[counts, columns]


def _selector_spread_vector(pod, ctx, cache, idx):
    selectors = [s.selector for s in cache.services_for(pod)]
    selectors += [c.selector for c in cache.controllers_for(pod, SPREAD_CONTROLLER_KINDS)]
    if selectors:
        counts = live_pods_matching_any(cache, pod.namespace, selectors)[idx]
    else:
        counts = np.zeros(len(idx), dtype=np.int64)
    return spread_reduce_vector(cache, idx, counts)


selector_spread_priority.vector = _selector_spread_vector
service_spreading_priority.vector = _selector_spread_vector  # the same, as the plain ones
