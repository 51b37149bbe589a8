"""Condition lists of OpenShift objects (ClusterVersion, ClusterOperator, MachineConfigPool):
set one condition, keeping lastTransitionTime while the status does not change."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.store import time_value


def find(conditions: Iterable[Mapping[str, Any]] | None, type_: str) -> Mapping[str, Any] | None:
    for c in conditions or ():
        if c.get("type") == type_:
            return c
    return None


def is_true(conditions, type_: str) -> bool:
    c = find(conditions, type_)
    return c is not None and c.get("status") == "True"


def set_condition(conditions: list[dict], type_: str, status: str, reason: str, message: str, now: float) -> list[dict]:
    """A new list with the condition set (appended when missing)."""
    out = [dict(c) for c in conditions or ()]
    for c in out:
        if c.get("type") == type_:
            if c.get("status") != status:
                c["lastTransitionTime"] = time_value(now)
            c.update(status=status, reason=reason, message=message)
            return out
    out.append({"type": type_, "status": status, "lastTransitionTime": time_value(now), "reason": reason, "message": message})
    return out


def remove(conditions: list[dict], type_: str) -> list[dict]:
    return [dict(c) for c in conditions or () if c.get("type") != type_]
