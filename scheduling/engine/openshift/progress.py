"""The progress view of an update, as plain data for the pages and the benchmark: the CVO's
runlevels as lanes, the operators table, the pools with their counts and nodes, each node's
phases along simulated time (from the MCO's events), the updated machines over time, the
history, `oc adm upgrade status`, and why a drain is stuck (the pods the drain cannot evict,
their PDB and the drain controller's last message)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.store import Store, labels_of, name_of, namespace_of
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.oc import drain

from . import mco as M
from .conditions import find
from .cvo import current_version, operator_version
from .oc_status import status as status_command
from .payload import payload

# Node events, in the order of one node's update, and the phase each one starts: the MCD asks
# for the drain (Cordon, Drain), writes the OS (InClusterUpgrade, OSUpdateStarted; an update of
# files only has none: its drain phase runs to the reboot), reboots; the kubelet reports the
# node ready again (NodeReady, when the reboot was long enough for the node to go NotReady:
# it ends the reboot phase only then); the MCD sees it uncordoned (Uncordon) and is done
# (NodeDone).
PHASE_EVENTS = {"Cordon": "drain", "Drain": "drain", "InClusterUpgrade": "update", "OSUpdateStarted": "update",
                "Reboot": "reboot", "NodeReady": "uncordon", "Uncordon": "uncordon", "NodeDone": "done"}


def _cond(doc: Mapping[str, Any], type_: str) -> Mapping[str, Any]:
    return find((doc.get("status") or {}).get("conditions"), type_) or {}


def lanes(store: Store, target: str) -> list[dict]:
    """The runlevels of the target payload that carry ClusterOperators, each operator with
    its state: done (at the target, Available, not Degraded), degraded, updating
    (Progressing), or waiting."""
    out = []
    for rl in payload(target).runlevels:
        if not rl.cluster_operators:
            continue
        ops = []
        for name in rl.cluster_operators:
            co = store.get("ClusterOperator", "", name) or {}
            degraded = _cond(co, "Degraded").get("status") == "True"
            done = (operator_version(co) == target and _cond(co, "Available").get("status") == "True" and not degraded)
            state = "done" if done else "degraded" if degraded else "updating" if _cond(co, "Progressing").get("status") == "True" else "waiting"
            ops.append({"name": name, "state": state, "version": operator_version(co)})
        states = {o["state"] for o in ops}
        lane_state = "done" if states == {"done"} else "waiting" if states == {"waiting"} else "active"
        out.append({"runlevel": rl.runlevel, "operators": ops, "state": lane_state})
    return out


def operators_table(store: Store) -> list[dict]:
    rows = []
    for co in sorted(store.list("ClusterOperator"), key=name_of):
        row = {"name": name_of(co), "version": operator_version(co)}
        for t in ("Available", "Progressing", "Degraded"):
            c = _cond(co, t)
            row[t.lower()] = c.get("status", "")
            row[t.lower() + "_message"] = c.get("message", "")
        rows.append(row)
    return rows


def pools(store: Store) -> list[dict]:
    out = []
    for pool in store.list("MachineConfigPool"):
        s = pool.get("status") or {}
        count = s.get("machineCount") or 0
        nodes = []
        for node in sorted(M.pool_nodes(store, pool), key=name_of):
            ann = (node.get("metadata") or {}).get("annotations") or {}
            nodes.append({"name": name_of(node), "state": ann.get(M.STATE, ""), "current": ann.get(M.CURRENT, ""),
                          "desired": ann.get(M.DESIRED, ""), "reason": ann.get(M.REASON, ""),
                          "unschedulable": bool((node.get("spec") or {}).get("unschedulable")),
                          "ready": M.is_node_ready(node), "done": M.is_node_done(node)})
        out.append({"name": name_of(pool), "machineCount": count, "updated": s.get("updatedMachineCount") or 0,
                    "ready": s.get("readyMachineCount") or 0, "unavailable": s.get("unavailableMachineCount") or 0,
                    "degraded": s.get("degradedMachineCount") or 0,
                    "percent": int(100 * (s.get("updatedMachineCount") or 0) / count) if count else 0,
                    "paused": bool((pool.get("spec") or {}).get("paused")),
                    "maxUnavailable": (pool.get("spec") or {}).get("maxUnavailable", 1),
                    "target": ((pool.get("spec") or {}).get("configuration") or {}).get("name", ""),
                    "conditions": {c.get("type"): c for c in s.get("conditions") or ()}, "nodes": nodes})
    return out


def node_timelines(events: Iterable[Mapping[str, Any]], since: float, now: float) -> dict[str, list[dict]]:
    """node -> [{phase, start, end}] from the MCO's node events after `since`."""
    open_: dict[str, tuple[str, float]] = {}
    out: dict[str, list[dict]] = {}
    for e in events:
        if e["kind"] != "Node" or e["time"] < since or e["reason"] not in PHASE_EVENTS:
            continue
        node, phase, t = e["name"], PHASE_EVENTS[e["reason"]], e["time"]
        if e["reason"] == "NodeReady" and open_.get(node, ("",))[0] != "reboot":
            continue  # a node ready again outside an update's reboot
        if node in open_:
            previous, start = open_.pop(node)
            if previous != phase:
                out.setdefault(node, []).append({"phase": previous, "start": start, "end": t})
            else:
                open_[node] = (previous, start)
                continue
        if phase != "done":
            open_[node] = (phase, t)
    for node, (phase, start) in open_.items():
        out.setdefault(node, []).append({"phase": phase, "start": start, "end": now})
    return out


def updated_over_time(events: Iterable[Mapping[str, Any]], since: float) -> list[tuple[float, int]]:
    points = [(since, 0)]
    n = 0
    for e in events:
        if e["kind"] == "Node" and e["reason"] == "NodeDone" and e["time"] >= since:
            n += 1
            points.append((e["time"], n))
    return points


def _pdb_for(store: Store, pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for pdb in store.list("PodDisruptionBudget"):
        if namespace_of(pdb) != namespace_of(pod):
            continue
        sel = (pdb.get("spec") or {}).get("selector")
        s = LabelSelector.from_doc(sel) if sel is not None else None
        if s is not None and not s.is_empty and s.matches(labels_of(pod)):
            return pdb
    return None


def stuck_drains(store: Store, drains: Mapping[str, Any]) -> list[dict]:
    """For every node the drain controller is working on: the pods still to evict (with the
    PDB that refuses them), its last message and how long it has been failing."""
    out = []
    for node, d in sorted((drains or {}).items()):
        attempt = d.get("attempt")
        if attempt:
            pending = [p for p in attempt.get("pods") or () if p.get("state") == "evict"]
        else:  # between two attempts: the pods the next one will have to evict
            pending = [{"namespace": p.namespace, "name": p.name} for p in drain.plan(store, node, M.MCO_DRAIN_OPTIONS).pods]
        pods = []
        for p in pending:
            pod = store.get("Pod", p.get("namespace", ""), p.get("name", ""))
            if pod is None:
                continue
            pdb = _pdb_for(store, pod)
            ps = (pdb or {}).get("status") or {}
            pods.append({"namespace": p["namespace"], "name": p["name"],
                         "pdb": name_of(pdb) if pdb else "",
                         "pdb_text": (f"The disruption budget {name_of(pdb)} needs {ps.get('desiredHealthy', 0)} healthy pods and "
                                      f"has {ps.get('currentHealthy', 0)} currently (disruptions allowed: "
                                      f"{ps.get('disruptionsAllowed', 0)})") if pdb else ""})
        log = d.get("log") or []
        if pods or log:
            out.append({"node": node, "since": d.get("started", 0), "pods": pods, "message": log[-1]["message"] if log else ""})
    return out


def build(store: Store, now: float, events: Sequence[Mapping[str, Any]] | None = None,
          controller_state: Mapping[str, Any] | None = None, facts: Mapping[str, Any] | None = None) -> dict:
    """Everything the progress page shows. `events`: dicts with time, reason, kind, name,
    message (the store's events when None); `controller_state`: the controllers' state
    (the store's when None); `facts`: the cluster settings' facts (the alerts the user fired,
    which `oc adm upgrade status` reads; the ClusterVersion's annotation when None)."""
    if events is None:
        events = [{"time": e.time, "reason": e.reason, "kind": e.kind, "name": e.name, "message": e.message}
                  for e in store.events]
    state = store.controller_state if controller_state is None else controller_state
    cv = store.get("ClusterVersion", "", "version") or {}
    status = cv.get("status") or {}
    history = status.get("history") or []
    current = current_version(cv) if cv else ""
    target = (status.get("desired") or {}).get("version") or current
    since = float(history[0].get("startedTime") or 0) if history and isinstance(history[0].get("startedTime"), (int, float)) else 0.0
    result = status_command(store, [], now, files={"cluster-facts": [facts]} if facts else None) if cv and store.list("ClusterOperator") else None
    return {
        "current": current,
        "target": target,
        "progressing": _cond(cv, "Progressing"),
        "failing": _cond(cv, "Failing"),
        "history": history,
        "lanes": lanes(store, target) if target else [],
        "operators": operators_table(store),
        "pools": pools(store),
        "timelines": node_timelines(events, since, now),
        "since": since,
        "now": now,
        "updated_points": updated_over_time(events, since),
        "status_text": (result.stdout or result.stderr) if result is not None else "",
        "stuck": stuck_drains(store, (state.get(M.NODE_CONTROLLER) or {}).get("drains") or {}),
    }
