"""Every priority scores a node 0..MaxPriority (schedulerapi.MaxPriority, what MaxWeight is
derived from): the fast path adds the weighted scores in int64 on that bound alone unless
the weights come near MaxWeight."""

from __future__ import annotations

import random

import pytest

from scheduling.engine.scheduler.policy import MAX_PRIORITY
from scheduling.engine.scheduler.scheduler import TOTAL, run_queue
from tests.engine.scheduler.test_scheduler_equivalence import POLICIES, random_cluster


@pytest.mark.parametrize("seed, policy_name, options", [
    (71, "everything", {}), (72, "default", {}), (73, "combined sample", {}), (74, "modified sample", {}),
    (75, "everything, all predicates checked", {}), (76, "everything", {"huge_node": True}),
])
def test_every_raw_score_is_between_zero_and_max_priority(seed, policy_name, options):
    state = random_cluster(seed, 20, 200, **options)
    results = run_queue(state, POLICIES[policy_name](), random.Random(seed), True, explain=True, fast=False)
    raws = [score for r in results for row in r.scores.values() for name, score in row.items() if name != TOTAL]
    assert raws and all(0 <= score <= MAX_PRIORITY for score in raws)
