"""Deletion with dependents (the garbage collector's background propagation).

`cascade_delete(store, kind, namespace, name, now)`: the actions that delete an object;
a workload's pods (and a Deployment's ReplicaSets, a CronJob's Jobs) go with it: the owner at once, the
pods gracefully (their terminationGracePeriodSeconds). A Pod alone is deleted gracefully.
An object with finalizers is only marked for deletion (metadata.deletionTimestamp).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controllers.controller_utils import termination_grace_seconds, is_controlled_by, object_namespace
from scheduling.engine.store import Store, is_terminating, meta, name_of, time_value


def cascade_delete(store: Store, kind: str, namespace: str, name: str, now: float) -> list:
    """Delete an object; a workload's pods (and a Deployment's ReplicaSets) go with it
    (background propagation: the owner at once, the pods gracefully)."""
    owner = store.get(kind, namespace, name)
    if owner is None:
        return []
    if kind == "Pod":
        return [A.SetPodDeletion(namespace, name, now, termination_grace_seconds(owner), "Deleted")]
    if meta(owner).get("finalizers"):
        # The API server only marks an object that has finalizers (a Machine's
        # machine.machine.openshift.io): deletionTimestamp, once; the controllers behind
        # the finalizers finish the deletion and remove them.
        if is_terminating(owner):
            return []
        marked = copy.deepcopy(dict(owner))
        marked["metadata"]["deletionTimestamp"] = time_value(now)
        marked["metadata"]["deletionGracePeriodSeconds"] = 0
        return [A.ReplaceObject(marked)]
    actions: list = [A.DeleteObject(kind, namespace, name)]
    dependents: list[Mapping[str, Any]] = [owner]
    for owner_kind, dependent_kind in (("Deployment", "ReplicaSet"), ("CronJob", "Job")):
        if kind != owner_kind:
            continue
        for rs in store.list(dependent_kind):
            if is_controlled_by(rs, owner):
                actions.append(A.DeleteObject(dependent_kind, object_namespace(rs), name_of(rs)))
                dependents.append(rs)
    for pod in store.list("Pod"):
        if any(is_controlled_by(pod, d) for d in dependents) and not is_terminating(pod):
            actions.append(A.SetPodDeletion(object_namespace(pod), name_of(pod), now, termination_grace_seconds(pod), "GarbageCollected"))
    return actions

