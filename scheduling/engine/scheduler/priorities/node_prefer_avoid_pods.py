"""NodePreferAvoidPodsPriority (1.11 `priorities/node_prefer_avoid_pods.go`).

Only a pod whose *controller* owner reference is a ReplicationController or a ReplicaSet
is affected: it scores 0 on a node whose `scheduler.alpha.kubernetes.io/preferAvoidPods`
annotation lists a `podSignature.podController` with the same kind and UID, 10 elsewhere.
Every other pod (no controller, Deployment-less bare pods, StatefulSet, DaemonSet, Job...)
scores 10 everywhere. An annotation Go's `json.Unmarshal` would reject scores 10
("If we cannot get annotation, assume it's schedulable there"). No reduce.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np

NAME = "NodePreferAvoidPodsPriority"
PREFER_AVOID_PODS_ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods"
AFFECTED_KINDS = ("ReplicationController", "ReplicaSet")


class _Invalid(Exception):
    """What json.Unmarshal into v1.AvoidPods would return an error for."""


class _Obj(list):
    """A decoded JSON object: its (key, value) pairs in document order."""


def _reject_constant(name: str):
    raise _Invalid(name)  # NaN, Infinity: not JSON for Go


def _fields(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """Go decodes a JSON object into a struct matching keys case-insensitively, the last
    duplicate winning; `null` leaves the zero value. A non-object is a type error."""
    if obj is None:
        return {}
    if not isinstance(obj, _Obj):
        raise _Invalid("not an object")
    folded = {n.casefold(): n for n in names}
    out: dict[str, Any] = {}
    for key, value in obj:
        name = folded.get(key.casefold())
        if name is not None:
            out[name] = value
    return out


def _string(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Invalid("not a string")
    return value


def _bool(value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise _Invalid("not a bool")


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _time(value: Any) -> None:
    """metav1.Time.UnmarshalJSON: null, or a string `time.Parse(time.RFC3339, s)` accepts."""
    if value is None:
        return
    m = _RFC3339.fullmatch(_string(value))
    if m is None:
        raise _Invalid("not RFC3339")
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    try:
        datetime(y, mo, d, h, mi, s)
    except ValueError as e:
        raise _Invalid(str(e)) from None


def _list(value: Any) -> list:
    if value is None:
        return []
    if type(value) is not list:
        raise _Invalid("not an array")
    return value


@lru_cache(maxsize=1024)
def avoided_controllers(annotation: str) -> frozenset[tuple[str, str]] | None:
    """The (kind, uid) pairs of the annotation's podSignature.podController entries, or
    None when Go's json.Unmarshal into v1.AvoidPods would fail."""
    try:
        doc = json.loads(annotation, object_pairs_hook=_Obj, parse_constant=_reject_constant)
        pairs = set()
        for entry in _list(_fields(doc, ("preferAvoidPods",)).get("preferAvoidPods")):
            e = _fields(entry, ("podSignature", "evictionTime", "reason", "message"))
            _time(e.get("evictionTime"))
            _string(e.get("reason"))
            _string(e.get("message"))
            sig = _fields(e.get("podSignature"), ("podController",))
            ctrl = sig.get("podController")
            if ctrl is None:
                continue
            c = _fields(ctrl, ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"))
            _string(c.get("apiVersion"))
            _string(c.get("name"))
            _bool(c.get("controller"))
            _bool(c.get("blockOwnerDeletion"))
            pairs.add((_string(c.get("kind")), _string(c.get("uid"))))
        return frozenset(pairs)
    except (_Invalid, ValueError, RecursionError):
        return None


def node_prefer_avoid_pods_priority(pod, ctx, infos) -> list[int]:
    ref = pod.controller_ref
    if ref is None or ref.kind not in AFFECTED_KINDS:
        return [10] * len(infos)
    signature = (ref.kind, ref.uid)
    out = []
    for info in infos:
        annotation = info.node.annotations.get(PREFER_AVOID_PODS_ANNOTATION)
        if not annotation:
            out.append(10)
            continue
        avoided = avoided_controllers(annotation)
        out.append(0 if avoided is not None and signature in avoided else 10)
    return out


def _prefer_avoid_vector(pod, ctx, cache, idx):
    """node_prefer_avoid_pods_priority on the nodes `idx` (engine.scheduler.cache): 10 everywhere but
    on the nodes carrying the annotation, which are scored once per run for each controller."""
    ref = pod.controller_ref
    if ref is None or ref.kind not in AFFECTED_KINDS:
        return np.full(len(idx), 10, dtype=np.int64)
    key = (NAME, ref.kind, ref.uid)
    scores = cache.memo.get(key)
    if scores is None:
        annotated = cache.memo.get((NAME, "annotated"))
        if annotated is None:  # (per node, kept while its Node is the same)
            annotated = cache.memo[(NAME, "annotated")] = np.flatnonzero(
                cache.per_node((NAME, "annotated"), _annotated, dtype=bool)).tolist()
        scores = np.full(cache.n, 10, dtype=np.int64)
        if annotated:
            scores[annotated] = node_prefer_avoid_pods_priority(pod, ctx, [cache.infos[i] for i in annotated])
        cache.memo[key] = scores
    return scores[idx]


def _annotated(info) -> bool:
    return bool(info.node.annotations.get(PREFER_AVOID_PODS_ANNOTATION))


node_prefer_avoid_pods_priority.vector = _prefer_avoid_vector
