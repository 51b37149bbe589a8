"""EqualPriority (1.11 `core.EqualPriorityMap`): every node scores 1."""

from __future__ import annotations

NAME = "EqualPriority"


def equal_priority(pod, ctx, infos) -> list[int]:
    return [1] * len(infos)


equal_priority.static_key = lambda pod: None  # the same everywhere (engine.scheduler.cache)
