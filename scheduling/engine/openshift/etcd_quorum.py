"""The etcd quorum guard: the etcd operator's use of the preDrain lifecycle hook (the
documentation's quorum protection with machine lifecycle hooks, openshift/cluster-etcd-operator pkg/operator/machinedeletionhooks,
clustermembercontroller, clustermemberremovalcontroller, pkg/etcdcli).

The etcd cluster itself is this controller's state (members with their node, address,
id and status — learner or voting —, health, and the leader), as the operator sees it
through the etcd client. In order:

* every control-plane Machine that hosts a member carries the preDrain hook
  `EtcdQuorumOperator` owned by `clusteroperator/etcd`;
* a new control-plane node (Ready, its machine not being deleted) gets an etcd member
  `ETCD_MEMBER_START_SECONDS` after it joined: added as a learner (`MemberAddAsLearner`
  "successfully added new member https://<ip>:2380"), Running but not ready until it has
  the whole database from the leader (`ETCD_LEARNER_SYNC_SECONDS`), then promoted to a
  voting member (`MemberPromote` "successfully promoted learner member https://<ip>:2380");
* a voting member whose machine is being deleted is removed only when that keeps the
  healthy voting members at or above the quorum of the desired control plane size and
  the membership exceeds that size (one at a time: `MemberRemove` "removed member with
  ID: [<id>]", `ScaleDown` "successfully removed member: [ url: <ip>, name: <node>, id: <id> ]
  from the cluster"); otherwise the removal waits, and so does the hook;
* once a deleting machine no longer has a member, its hook is removed (`MachineDeletionHook`
  "successfully removed the deletion hook from machine <name> as it doesn't have a member"),
  which lets the machine controller drain and delete it.

A second control-plane deletion that would take the voting members below quorum is held
by its hook until its own replacement has been promoted.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controller import Context
from scheduling.engine.store import meta, sim_time, time_value

from . import machine_api as M

CONTROLLER = "etcd-quorum-guard"
HOOK_NAME = "EtcdQuorumOperator"
HOOK_OWNER = "clusteroperator/etcd"
ETCD_MEMBER_START_SECONDS = 60  # the installer lays down the etcd static pod on the new node
ETCD_LEARNER_SYNC_SECONDS = 120  # the learner receives the whole database from the leader
DESIRED_CONTROL_PLANE = 3
OPERATOR_KIND, OPERATOR_NS, OPERATOR_NAME = "Deployment", "openshift-etcd-operator", "etcd-operator"
SOURCE = "openshift-cluster-etcd-operator-etcd-operator"


def quorum_of(voting: int) -> int:
    """etcdcli.MinimumTolerableQuorum: a majority."""
    return voting // 2 + 1


def _ip_of(store, machine: Mapping[str, Any]) -> str:
    node = store.get("Node", "", M.node_name_of(machine)) if M.node_name_of(machine) else None
    for source in (node, machine):
        for a in ((source or {}).get("status") or {}).get("addresses") or []:
            if a.get("type") == "InternalIP":
                return a.get("address") or ""
    return ""


def _node_ready(store, node_name: str) -> bool:
    node = store.get("Node", "", node_name)
    if node is None:
        return False
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return True


def quorum(state: Mapping[str, Any]) -> dict:
    """What the quorum view shows: members, voting, learners, healthy voting, leader, quorum."""
    members = list(state.get("members") or [])
    voting = [m for m in members if m.get("status") == "voting"]
    healthy = [m for m in voting if m.get("healthy", True)]
    return {
        "members": len(members),
        "voting": len(voting),
        "learners": len(members) - len(voting),
        "healthy": len(healthy),
        "leader": state.get("leader") or "",
        "quorum": quorum_of(len(voting)) if voting else 0,
        "hasQuorum": bool(voting) and len(healthy) >= quorum_of(len(voting)),
        "list": members,
        "waiting": state.get("waiting") or "",
    }


def _event(now: float, reason: str, message: str, type_: str = "Normal") -> A.RecordEvent:
    return A.RecordEvent(float(now), type_, reason, OPERATOR_KIND, OPERATOR_NS, OPERATOR_NAME, message, SOURCE)


def _promote_learners(now: float, members: list[dict], result: A.Result) -> list:
    """Learners whose sync time has come become voting members (MemberPromote); the others
    ask for that time."""
    actions: list = []
    for member in members:
        if member.get("status") == "learner":
            if now + 1e-9 >= (sim_time(member.get("promoteAt")) or 0.0):
                member["status"] = "voting"
                member.pop("promoteAt", None)
                actions.append(_event(now, "MemberPromote", f"successfully promoted learner member {member['peerURL']}"))
            else:
                result.due(sim_time(member.get("promoteAt")))
    return actions


def _hooks(now: float, masters: list[dict], by_node: Mapping[str, Any]) -> list:
    """The quorum guard's preDrain hook on every control-plane machine hosting a member;
    removed from a machine being deleted once its member is gone."""
    actions: list = []
    for m in masters:
        node = M.node_name_of(m)
        has_hook = any(h.get("name") == HOOK_NAME for h in M.hooks_of(m, M.PRE_DRAIN))
        if node in by_node and not M.is_deleting(m) and not has_hook:
            actions.append(M.add_hook(m, M.PRE_DRAIN, HOOK_NAME, HOOK_OWNER))
        elif M.is_deleting(m) and has_hook and node not in by_node:
            actions.append(M.remove_hook(m, M.PRE_DRAIN, HOOK_NAME))
            actions.append(_event(now, "MachineDeletionHook",
                                  f"successfully removed the deletion hook from machine {M.name_of(m)} as it doesn't have a member"))
    return actions


class EtcdQuorumGuard:
    name = CONTROLLER
    watches = frozenset({"Machine", "Node"})

    def _scale_down(self, ctx: Context, masters: list[dict], members: list[dict], leader: str, desired: int,
                    actions: list) -> tuple[list[dict], str, str]:
        """Remove one voting member of a machine pending deletion, never below quorum nor
        the desired size (what blocks it is said in `waiting`); a new leader when the
        leader goes. Returns (members, leader, waiting); events appended to `actions`."""
        now = ctx.now
        machine_of = {M.node_name_of(m): m for m in masters}
        voting = [x for x in members if x.get("status") == "voting"]
        healthy = [x for x in voting if x.get("healthy", True)]
        pending_deletion = sorted((x for x in voting if x["name"] in machine_of and M.is_deleting(machine_of[x["name"]])),
                                  key=lambda x: (meta(machine_of[x["name"]]).get("deletionTimestamp"), x["name"]))
        if not pending_deletion:
            return members, leader, ""
        if len(healthy) < quorum_of(desired):
            return members, leader, (f"Ignoring scale down since the number of healthy voting, non-bootstrap etcd members "
                                     f"({len(healthy)}) < minimum required to maintain quorum ({quorum_of(desired)})")
        if len(healthy) <= desired:
            return members, leader, (f"skip scale down: all voting, non-bootstrap members are healthy and membership does "
                                     f"not exceed the desired cluster size of {desired}")
        gone = pending_deletion[0]
        members = [x for x in members if x is not gone]
        actions.append(_event(now, "MemberRemove", f"removed member with ID: [{gone['id']}]"))
        actions.append(_event(now, "ScaleDown", f"successfully removed member: [ url: {gone['ip']}, name: {gone['name']}, "
                                                f"id: {int(gone['id'], 16)} ] from the cluster"))
        if leader == gone["name"]:
            rest = sorted(x["name"] for x in members if x.get("status") == "voting")
            leader = ctx.rng(self.name, "leader", gone["name"]).choice(rest) if rest else ""
        return members, leader, ""

    def reconcile(self, ctx: Context) -> A.Result:
        now = ctx.now
        store = ctx.store
        result = A.Result()
        masters = [m for m in M.machines(store) if M.is_control_plane(m)]
        if not masters and not ctx.state.get("members"):
            return M.finished(result)
        state = {k: v for k, v in ctx.state.items()}
        members: list[dict] = [dict(m) for m in state.get("members") or []]
        pending: dict[str, Any] = dict(state.get("pending") or {})
        leader = state.get("leader") or ""
        actions: list = []

        if "members" not in state:  # bootstrap: the running control plane is the etcd cluster
            for m in masters:
                if M.node_name_of(m) and not M.is_deleting(m) and M.phase_of(m) in (M.PHASE_RUNNING, ""):
                    members.append(self._member(ctx, m, "voting"))
            if members:
                leader = ctx.rng(self.name, "leader", 0).choice([x["name"] for x in members])
            state["desired"] = max(min(len(members), DESIRED_CONTROL_PLANE), 1)
        desired = int(state.get("desired") or DESIRED_CONTROL_PLANE)
        by_node = {x["name"]: x for x in members}

        # new control-plane nodes become learners, then voting members
        for m in masters:
            node = M.node_name_of(m)
            if not node or node in by_node or M.is_deleting(m) or not _node_ready(store, node):
                continue
            start = pending.setdefault(node, time_value(now + ETCD_MEMBER_START_SECONDS))
            if now + 1e-9 >= start:
                member = self._member(ctx, m, "learner")
                member["promoteAt"] = time_value(now + ETCD_LEARNER_SYNC_SECONDS)
                members.append(member)
                by_node[node] = member
                pending.pop(node, None)
                actions.append(_event(now, "MemberAddAsLearner", f"successfully added new member {member['peerURL']}"))
            else:
                result.due(start)
        actions += _promote_learners(now, members, result)

        members, leader, waiting = self._scale_down(ctx, masters, members, leader, desired, actions)
        by_node = {x["name"]: x for x in members}
        actions += _hooks(now, masters, by_node)

        new_state = {"members": members, "leader": leader, "desired": desired}
        if pending:
            new_state["pending"] = pending
        if waiting:
            new_state["waiting"] = waiting
        for key in ("members", "leader", "desired", "pending", "waiting"):
            if ctx.state.get(key) != new_state.get(key):
                actions.append(A.SetControllerState(self.name, key, new_state.get(key)))
        result.actions += [a for a in actions if a is not None]
        return M.finished(result)

    def _member(self, ctx: Context, machine: Mapping[str, Any], status: str) -> dict:
        node = M.node_name_of(machine)
        ip = _ip_of(ctx.store, machine)
        rng = ctx.rng(self.name, "member", node)
        member_id = "".join(rng.choice("0123456789abcdef") for _ in range(16)).lstrip("0") or "1"
        return {"name": node, "machine": M.name_of(machine), "ip": ip, "peerURL": f"https://{ip}:2380",
                "id": member_id, "status": status, "healthy": True}
