"""`oc adm upgrade status [--details=none|all|nodes|health|operators]`: the control plane,
worker pools, per-node assessment and update health, computed and printed as openshift/oc
pkg/cli/admin/upgrade/status (controlplane.go, workerpool.go, health.go, mco/) does, from
the ClusterVersion, ClusterOperators, MachineConfigPools, MachineConfigs and Nodes of the
store, and the alert insights of alerts.go from the cluster's alerts (Prometheus'
/api/v1/alerts): the file given to `manage.py oc --alerts FILE` (files["--alerts"]), else the
simulated cluster's own (scheduling.engine.openshift.alerts: the ones the user fires, with the settings'
facts handed as files["cluster-facts"], and the ones derived from the objects)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.oc.core import Flag, OcError, OcResult, go_duration, parse_flags
from scheduling.engine.oc.output import seconds, tabwriter, timestamp
from scheduling.engine.store import Store

from . import alerts as AL
from . import facts as F
from . import mco as M
from .conditions import find

DETAILS = ("none", "all", "nodes", "health", "operators")
MCO_NAMESPACE = "openshift-machine-config-operator"
CO_DOWN = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDown.md"
CO_DEGRADED = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDegraded.md"
MCO_DOC = ("https://docs.openshift.com/container-platform/latest/post_installation_configuration/machine-configuration-tasks.html"
           "#understanding-the-machine-config-operator")
PAUSED_DOC = ("https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html"
              "#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues")
HISTORY_DOC = ("https://docs.openshift.com/container-platform/latest/updating/troubleshooting_updates/gathering-data-cluster-update.html"
               "#gathering-clusterversion-history-cli_troubleshooting_updates")

LEVELS = ("Info", "Warning", "Error", "Critical")
ALERTS_FILE, FACTS_FILE = "--alerts", "cluster-facts"
SNAPSHOT = "snapshot"  # the "file" run_on_snapshot hands the commands: objects given as files, no cluster behind them
# alerts.go allowedAlerts: shown even when they fired before the update started
ALLOWED_ALERTS = ("PodDisruptionBudgetLimit", "PodDisruptionBudgetAtLimit")
PHASES = ("Draining", "Updating", "Rebooting", "Paused", "Pending", "Updated")
ASSESSMENTS = ("Degraded", "Unavailable", "Progressing", "Excluded", "Outdated", "Completed")

NOT_READY, DISK, NETWORK, UNSCHEDULABLE, MCD_WORKING = (
    "Not ready", "Disk pressure", "Network unavailable", "Node is marked unschedulable", "Machine Config Daemon is processing the node")


# --- durations as Go prints them -----------------------------------------------------------------------------------


def go_round(s: float, unit: float) -> float:
    """time.Duration.Round: half away from zero."""
    return math.copysign(math.floor(abs(s) / unit + 0.5) * unit, s)


def go_duration_ns(ns: int) -> str:
    """time.Duration(ns).String(), exactly: 368.975µs, 1.5ms, 2m0.000368975s, 1h0m0s."""
    if ns == 0:
        return "0s"
    sign, u = ("-", -ns) if ns < 0 else ("", ns)

    def frac(value: int, prec: int) -> tuple[int, str]:
        digits = str(value % 10 ** prec).rjust(prec, "0").rstrip("0") if prec else ""
        return value // 10 ** prec, ("." + digits if digits else "")

    if u < 1_000_000_000:
        unit, prec = ("ns", 0) if u < 1_000 else ("\u00b5s", 3) if u < 1_000_000 else ("ms", 6)
        whole, fraction = frac(u, prec)
        return f"{sign}{whole}{fraction}{unit}"
    secs, fraction = frac(u, 9)
    text = f"{secs % 60}{fraction}s"
    minutes = secs // 60
    if minutes:
        text = f"{minutes % 60}m" + text
        if minutes // 60:
            text = f"{minutes // 60}h" + text
    return sign + text


def _parse_go_duration(text: str) -> int | None:
    """time.ParseDuration for what shortDuration hands it (digits and h/m/s units)."""
    parts = re.findall(r"(\d+)(h|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts) * 1_000_000_000


def short_duration(s: float) -> str:
    """shortDuration (health.go), its checks in upstream's order: a whole-hour or -minute
    duration loses its zero parts, one with a fraction is cut at the dot ("368.975µs" becomes
    368s, printed 6m8s, as upstream prints an operator that changed an instant ago)."""
    return _short(int(round(s * 1_000_000_000)))


def _short(ns: int) -> str:
    orig = go_duration_ns(ns)
    if orig in ("0h0m0s", "0s"):
        return "now"
    if orig.endswith("h0m0s"):
        return orig[:-4]
    if orig.endswith("m0s"):
        return orig[:-2]
    if orig.endswith("h0m"):
        return orig[:-2]
    if "." in orig:
        again = _parse_go_duration(orig[:orig.index(".")] + "s")
        return orig if again is None else _short(again)
    return orig


# --- insights ----------------------------------------------------------------------------------------------------------


@dataclass
class Insight:
    started: float | None  # None: the zero time
    level: int
    impact: str
    summary: str
    description: str
    reference: str
    resources: list[tuple[str, str]] = field(default_factory=list)  # (kind with group, name)

    @property
    def incomplete(self) -> bool:
        return not self.description or not self.summary or not self.reference


def _conds(doc: Mapping[str, Any]) -> list:
    return (doc.get("status") or {}).get("conditions") or []


def _t(value: Any) -> float | None:
    return seconds(value)


# --- alerts (alerts.go parseAlertDataToInsights) -------------------------------------------------------------------------


def alert_insights(alert_data: Any, started: float) -> list[Insight]:
    """The firing alerts of warning or critical severity that started during the update, and
    those of ALLOWED_ALERTS whenever they started, as alerts.go words them."""
    data = alert_data.get("data") if isinstance(alert_data, Mapping) else None
    alerts = data.get("alerts") if isinstance(data, Mapping) else None
    out: list[Insight] = []
    for alert in alerts if isinstance(alerts, list) else ():
        if not isinstance(alert, Mapping):
            continue
        labels = alert.get("labels") if isinstance(alert.get("labels"), Mapping) else {}
        annotations = alert.get("annotations") if isinstance(alert.get("annotations"), Mapping) else {}
        name = str(labels.get("alertname") or "")
        if not name:
            continue
        active = _t(alert.get("activeAt"))  # None: Go's zero time
        during = active is not None and started < active
        if name in ALLOWED_ALERTS:
            description = ("Alert known to affect updates started firing during the update." if during else
                           "Alert known to affect updates has been firing since before the update started.")
        elif during:
            description = "Alert started firing during the update."
        else:
            continue
        if alert.get("state") == "pending":
            continue
        level = {"warning": 1, "critical": 3}.get(str(labels.get("severity") or ""), 0)
        if level < 1:
            continue
        text, message = str(annotations.get("description") or ""), str(annotations.get("message") or "")
        if text and message:
            description += f" The alert description is: {text} | {message}"
        elif text or message:
            description += f" The alert description is: {text or message}"
        else:
            description += " The alert has no description."
        namespace = str(labels.get("namespace") or "")
        out.append(Insight(active, level, "Unknown", f"Alert is firing: {annotations.get('summary') or name}", description,
                           str(annotations.get("runbook_url") or "") or "<alert does not have a runbook_url annotation>",
                           [("alerts.config.openshift.io", f"{namespace}/{name}" if namespace else name)]))
    return out


# --- control plane -----------------------------------------------------------------------------------------------------


@dataclass
class ControlPlane:
    assessment: str = "Progressing"
    completion: float = 0.0
    completion_at: float = 0.0
    duration: float = 0.0
    est_duration: float = 0.0
    est_to_complete: float = 0.0
    total: int = 0
    unavailable: int = 0
    degraded: int = 0
    updated: int = 0
    waiting: int = 0
    updating: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)
    target: str = "unknown"
    previous: str = "unknown"
    target_install: bool = False
    previous_partial: bool = False
    multi_arch: bool = False

    def version_text(self) -> str:
        if self.target_install:
            return f"{self.target} (a new install)"
        if self.previous_partial:
            return f"{self.target} (from incomplete {self.previous})"
        if self.multi_arch:
            return f"{self.target} to Multi-Architecture"
        return f"{self.target} (from {self.previous})"

    def health(self) -> str:
        parts = [f"{self.total - self.unavailable - self.degraded} Healthy"]
        if self.unavailable:
            parts.append(f"{self.unavailable} Unavailable")
        if self.degraded:
            parts.append(f"{self.degraded} Available but degraded")
        return ", ".join(parts)


def _timewise_complete(x: float) -> float:
    if x < 0.25:
        return -0.03078788 + 2.62886 * x - 3.823954 * x ** 2
    if x < 0.9:
        return 0.1851215 + 1.64994 * x - 4.676898 * x ** 2 + 5.451824 * x ** 3 - 2.125286 * x ** 4
    return 25053.32 - 107394.3 * x + 172527.2 * x ** 2 - 123107 * x ** 3 + 32921.81 * x ** 4


def _baseline(history: list) -> float:
    if len(history) < 3:
        return 3600.0
    for item in history[1:-1]:
        if item.get("state") == "Completed":
            return (_t(item.get("completionTime")) or 0) - (_t(item.get("startedTime")) or 0)
    return 3600.0


def _estimate(baseline: float, to_last: float, updating_for: float, completion: float) -> float:
    if completion >= 1:
        return 0.0
    c = _timewise_complete(completion)
    if completion > 0 and c > 0 and to_last > 300:
        total = to_last / c
    else:
        total = baseline
    remaining = total - updating_for
    over = 1.2 if remaining >= 0 else 1 / 1.2
    est = math.trunc(remaining * over)
    return go_round(est, 60) if est > 600 else go_round(est, 1)


def assess_control_plane(cv: Mapping[str, Any], operators: Sequence[Mapping[str, Any]], mco_image: str | None,
                         now: float) -> tuple[ControlPlane, list[Insight]]:
    d = ControlPlane()
    insights: list[Insight] = []
    status = cv.get("status") or {}
    target = (status.get("desired") or {}).get("version") or ""
    cv_res = ("clusterversions.config.openshift.io", (cv.get("metadata") or {}).get("name") or "version")
    failing = find(_conds(cv), "Failing")
    if failing is None:
        insights.append(Insight(now, 1, "Update Stalled", f"Cluster Version {cv_res[1]} has no Failing condition",
                                "Current status of Cluster Version reconciliation is unclear.  See 'oc -n openshift-cluster-version "
                                "logs -l k8s-app=cluster-version-operator --tail -1' to debug.", CO_DEGRADED, [cv_res]))
    elif failing.get("status") != "False":
        verb = "may be" if failing.get("status") == "Unknown" else "is"
        insights.append(Insight(_t(failing.get("lastTransitionTime")), 1, "Update Stalled",
                                f"Cluster Version {cv_res[1]} {verb} failing to proceed with the update ({failing.get('reason', '')})",
                                failing.get("message") or "", CO_DEGRADED, [cv_res]))
    last_progress: float | None = None
    mco_started: float | None = None
    for op in operators:
        annotations = (op.get("metadata") or {}).get("annotations") or {}
        if not any(k.startswith(("exclude.release.openshift.io/", "include.release.openshift.io/")) for k in annotations):
            continue
        name = (op.get("metadata") or {}).get("name") or ""
        versions = (op.get("status") or {}).get("versions") or []
        image_upgrading = name == "machine-config" and mco_image is not None and any(
            v.get("name") == "operator-image" and v.get("version") != mco_image for v in versions)
        updated = not image_upgrading and any(v.get("name") == "operator" and v.get("version") == target for v in versions)
        if updated:
            d.updated += 1
        d.total += 1
        available = find(_conds(op), "Available")
        degraded = find(_conds(op), "Degraded")
        progressing = find(_conds(op), "Progressing")
        if progressing is not None:
            t = _t(progressing.get("lastTransitionTime"))
            if t is not None and (last_progress is None or t > last_progress):
                last_progress = t
            if not updated and progressing.get("status") == "True":
                d.updating.append((name, progressing))
            if not updated and progressing.get("status") == "False":
                d.waiting += 1
            if progressing.get("status") == "True" and name == "machine-config" and not updated:
                mco_started = t
        if available is None or available.get("status") != "True":
            d.unavailable += 1
        elif degraded is not None and degraded.get("status") == "True":
            d.degraded += 1
        res = [("clusteroperators.config.openshift.io", name)]
        if available is not None and available.get("status") == "False":
            since = _t(available.get("lastTransitionTime")) or 0.0
            if now > since + 300:
                insights.append(Insight(since, 2 if now > since + 1200 else 1, "API Availability",
                                        f"Cluster Operator {name} is unavailable ({available.get('reason', '')})",
                                        available.get("message") or "<no message>", CO_DOWN, res))
        if degraded is not None and degraded.get("status") == "True":
            since = _t(degraded.get("lastTransitionTime")) or 0.0
            if now > since + 300:
                insights.append(Insight(since, 2 if now > since + 2400 else 1, "API Availability",
                                        f"Cluster Operator {name} is degraded ({degraded.get('reason', '')})",
                                        degraded.get("message") or "<no message>", CO_DEGRADED, res))
    completed = d.total > 0 and d.updated == d.total
    d.assessment = "Completed" if completed else "Progressing"
    if mco_started is not None and d.total - d.updated == 1:
        last_progress = mco_started
    history = status.get("history") or []
    updating_for = 0.0
    to_last = 0.0
    if history:
        started = _t(history[0].get("startedTime")) or 0.0
        if last_progress is None or not last_progress > started:
            last_progress = now
        to_last = last_progress - started
        completed_at = _t(history[0].get("completionTime"))
        d.completion_at = (now if completed_at is None else completed_at) if history[0].get("state") == "Completed" else now
        updating_for = d.completion_at - started
        d.duration = go_round(updating_for, 60) if updating_for > 600 else go_round(updating_for, 1)
    d.target = history[0].get("version") or "unknown" if history else "unknown"
    if len(history) == 1:
        d.target_install = True
    elif len(history) > 1:
        d.previous = history[1].get("version") or "unknown"
        d.previous_partial = history[1].get("state") == "Partial"
        d.multi_arch = multi_arch_migration(history)
        if not completed and d.previous_partial:
            last_complete = next((h.get("version") for h in history[2:] if h.get("state") == "Completed"), "unknown")
            insights.append(Insight(_t(history[0].get("startedTime")), 1, "None",
                                    f"Previous update to {d.previous} never completed, last complete update was {last_complete}",
                                    f"Current update to {d.target} was initiated while the previous update to version {d.previous} "
                                    "was still in progress", HISTORY_DOC, [cv_res]))
    fraction = d.updated / d.total if d.total else 0.0
    d.completion = fraction * 100.0
    if fraction <= 1 and d.assessment != "Completed":
        d.est_to_complete = _estimate(_baseline(history), to_last, updating_for, fraction)
        d.est_duration = math.floor((updating_for + d.est_to_complete) / 60) * 60
        if d.est_to_complete < -600:
            d.assessment = "Stalled"
        elif d.est_to_complete < 0:
            d.assessment = "Progressing - Slow"
    return d, insights


def multi_arch_migration(history: Sequence[Mapping[str, Any]]) -> bool:
    """multiArchMigration: the same version again with another image (a migration to the
    multi-architecture payload)."""
    return (len(history) > 1 and history[0].get("version") == history[1].get("version")
            and history[0].get("image") != history[1].get("image"))


def _vague_under(actual: float, estimated: float, multi_arch: bool = False) -> str:
    if multi_arch:
        return "N/A for Multi-Architecture Migration"
    if actual < -600:
        return f"N/A; estimate duration was {short_duration(estimated)}"
    if actual < 600:
        return "<10m"
    return short_duration(actual)


def write_control_plane(d: ControlPlane, detailed: bool, now: float) -> str:
    if d.updated == d.total:
        return (f"= Control Plane =\nUpdate to {d.target} successfully completed at {timestamp(d.completion_at)} "
                f"(duration: {short_duration(d.duration)})\n")
    out = ["= Control Plane =\n", f"Assessment:      {d.assessment}\n", f"Target Version:  {d.version_text()}\n"]
    if d.updating:
        out.append(f"Updating:        {', '.join(n for n, _ in d.updating)}\n")
    out.append(f"Completion:      {d.completion:.0f}% ({d.updated} operators updated, {len(d.updating)} updating, {d.waiting} waiting)\n")
    est = f" (Est. Time Remaining: {_vague_under(d.est_to_complete, d.est_duration, d.multi_arch)})" if d.est_to_complete else ""
    out.append(f"Duration:        {short_duration(d.duration)}{est}\n")
    out.append(f"Operator Health: {d.health()}\n")
    if detailed and d.updating:
        out.append("\nUpdating Cluster Operators\n")
        rows = [["NAME", "SINCE", "REASON", "MESSAGE"]]
        for name, c in d.updating:
            reason = c.get("reason") or "-"
            if len(reason) > 20:
                reason = reason[:17] + "..."
            lines = (c.get("message") or "").split("\n")
            since = now - (_t(c.get("lastTransitionTime")) or 0.0)
            rows.append([name, short_duration(since), reason, lines[0]])
            rows += [["", "", "", line] for line in lines[1:]]
        out.append(tabwriter(rows, minwidth=0, padding=3))
    return "".join(out)


# --- nodes and pools ---------------------------------------------------------------------------------------------------


@dataclass
class NodeRow:
    name: str
    assessment: int
    phase: int
    version: str
    estimate: str
    message: str
    unavailable: bool
    degraded: bool
    updating: bool
    updated: bool


@dataclass
class Pool:
    name: str
    assessment: str = ""
    completion: float = 0.0
    nodes: list[NodeRow] = field(default_factory=list)
    total: int = 0
    available: int = 0
    progressing: int = 0
    outdated: int = 0
    draining: int = 0
    excluded: int = 0
    degraded: int = 0


def _selector(pool: Mapping[str, Any]) -> LabelSelector | None:
    sel = (pool.get("spec") or {}).get("nodeSelector")
    return LabelSelector.from_doc(sel) if sel is not None else None


def which_pool(pools: Sequence[Mapping[str, Any]], node: Mapping[str, Any]) -> str:
    labels = (node.get("metadata") or {}).get("labels") or {}
    by_name = {(p.get("metadata") or {}).get("name"): _selector(p) for p in pools}

    def matches(sel) -> bool:
        return sel is not None and sel.matches(labels)

    if matches(by_name.get("master")):
        return "master"
    for name, sel in by_name.items():
        if name not in ("master", "worker") and matches(sel):
            return name
    if matches(by_name.get("worker")):
        return "worker"
    return ""


def _unavailable_reasons(node: Mapping[str, Any]) -> tuple[bool, list[tuple[str, str, float | None]]]:
    """(unavailable, [(reason, condition message, since)]) as mco.LayeredNodeState sees it."""
    bad: list[tuple[str, str, float | None]] = []
    for c in _conds(node):
        t, s = c.get("type"), c.get("status")
        since = _t(c.get("lastTransitionTime"))
        if t == "Ready" and s != "True":
            bad.append((NOT_READY, c.get("message") or "", since))
        if t == "DiskPressure" and s != "False":
            bad.append((DISK, c.get("message") or "", since))
        if t == "NetworkUnavailable" and s != "False":
            bad.append((NETWORK, c.get("message") or "", since))
    if (node.get("spec") or {}).get("unschedulable"):
        bad.append((UNSCHEDULABLE, "", None))
    if bad:
        return True, bad
    ann = (node.get("metadata") or {}).get("annotations") or {}
    if M.is_node_done(node):
        return False, bad
    if ann.get(M.STATE) in (M.STATE_DEGRADED, M.STATE_UNRECONCILABLE):
        return False, bad
    return True, [(MCD_WORKING, "", None)]


def _version_of(configs: Mapping[str, Mapping[str, Any]], name: str | None) -> tuple[str, bool]:
    mc = configs.get(name or "")
    if mc is None:
        return "", False
    v = ((mc.get("metadata") or {}).get("annotations") or {}).get(M.RELEASE_VERSION) or ""
    return v, bool(v)


def _is_draining(node: Mapping[str, Any], updating: bool) -> bool:
    ann = (node.get("metadata") or {}).get("annotations") or {}
    desired, applied = ann.get(M.DESIRED_DRAIN) or "", ann.get(M.LAST_DRAIN) or ""
    if not applied or not desired:
        return False
    if desired != applied and desired.split("-")[0] == "drain":
        return True
    return updating and ann.get(M.STATE) == M.STATE_DONE


def _node_phase(node: Mapping[str, Any], ann: Mapping[str, str], updating: bool, updated: bool, paused: bool) -> int:
    """The node's update phase, an index of PHASES: Draining, Updating, Rebooting, Paused,
    Pending, Updated."""
    if updating and _is_draining(node, updating):
        return 0
    if updating:
        return {"Working": 1, "Rebooting": 2, "Done": 5}.get(ann.get(M.STATE) or "", 1)
    if updated:
        return 5
    return 3 if paused else 4


def _slows_the_update(bad: Sequence[tuple[str, str, float | None]], now: float) -> bool:
    """Whether one of the node's unavailable reasons is worth an Update Speed insight: not
    merely unschedulable or the MCD at work, and NotReady for 5 minutes or disk/network
    pressure for one."""
    for r, _, since in bad:
        if r in (UNSCHEDULABLE, MCD_WORKING):
            continue
        if r == NOT_READY and since is not None and now - since < 300:
            continue
        if r in (DISK, NETWORK) and since is not None and now - since < 60:
            continue
        return True
    return False


def assess_nodes(cv: Mapping[str, Any], pool: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]],
                 configs: Mapping[str, Mapping[str, Any]], now: float,
                 multi_arch_in_progress: bool = False) -> tuple[list[NodeRow], list[Insight]]:
    rows: list[NodeRow] = []
    insights: list[Insight] = []
    history = (cv.get("status") or {}).get("history") or []
    latest = history[0].get("version") if history else None
    target = ((pool.get("spec") or {}).get("configuration") or {}).get("name") or ""
    paused = bool((pool.get("spec") or {}).get("paused"))
    pool_name = (pool.get("metadata") or {}).get("name") or ""
    for node in nodes:
        name = (node.get("metadata") or {}).get("name") or ""
        ann = (node.get("metadata") or {}).get("annotations") or {}
        desired = ann.get(M.DESIRED)
        current_v, found_current = _version_of(configs, ann.get(M.CURRENT))
        desired_v, found_desired = _version_of(configs, desired)
        unavailable, bad = _unavailable_reasons(node)
        degraded = bool(desired) and ann.get(M.STATE) in (M.STATE_DEGRADED, M.STATE_UNRECONCILABLE)
        matched = ann.get(M.CURRENT) == desired
        # a multi-arch migration keeps the version: a node is updated only once it runs the
        # pool's config (or has no desired config)
        updated = found_current and latest == current_v and (
            not multi_arch_in_progress or desired is None or (matched and desired == target))
        updating = (not updated and found_current and found_desired and latest == desired_v and not matched
                    and desired == target)
        phase = _node_phase(node, ann, updating, updated, paused)
        assessment, estimate = {3: (3, "-"), 4: (4, "?"), 0: (2, "+10m"), 1: (2, "+5m"), 2: (2, "+5m"), 5: (5, "-")}[phase]
        message = summary = description = ""
        if unavailable and not updating:
            assessment = 1
            message = " | ".join(r for r, _, _ in bad)
            summary = " | ".join(f"Node {name} is not ready" if r == NOT_READY else f"Node {name} has disk pressure" if r == DISK
                                 else f"Node {name} has unavailable network" if r == NETWORK else r for r, _, _ in bad)
            description = " | ".join(
                f'Node has a Ready!=True condition with Reason "{NOT_READY}" and message "{m}"' if r == NOT_READY else
                f'Node has a DiskPressure!=False condition with Reason "{DISK}" and message "{m}"' if r == DISK else
                f'Node has a NetworkUnavailable!=False condition with Reason "{NETWORK}" and message "{m}"' if r == NETWORK
                else r for r, m, _ in bad)
            estimate = "-" if updated else "?"
        if degraded:
            assessment = 0
            message = ann.get(M.REASON) or ""
            description = message
            estimate = "-" if updated else "?"
        serious = _slows_the_update(bad, now)
        res = [("nodes", name)]
        if serious and not updating:
            starts = [s for _, _, s in bad if s is not None]
            insights.append(Insight(min(starts) if starts else None, 1, "Update Speed", summary, description, MCO_DOC, res))
        if degraded:
            insights.append(Insight(None, 2, "Update Stalled", f"Node {name} is degraded", description, MCO_DOC, res))
        if len(name) >= 8:
            message = message.replace(name, "<node>")
        rows.append(NodeRow(name, assessment, phase, current_v, estimate, message, unavailable, degraded, updating, updated))
    rows.sort(key=lambda r: (r.assessment, r.phase, r.name))
    return rows, insights


def assess_pool(pool: Mapping[str, Any], rows: list[NodeRow]) -> tuple[Pool, list[Insight]]:
    p = Pool((pool.get("metadata") or {}).get("name") or "", nodes=rows, total=len(rows))
    updated = pending = 0
    for n in rows:
        if not n.unavailable:
            p.available += 1
        if n.degraded:
            p.degraded += 1
        if n.phase == 3:
            p.excluded += 1
            p.outdated += 1
        elif n.phase == 4:
            pending += 1
            p.outdated += 1
        elif n.phase in (0, 1, 2):
            if n.phase == 0:
                p.draining += 1
            p.outdated += 1
            if not n.degraded:
                p.progressing += 1
        elif n.phase == 5:
            updated += 1
    if updated == len(rows):
        p.assessment = "Completed"
    elif pending == len(rows):
        p.assessment = "Pending"
    elif p.degraded:
        p.assessment = "Degraded"
    elif p.excluded:
        p.assessment = "Excluded"
    else:
        p.assessment = "Progressing"
    insights = []
    if p.excluded and (pool.get("spec") or {}).get("paused"):
        insights.append(Insight(None, 1, "Update Stalled", f"Outdated nodes in a paused pool '{p.name}' will not be updated",
                                "Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes "
                                "will not be updated until the pool is unpaused by the administrator.", PAUSED_DOC,
                                [("machineconfigpools.machineconfiguration.openshift.io", p.name)]))
    p.completion = updated / len(rows) * 100.0 if rows else float("nan")
    return p, insights


def write_pools(pools: Sequence[Pool]) -> str:
    rows = [["WORKER POOL", "ASSESSMENT", "COMPLETION", "STATUS"]]
    for p in pools:
        if not p.nodes:
            rows.append([p.name, "Empty", "", f"{p.total} Total"])
            continue
        status = f"{p.available} Available, {p.progressing} Progressing, {p.draining} Draining"
        for label, v in (("Excluded", p.excluded), ("Degraded", p.degraded)):
            if v > 0:
                status += f", {v} {label}"
        rows.append([p.name, p.assessment, f"{p.completion:.0f}% ({p.total - p.outdated}/{p.total})", status])
    return "\n" + tabwriter(rows, minwidth=0, padding=3)


def write_nodes(p: Pool, detailed: bool) -> str:
    if not p.nodes:
        return ""
    if p.name == "master":
        if p.completion == 100:
            return f"\nAll control plane nodes successfully updated to {p.nodes[0].version}\n"
        out = ["\nControl Plane Nodes\n"]
    else:
        out = [f"\nWorker Pool Nodes: {p.name}\n"]
    rows = [["NAME", "ASSESSMENT", "PHASE", "VERSION", "EST", "MESSAGE"]]
    total = completed = available = progressing = outdated = draining = excluded = 0
    for i, n in enumerate(p.nodes):
        if not detailed and i >= 10 and not n.degraded and (not n.unavailable or n.updating):
            total += 1
            if n.updated:
                completed += 1
            else:
                outdated += 1
            if not n.unavailable:
                available += 1
            if n.phase == 0:
                draining += 1
            if n.phase == 3:
                excluded += 1
            if n.assessment == 2:
                progressing += 1
            continue
        rows.append([n.name, ASSESSMENTS[n.assessment], PHASES[n.phase], n.version or "?", n.estimate, n.message])
    out.append(tabwriter(rows, minwidth=0, padding=3))
    if total > 0:
        out.append(f"...\nOmitted additional {total} Total, {completed} Completed, {available} Available, {progressing} Progressing, "
                   f"{outdated} Outdated, {draining} Draining, {excluded} Excluded, and 0 Degraded nodes.\n"
                   "Pass along --details=nodes to see all information.\n")
    return "".join(out)


# --- health ------------------------------------------------------------------------------------------------------------


def write_health(insights: list[Insight], updating_for: float, now: float, detailed: bool) -> str:
    kept = [i for i in insights if not i.incomplete]
    kept.sort(key=lambda i: -(i.started if i.started is not None else -1e18))
    kept.sort(key=lambda i: -i.level)
    allow_detailed = bool(kept)
    if not kept:
        kept = [Insight(now - updating_for, 0, "None", "Update is proceeding well", "", "")]

    def since(i: Insight) -> str:
        if i.started is None:
            return "-"
        return short_duration(math.trunc(now - i.started))

    out = ["= Update Health =\n"]
    if detailed and allow_detailed:
        pad = len("Description: ")
        for n, i in enumerate(kept):
            out.append(f"Message: {i.summary}\n")
            for label, value in (("Since:", since(i)), ("Level:", LEVELS[i.level]), ("Impact:", i.impact), ("Reference:", i.reference)):
                out.append(f"  {label:<{pad}}{value}\n")
            description = i.description.replace("\n", f"\n{' ' * (pad + 2)}, ")
            if i.resources:
                out.append("  Resources:\n")
                kinds: dict[str, list[str]] = {}
                for kind, name in i.resources:
                    kinds.setdefault(f"{kind}: ", []).append(name)
                width = max(len(k) for k in kinds)
                for kind in sorted(kinds):
                    out.append(f"    {kind:<{width}}{', '.join(sorted(kinds[kind]))}\n")
            out.append(f"  {'Description:':<{pad}}{description}\n")
            if n + 1 < len(kept):
                out.append("\n")
        return "".join(out)
    rows = [["SINCE", "LEVEL", "IMPACT", "MESSAGE"]] + [[since(i), LEVELS[i.level], i.impact, i.summary] for i in kept]
    out.append(tabwriter(rows, minwidth=0, padding=3))
    if len(kept) > 1 or kept[0].level != 0:
        out.append("\nRun with --details=health for additional description and links to related online documentation\n")
    return "".join(out)


# --- the command ---------------------------------------------------------------------------------------------------------


def _mco_image(store: Store) -> str | None:
    """The machine-config-operator container's image (None without its Deployment)."""
    deployment = store.get("Deployment", MCO_NAMESPACE, "machine-config-operator")
    if deployment is None:
        return None
    containers = (((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    return next((c.get("image") or "" for c in containers if c.get("name") == "machine-config-operator"), "")


def _assess_pools(cv: Mapping[str, Any], pools: Sequence[Mapping[str, Any]], nodes: Sequence[Mapping[str, Any]],
                  configs: Mapping[str, Mapping[str, Any]], now: float,
                  multi_arch_in_progress: bool = False) -> tuple[Pool | None, list[Pool], list[Insight]]:
    """Each pool assessed from its nodes: the control plane's pool (master), the worker
    pools, and the insights found on the way."""
    per_pool: dict[str, list] = {}
    for node in nodes:
        per_pool.setdefault(which_pool(pools, node), []).append(node)
    insights: list[Insight] = []
    workers: list[Pool] = []
    control_pool: Pool | None = None
    for pool in pools:
        name = (pool.get("metadata") or {}).get("name") or ""
        rows, found = assess_nodes(cv, pool, per_pool.get(name, []), configs, now, multi_arch_in_progress)
        insights += found
        p, found = assess_pool(pool, rows)
        insights += found
        if name == "master":
            control_pool = p
        else:
            workers.append(p)
    return control_pool, workers, insights


def status(store: Store, args: Sequence[str], now: float = 0.0, *,
           files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> OcResult:
    positional, f = parse_flags(args, [Flag("details", "string", "", "none")])
    if positional:
        raise OcError("positional arguments given", usage=True)
    details = f["details"]
    if details not in DETAILS:
        raise OcError(f"invalid value for --details: {details} (must be one of {', '.join(DETAILS)})")

    def enabled(what: str) -> bool:
        return details in ("all", what)

    cv = store.get("ClusterVersion", "", "version")
    if cv is None:
        raise OcError("no cluster version information available - you must be connected to an OpenShift version 4 server to "
                      "fetch the current version")
    operators = sorted(store.list("ClusterOperator"), key=lambda d: (d.get("metadata") or {}).get("name") or "")
    if not operators:
        raise OcError("no cluster operator information available - you must be connected to an OpenShift version 4 server")
    progressing = find(_conds(cv), "Progressing")
    if progressing is None:
        raise OcError("no current Progressing info, see `oc describe clusterversion` for more details.\n")
    pools = store.list("MachineConfigPool")
    nodes = store.list("Node")
    configs = {(mc.get("metadata") or {}).get("name") or "": mc for mc in store.list("MachineConfig")}
    mco_image = _mco_image(store)
    # a multi-arch migration in progress (the Progressing condition, as upstream reads it)
    multi_arch = multi_arch_migration((cv.get("status") or {}).get("history") or []) and progressing.get("status") == "True"
    control_pool, workers, insights = _assess_pools(cv, pools, nodes, configs, now, multi_arch)
    outdated_workers = any(p.total > 0 and p.completion != 100 for p in workers)
    if progressing.get("status") != "True" and not outdated_workers:
        return OcResult(stdout="The cluster is not updating.\n")
    history = (cv.get("status") or {}).get("history") or []
    started = _t(progressing.get("lastTransitionTime")) or 0.0
    if history:
        started = _t(history[0].get("startedTime")) or 0.0
    updating_for = go_round(now - started, 1)
    files = files or {}
    if files.get(ALERTS_FILE):
        alert_data: Any = files[ALERTS_FILE][0]
    elif SNAPSHOT in files:
        alert_data = None  # a snapshot has no Prometheus to ask: upstream's mock reads no alerts, derives none
    else:
        alert_data = AL.alert_data(store, F.facts_from_store(store, (files.get(FACTS_FILE) or [None])[0]), now)
    if alert_data is not None:
        insights += alert_insights(alert_data, started)
    plane, found = assess_control_plane(cv, operators, mco_image, now)
    insights += found
    out = [write_control_plane(plane, enabled("operators"), now)]
    if control_pool is not None:
        out.append(write_nodes(control_pool, enabled("nodes")))
    if any(p.nodes for p in workers):
        out.append("\n= Worker Upgrade =\n")
        out.append(write_pools(workers))
        for p in workers:
            out.append(write_nodes(p, enabled("nodes")))
    out.append("\n")
    out.append(write_health(insights, updating_for, now, enabled("health")))
    return OcResult(stdout="".join(out))


status.uses_files = True
