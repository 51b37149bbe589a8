"""checkServiceAffinity, the configurable `serviceAffinity` predicate (Kubernetes 1.11
`ServiceAffinity.checkServiceAffinity` and its metadata producer).

* The configured labels that the pod's `nodeSelector` already pins take their value from it
  (`FindLabelsInSet`).
* If some are missing, and at least one service in the pod's namespace selects the pod
  (`GetPodServices`: a service without selector selects nothing, an empty selector
  everything), the missing ones are copied from the node of the FIRST existing pod of the
  pod's namespace whose labels contain all of the incoming pod's labels
  (`CreateSelectorFromLabels(pod.Labels)`: a pod without labels matches every pod), among
  the pods of the cycle (`ctx.all_pods()`, node order then pod order; Go's cache order is
  unspecified) minus the pods said to be on the candidate node but not in its NodeInfo
  (`NodeInfo.FilterOutPods`).
* The candidate node must carry every collected label with that value; nothing collected
  means every node fits.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod

NAME = "CheckServiceAffinity"
ERR_SERVICE_AFFINITY_VIOLATED = "node(s) didn't match service affinity"
REASONS = (ERR_SERVICE_AFFINITY_VIOLATED,)

_MEMO = "service_affinity"


def pod_services(pod: Pod, services) -> list:
    """ServiceLister.GetPodServices (1.11)."""
    return [
        s
        for s in services
        if s.namespace == pod.namespace and s.selector is not None and s.selector.matches(pod.labels)
    ]


def _services(pod: Pod, ctx) -> list:
    """serviceAffinityMetadataProducer's services selecting the pod, once per cycle."""
    cached = ctx.memo.get(_MEMO)
    if cached is not None and cached[0] is pod:
        return cached[1]
    services = pod_services(pod, ctx.state.services)
    ctx.memo[_MEMO] = [pod, services, None]
    return services


def _matching_pods(pod: Pod, ctx) -> list:
    """serviceAffinityMetadataProducer's same-namespace pods whose labels include all of the
    pod's labels, once per cycle, and only for a pod some service selects (the predicate
    reads them only then: a pod no service selects needs no walk over every pod)."""
    cached = ctx.memo.get(_MEMO)
    if cached is None or cached[0] is not pod:
        _services(pod, ctx)
        cached = ctx.memo[_MEMO]
    if cached[2] is None:
        wanted = pod.labels.items()
        cached[2] = [
            (info_name, p)
            for info_name, info in ctx.node_infos.items()
            for p in info.pods
            if p.namespace == pod.namespace and all(p.labels.get(k) == v for k, v in wanted)
        ]
    return cached[2]


def _filter_out_pods(matching, info):
    """NodeInfo.FilterOutPods: pods on the candidate node count only if its NodeInfo has them."""
    present = None
    for node_name, p in matching:
        if (p.node_name or node_name) != info.name:
            yield node_name, p
            continue
        if present is None:
            present = {(q.namespace, q.name) for q in info.pods}
        if (p.namespace, p.name) in present:
            yield node_name, p


def _node_labels(ctx, node_name: str):
    info = ctx.node_infos.get(node_name)
    if info is not None:
        return info.node.labels
    for node in ctx.state.nodes:
        if node.name == node_name:
            return node.labels
    return None


def new_service_affinity_predicate(labels: list[str]):
    """A checkServiceAffinity predicate over the given node label names."""
    wanted_labels = tuple(labels)

    def check_service_affinity(pod: Pod, ctx, info) -> tuple[str, ...]:
        affinity = {k: pod.node_selector[k] for k in wanted_labels if k in pod.node_selector}
        if len(wanted_labels) > len(affinity) and _services(pod, ctx):
            first = next(_filter_out_pods(_matching_pods(pod, ctx), info), None)
            if first is not None:
                node_name, existing = first
                node_labels = _node_labels(ctx, existing.node_name or node_name)
                if node_labels is not None:
                    for k in wanted_labels:
                        if k not in affinity and k in node_labels:
                            affinity[k] = node_labels[k]
        node_labels = info.node.labels
        if all(node_labels.get(k) == v and k in node_labels for k, v in affinity.items()):
            return ()
        return (ERR_SERVICE_AFFINITY_VIOLATED,)

    def service_affinity_mask(pod: Pod, ctx, cache):
        """check_service_affinity on every node (engine.scheduler.cache): the first matching pod is
        the first node, in node order, counting one; the nodes that fit are those carrying
        the collected labels. Declines when a pod sits on a NodeInfo its nodeName does not
        name (FilterOutPods would then matter)."""
        affinity = {k: pod.node_selector[k] for k in wanted_labels if k in pod.node_selector}
        if len(wanted_labels) > len(affinity) and cache.services_for(pod):
            if not cache.consistent:
                return None
            first = _first_node_with_matching_pod(pod, cache)
            if first is not None:
                node_labels = cache.infos[first].node.labels
                for k in wanted_labels:
                    if k not in affinity and k in node_labels:
                        affinity[k] = node_labels[k]
        if not affinity:
            return ALL
        return cache.label_mask(tuple(sorted(affinity.items())))

    check_service_affinity.mask = service_affinity_mask
    return check_service_affinity


def _first_node_with_matching_pod(pod: Pod, cache) -> int | None:
    """The index of the first node with a pod of the pod's namespace whose labels include
    all of the pod's labels (what `_matching_pods` lists first)."""
    wanted = tuple(pod.labels.items())
    counts = cache.pod_counts.counts(
        ("service_affinity", pod.namespace, frozenset(wanted)),
        (pod.namespace,),
        lambda namespace, labels: all(labels.get(k) == v for k, v in wanted),
        live_only=False,
    )
    first = int(np.argmax(counts > 0))
    return first if counts[first] > 0 else None
