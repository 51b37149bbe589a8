"""The workload controllers as one controller of the event loop (name `workloads`).

`reconcile(store, now, seed=..., admission=..., state=...)` runs, in this order, the
controllers of Deployments (engine.controllers.deployment), ReplicaSets and
ReplicationControllers (replicaset), StatefulSets (statefulset) and DaemonSets
(daemonset), then the disruption controller (eviction: PodDisruptionBudget status); each
only writes what differs from what it wants, so a second run on the same documents yields
nothing (events go with the writes that cause them).

Its state (persisted with the cluster): `names/<Kind>/<namespace>/<name>` -> how many
pod names the owner generated (controller_utils.generate_name); a counter goes when its
owner does.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import WORKLOAD_KINDS
from scheduling.engine.api.node_selection_admission import CONTROLLER_USER, NodeSelectionContext
from scheduling.engine.controller import ANY_KIND, Context
from scheduling.engine.controllers.controller_utils import NAMES_PREFIX, WorkloadContext, names_key
from scheduling.engine.controllers.daemonset import reconcile_daemon_set
from scheduling.engine.controllers.deployment import reconcile_deployment
from scheduling.engine.controllers.eviction import pdb_recheck, reconcile_pdb
from scheduling.engine.controllers.replicaset import reconcile_replica_set
from scheduling.engine.controllers.statefulset import reconcile_stateful_set
from scheduling.engine.store import Store

NAME = "workloads"


def reconcile(store: Store, now: float, *, seed: int = 0, admission: Mapping[str, bool] | None = None,
              state: Mapping[str, Any] | None = None, admission_context: Any = None) -> A.Result:
    state = store.state_of(NAME) if state is None else state
    ctx = WorkloadContext.build(store, now, seed, admission, state, admission_context)
    result = A.Result()
    for deploy in store.list("Deployment"):
        result.actions += reconcile_deployment(ctx, deploy)
    for kind in ("ReplicaSet", "ReplicationController"):
        for rs in store.list(kind):
            result.actions += reconcile_replica_set(ctx, rs)
    for sts in store.list("StatefulSet"):
        result.actions += reconcile_stateful_set(ctx, sts)
    for ds in store.list("DaemonSet"):
        result.actions += reconcile_daemon_set(ctx, ds)
    for pdb in store.list("PodDisruptionBudget"):
        result.actions += reconcile_pdb(store, pdb, now)
    result.due(pdb_recheck(store, now))
    owners = {names_key(doc) for kind in WORKLOAD_KINDS for doc in store.list(kind)}
    for key, n in sorted(ctx.counters.items()):
        if key not in owners:
            n = None  # the owner is gone: so is its counter
        if state.get(key) != n:
            result.actions.append(A.SetControllerState(NAME, key, n))
    for key in state:
        if key.startswith(NAMES_PREFIX) and key not in ctx.counters:
            result.actions.append(A.SetControllerState(NAME, key, None))
    return result


class WorkloadControllers:
    name = NAME
    watches = frozenset({ANY_KIND})

    def reconcile(self, ctx: Context) -> A.Result:
        return reconcile(ctx.store, ctx.now, seed=ctx.seed, admission=ctx.settings.get("admission"), state=ctx.state,
                         admission_context=controller_admission_context(ctx))


def controller_admission_context(ctx: Context) -> NodeSelectionContext | None:
    """The node-selection admission plugins' view for the pods the controllers create
    (settings["node_selection"]: their configuration, None: off), as CONTROLLER_USER."""
    config = ctx.settings.get("node_selection")
    if config is None:
        return None
    return NodeSelectionContext.build(config, ctx.store.list("Namespace"), CONTROLLER_USER)
