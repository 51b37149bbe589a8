"""The MachineHealthCheck controller (openshift/machine-api-operator
pkg/controller/machinehealthcheck): finds machines whose node is unhealthy and deletes
them (so their MachineSet replaces them), unless too many are unhealthy.

Per MachineHealthCheck: the targets are the machines of its namespace its selector
matches (an empty selector matches all). A target needs remediation when its phase is
Failed, when it has had no node for longer than nodeStartupTimeout (default 10m, "0"
disables it) since its status last changed, when its node no longer exists, or when a
node condition has had an unhealthy status for longer than its timeout. A target that
will become unhealthy if nothing changes gets `DetectedUnhealthy` ("Machine
<ns>/<mhc>/<machine>/<node> has unhealthy node <node>") and a check when the timeout
ends. status.expectedMachines, currentHealthy and remediationsAllowed; when the unhealthy
count (expected - healthy) exceeds maxUnhealthy (an integer or a percentage of expected,
rounded down, default 100%) the condition RemediationAllowed is False (TooManyUnhealthy,
Warning) and the Warning event `RemediationRestricted` is recorded: nothing is deleted.
Otherwise each target that needs remediation and has a controller owner is deleted
(`MachineDeleted` "Machine ... has been remediated by requesting to delete Machine
object"); one without an owner gets `SkippedNoController`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controller import Context
from scheduling.engine.store import controller_ref, labels_of, sim_time

from . import machine_api as M

CONTROLLER = "machinehealthcheck-controller"
DEFAULT_NODE_STARTUP_TIMEOUT = 600.0

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: Any) -> float:
    """time.ParseDuration for the CRD's pattern ("300s", "5m", "1h30m", "0")."""
    if isinstance(text, (int, float)):
        return float(text)
    text = str(text or "").strip()
    if text in ("", "0"):
        return 0.0
    total, pos = 0.0, 0
    for match in _DURATION.finditer(text):
        if match.start() != pos:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text):
        raise ValueError(f'time: invalid duration "{text}"')
    return total


def max_unhealthy(value: Any, expected: int) -> int:
    """getMaxUnhealthy: an integer, or a percentage of expected rounded down."""
    if value is None:
        return expected
    if isinstance(value, str) and value.endswith("%"):
        return max(int(math.floor(int(value[:-1]) * expected / 100)), 0)
    return max(int(value), 0)


def max_unhealthy_text(value: Any) -> str:
    """How %v prints the IntOrString pointer in the messages (the value)."""
    return "100%" if value is None else str(value)


class MachineHealthCheckController:
    name = CONTROLLER
    watches = frozenset({"MachineHealthCheck", "Machine", "Node"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        for mhc in sorted(ctx.store.list("MachineHealthCheck"), key=lambda d: (M.ns_of(d), M.name_of(d))):
            key = M.key_of(mhc)
            st = dict(ctx.state.get(key) or {})
            actions, new_st, due = self._mhc(ctx, mhc, st)
            result.actions += actions
            result.due(due)
            if new_st != st:
                result.actions.append(A.SetControllerState(self.name, key, new_st or None))
        return M.finished(result)

    def _target_health(self, ctx: Context, mhc: Mapping[str, Any], machine: Mapping[str, Any]) -> tuple[bool, float | None, str | None]:
        """needsRemediation: (needs it, the time of the next check, the node condition going bad)."""
        now = ctx.now
        spec = mhc.get("spec") or {}
        if M.phase_of(machine) == M.PHASE_FAILED:
            return True, None, None
        node_name = M.node_name_of(machine)
        if not node_name:
            timeout = parse_duration(spec["nodeStartupTimeout"]) if spec.get("nodeStartupTimeout") is not None else DEFAULT_NODE_STARTUP_TIMEOUT
            if timeout == 0:
                return False, None, None
            updated = sim_time((machine.get("status") or {}).get("lastUpdated"))
            if updated is None:
                return False, None, None
            if updated + timeout < now:
                return True, None, None
            return False, updated + timeout + 1, None
        node = ctx.store.get("Node", "", node_name)
        if node is None:
            return True, None, None
        checks: list[float] = []
        going = None
        for uc in spec.get("unhealthyConditions") or []:
            cond = next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == uc.get("type")), None)
            if cond is None or cond.get("status") != uc.get("status"):
                continue
            since = sim_time(cond.get("lastTransitionTime")) or 0.0
            timeout = parse_duration(uc.get("timeout"))
            if since + timeout < now:
                return True, None, uc.get("type")
            checks.append(since + timeout + 1)
            going = uc.get("type")
        return False, (min(checks) if checks else None), going

    def _mhc(self, ctx: Context, mhc: dict, st: dict) -> tuple[list, dict, float | None]:
        now = ctx.now
        spec = mhc.get("spec") or {}
        ns, name = M.ns_of(mhc), M.name_of(mhc)
        targets = [m for m in M.machines(ctx.store) if M.ns_of(m) == ns and M.selector_matches(spec.get("selector"), labels_of(m))]
        actions: list = []
        healthy: list[dict] = []
        remediate: list[dict] = []
        due: float | None = None
        detected = dict(st.get("detected") or {})
        seen = set()
        for m in targets:
            needs, next_check, going = self._target_health(ctx, mhc, m)
            target = f"{ns}/{name}/{M.name_of(m)}/{M.node_name_of(m)}"
            if needs:
                remediate.append(m)
                continue
            if next_check is not None:
                due = next_check if due is None else min(due, next_check)
                if M.node_name_of(m):
                    seen.add(M.name_of(m))
                    if detected.get(M.name_of(m)) != going:
                        detected[M.name_of(m)] = going
                        actions.append(M.event(now, "DetectedUnhealthy", m, f"Machine {target} has unhealthy node {M.node_name_of(m)}", CONTROLLER))
                continue
            if not M.is_deleting(m) and M.node_name_of(m) and ctx.store.get("Node", "", M.node_name_of(m)) is not None:
                healthy.append(m)
        detected = {k: v for k, v in detected.items() if k in seen}
        expected = len(targets)
        unhealthy = expected - len(healthy)
        limit = max_unhealthy(spec.get("maxUnhealthy"), expected)
        conditions = list((mhc.get("status") or {}).get("conditions") or [])
        new_st: dict = {"detected": detected} if detected else {}
        if unhealthy > limit:
            mu = max_unhealthy_text(spec.get("maxUnhealthy"))
            conditions = M.set_condition(conditions, M.false_condition(
                M.REMEDIATION_ALLOWED, M.TOO_MANY_UNHEALTHY,
                f"Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy "
                f"(total: {expected}, unhealthy: {unhealthy}, maxUnhealthy: {mu})"), now)
            actions += self._status(mhc, expected, len(healthy), 0, conditions)
            restricted = [expected, unhealthy]
            if st.get("restricted") != restricted:
                actions.append(A.RecordEvent(float(now), "Warning", "RemediationRestricted", "MachineHealthCheck", ns, name,
                                             f"Remediation restricted due to exceeded number of unhealthy machines "
                                             f"(total: {expected}, unhealthy: {unhealthy}, maxUnhealthy: {mu})", CONTROLLER))
            new_st["restricted"] = restricted
            return actions, new_st, due
        conditions = M.set_condition(conditions, M.true_condition(M.REMEDIATION_ALLOWED), now)
        actions += self._status(mhc, expected, len(healthy), max(limit - unhealthy, 0), conditions)
        skipped = set(st.get("skipped") or [])
        actions += self._remediate(ctx, ns, name, remediate, skipped)
        live = {M.name_of(m) for m in targets}
        skipped = sorted(s for s in skipped if s in live)
        if skipped:
            new_st["skipped"] = skipped
        return actions, new_st, due

    def _remediate(self, ctx: Context, ns: str, name: str, remediate: list[dict], skipped: set[str]) -> list:
        """Delete the unhealthy machines that have a controller to replace them (once each);
        one without is skipped, with a SkippedNoController event the first time (added to
        `skipped`)."""
        now = ctx.now
        actions: list = []
        for m in remediate:
            target = f"{ns}/{name}/{M.name_of(m)}/{M.node_name_of(m)}"
            if controller_ref(m) is None:
                if M.name_of(m) not in skipped:
                    actions.append(M.event(now, "SkippedNoController", m, f"Machine {target} has no controller owner, skipping remediation", CONTROLLER))
                    skipped.add(M.name_of(m))
                continue
            if M.is_deleting(m):
                continue
            actions += M.request_deletion(ctx.store, M.ns_of(m), M.name_of(m), now)
            actions.append(M.event(now, "MachineDeleted", m, f"Machine {target} has been remediated by requesting to delete Machine object", CONTROLLER))
        return actions

    def _status(self, mhc: Mapping[str, Any], expected: int, healthy: int, allowed: int, conditions: list[dict]) -> list:
        fields = {"expectedMachines": expected, "currentHealthy": healthy, "remediationsAllowed": allowed, "conditions": conditions}
        status = mhc.get("status") or {}
        if all(status.get(k) == v for k, v in fields.items()):
            return []
        return [A.PatchStatus("MachineHealthCheck", M.ns_of(mhc), M.name_of(mhc), fields)]
