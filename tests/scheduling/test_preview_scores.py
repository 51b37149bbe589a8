"""The what-if preview scores the affected pods against its two caches (the cluster before
and after the edit, each built once; engine.scheduler.node_scores). Its score changes must
be the ones the plain path of the scheduler gives pod by pod: each pod taken off its node,
every node through the predicates and priorities (schedule(..., explain=True, fast=False))."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scheduling import whatif
from scheduling.engine.api.objects import Taint
from scheduling.engine.scheduler.scheduler import TOTAL, run_queue, schedule
from scheduling.explain import infos_without, unbound_copy
from tests.engine.scheduler.test_scheduler_equivalence import POLICIES, random_cluster


def plain_totals(state, policy, pod, seed):
    result = schedule(unbound_copy(pod), state, infos_without(state, {pod.key}), policy, random.Random(seed),
                      explain=True, fast=False)
    avoid = whatif.avoid_pods_weights(policy)
    return {n: (int(s.get(TOTAL, 0)), sum(int(s.get(name, 0)) * w for name, w in avoid.items()))
            for n, s in result.scores.items()}


def best(totals):
    if not totals:
        return ()
    top = max(t for t, _ in totals.values())
    return tuple(n for n, (t, _) in totals.items() if t == top)


@pytest.mark.parametrize("seed, policy_name, effect", [
    (51, "default", "NoExecute"), (52, "everything", "NoExecute"), (53, "default", "NoSchedule"),
    (54, "everything", "PreferNoSchedule"), (55, "combined sample", "NoExecute"),
])
def test_the_preview_scores_are_the_plain_schedulers(seed, policy_name, effect):
    policy = POLICIES[policy_name]()
    before = random_cluster(seed, 12, 160)
    run_queue(before, policy, random.Random(seed), explain=False)
    counts: dict[str, int] = {}
    for pod in before.pods:
        if pod.node_name:
            counts[pod.node_name] = counts.get(pod.node_name, 0) + 1
    busiest = max(counts, key=lambda n: (counts[n], n))
    after = whatif.copy_state(before)
    after.nodes = [dataclasses.replace(n, taints=n.taints + (Taint("bench", "1", effect),)) if n.name == busiest else n
                   for n in before.nodes]
    preview = whatif.preview(before, after, policy, seed=seed)
    assert preview.scores, "the edit changes some scores"
    gone = {e.pod for e in preview.evicted_now}
    state_after = dataclasses.replace(whatif.copy_state(after), pods=[p for p in after.pods if p.key not in gone])
    pods_before = {p.key: p for p in before.pods}
    pods_after = {p.key: p for p in after.pods}
    for scored in preview.scores:
        pod_a = pods_after[scored.pod]
        pod_b = pods_before.get(scored.pod, pod_a)
        totals_b = plain_totals(before, policy, pod_b, seed)
        with_pod = dataclasses.replace(state_after, pods=state_after.pods + ([pod_a] if scored.pod in gone else []))
        totals_a = plain_totals(with_pod, policy, pod_a, seed)
        assert (scored.best_before, scored.best_after) == (best(totals_b), best(totals_a))
        for row in scored.rows:
            assert (row.before, row.before_avoid) == (totals_b[row.node] if row.node in totals_b else (None, 0))
            assert (row.after, row.after_avoid) == (totals_a[row.node] if row.node in totals_a else (None, 0))
        changed = {n for n in set(totals_b) | set(totals_a) if totals_b.get(n) != totals_a.get(n)}
        assert changed <= {row.node for row in scored.rows}
