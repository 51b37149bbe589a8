"""PrioritySort (pkg/scheduler/framework/plugins/queuesort): the activeQ's order, the
pod with the higher priority first, between equals the one queued earlier."""

from __future__ import annotations

from scheduling.engine.framework.interface import Plugin


def less(a_priority: int, a_time: float, b_priority: int, b_time: float) -> bool:
    """PrioritySort.Less: `p1 > p2 || (p1 == p2 && t1.Before(t2))`."""
    return a_priority > b_priority or (a_priority == b_priority and a_time < b_time)


class PrioritySort(Plugin):
    name = "PrioritySort"

    @staticmethod
    def less(a_priority: int, a_time: float, b_priority: int, b_time: float) -> bool:
        return less(a_priority, a_time, b_priority, b_time)

    @staticmethod
    def sort_key(priority: int, time: float) -> tuple:
        """A key giving the same order as `less` (for sorted() and heaps)."""
        return (-priority, time)
