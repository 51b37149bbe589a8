"""ServiceAntiAffinity, the `serviceAntiAffinity` argument (1.11 `priorities/selector_spreading.go`).

Only the *first* service selecting the pod counts (`getFirstServiceSelector`).
Map: the node's pods in the pod's namespace, not being deleted, matching that service's
selector (0 everywhere when no service selects the pod).
Reduce, over the nodes that passed the filters:

    numServicePods = sum of the map counts
    podCounts[value] = sum of the map counts of the nodes whose label has that value
    node without the label -> 0
    otherwise fScore = 10.0; if numServicePods > 0 {
        fScore = 10 * (float64(numServicePods-podCounts[value]) / float64(numServicePods)) }
    score = int(fScore)
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.priorities.normalize import cached_node_counts, count_pods, live_pods_matching_any

NAME = "ServiceAntiAffinity"


def _first_service(pod, ctx):
    memo = ctx.memo.get("service_anti_affinity")
    if memo is None:
        services = ctx.services_for_pod
        selector = services[0].selector if services else None
        memo = ctx.memo["service_anti_affinity"] = (selector, f"service\x00{pod.namespace}\x00{selector!r}", {})
    return memo


def new_service_anti_affinity_priority(label: str):
    def service_anti_affinity_priority(pod, ctx, infos) -> list[int]:
        selector, signature, match_memo = _first_service(pod, ctx)
        if selector is None:
            counts = [0] * len(infos)
        else:
            ns = pod.namespace
            selectors = (selector,)
            counts = cached_node_counts(
                infos, signature, lambda info: count_pods(info, ns, selectors, match_memo, live_only=True)
            )
        num_service_pods = 0
        by_value: dict[str, int] = {}
        values = []
        for info, count in zip(infos, counts):
            num_service_pods += count
            value = info.node.labels.get(label)
            values.append(value)
            if value is not None:
                by_value[value] = by_value.get(value, 0) + count
        out = []
        for value in values:
            if value is None:
                out.append(0)
                continue
            f_score = 10.0
            if num_service_pods > 0:
                f_score = 10.0 * (float(num_service_pods - by_value[value]) / float(num_service_pods))
            out.append(int(f_score))
        return out

    def service_anti_affinity_vector(pod, ctx, cache, idx):
        """service_anti_affinity_priority on the nodes `idx` at once (engine.scheduler.cache)."""
        services = cache.services_for(pod)
        if services:
            counts = live_pods_matching_any(cache, pod.namespace, (services[0].selector,))[idx]
        else:
            counts = np.zeros(len(idx), dtype=np.int64)
        codes, values = cache.label_codes(label)
        columns = codes[idx] + 1  # 0: no label
        # A node's score depends only on its label value: score each value once.
        num_service_pods = int(counts.sum())
        if num_service_pods > 0:
            by_value = np.bincount(columns, weights=counts, minlength=len(values) + 1)  # sums of ints: exact
            table = (10.0 * ((num_service_pods - by_value) / float(num_service_pods))).astype(np.int64)
        else:
            table = np.full(len(values) + 1, 10, dtype=np.int64)
        table[0] = 0  # a node without the label
        return table[columns]

    service_anti_affinity_priority.vector = service_anti_affinity_vector
    service_anti_affinity_priority.label = label
    return service_anti_affinity_priority
