"""`oc adm upgrade recommend` as current openshift/oc prints it (pkg/cli/admin/upgrade/recommend:
recommend.go, precheck.go, alerts.go, mockresources.go): the cluster's Failing and
Progressing conditions, the alert prechecks (critical alerts, PodDisruptionBudget, image
pull, node, update-precheck and virtualization alerts), `--accept` of the issues found, the
Upgradeable=False condition injected as a risk of minor-version targets, and the targets by
major.minor, or the context of one target with `--version` (non-zero exit while an issue
is not accepted).

Alerts: the alert data (Prometheus /api/v1/alerts) is, in order, the file given to
`manage.py oc --alerts FILE` (files["--alerts"]); with `--mock-clusterversion=PATH` (the
hidden flag oc's tests use) the `-alerts.json` file beside PATH, and when there is none, the
recommended/Alert=Unknown NoTestData condition; otherwise the simulated cluster's own alerts
(scheduling.engine.openshift.alerts: the ones the user fires and the ones derived from the objects).
Stored clusters hand their settings' facts as files["cluster-facts"] (scheduling.store.oc_cli).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from scheduling.engine.api.validation.decode import Decoder, list_node, scalar_node, struct_node
from scheduling.engine.oc.core import Flag, OcError, OcResult, parse_flags
from scheduling.engine.oc.output import tabwriter
from scheduling.engine.store import Store

from . import alerts as AL
from . import facts as F
from .conditions import find
from .versions import Version, VersionError

NO_CV = ("No cluster version information available - you must be connected to an OpenShift version 4 server to fetch "
         "the current version")
FLAGS = [Flag("show-outdated-releases"), Flag("version", "string", "", ""), Flag("quiet"), Flag("accept", "strings", "", ()),
         Flag("mock-clusterversion", "string", "", "")]
# the alerts oc picks out (alerts.go), besides any critical one and any with openShiftUpdatePrecheck="true"
KNOWN_ALERTS = ("PodDisruptionBudgetAtLimit", "PodDisruptionBudgetLimit", "KubeContainerWaiting", "KubeletHealthState",
                "KubeNodeNotReady", "KubeNodeReadinessFlapping", "KubeNodeUnreachable", "VirtHandlerDaemonSetRolloutFailing",
                "VMCannotBeEvicted")
ALERTS_FILE = "--alerts"
FACTS_FILE = "cluster-facts"

Doc = Mapping[str, Any]


@dataclass
class Condition:
    """precheck.go's acceptableCondition: a metav1.Condition and the name --accept takes."""

    type: str
    status: str
    reason: str
    message: str
    acceptance_name: str = ""


def _indent(text: str) -> str:
    return (text or "").replace("\n", "\n  ")


_S = scalar_node("str")
# the part of oc's AlertData (pkg/cli/admin/upgrade/status) that alert_conditions reads
_ALERT_DATA = struct_node("status.AlertData", data=struct_node("status.Data", alerts=list_node(struct_node(
    "status.Alert",
    labels=struct_node("status.AlertLabels", **{k: _S for k in ("alertname", "namespace", "poddisruptionbudget", "severity",
                                                              AL.PRECHECK_LABEL)}),
    annotations=struct_node("status.AlertAnnotations", **{k: _S for k in ("description", "message", "runbook_url", "summary")}),
    state=_S,
    activeAt=scalar_node("time", "string"),
), "[]status.Alert")))


def _alert_details(name: str, annotations: Mapping[str, Any]) -> str:
    """What alerts.go says of a firing alert: its summary (ending with a period), its
    description and message, its runbook URL."""
    summary = annotations.get("summary") or name
    if not summary.endswith("."):
        summary += "."
    description, message = annotations.get("description") or "", annotations.get("message") or ""
    if message and description:
        description = f" The alert description is: {description} | {message}"
    elif description or message:
        description = f" The alert description is: {description or message}"
    else:
        description = " The alert has no description."
    runbook = annotations.get("runbook_url") or "<alert does not have a runbook_url annotation>"
    return f"{summary}{description} {runbook}"


def alert_conditions(data: Any) -> list[Condition]:
    """alerts.go: one False condition per firing alert oc knows to matter for updates, and a
    True AsExpected one for each group without any."""
    if not isinstance(data, Mapping) or not isinstance(data.get("data") or {}, Mapping) \
            or not isinstance((data.get("data") or {}).get("alerts") or [], list):
        raise ValueError("parsing alerts: json: cannot unmarshal the alert data into Go value of type status.AlertData")
    decoder = Decoder()
    decoder.walk(data, _ALERT_DATA, "", [])
    if decoder.error is not None:  # a value Go's types cannot hold, as json.Unmarshal refuses it
        raise ValueError(f"parsing alerts: {decoder.error[1]}")
    conditions: list[Condition] = []
    i = 0
    have = {"critical": False, "precheck": False, "pdb": False, "pull": False, "nodes": False}
    for alert in (data.get("data") or {}).get("alerts") or ():
        if not isinstance(alert, Mapping):
            continue
        labels = alert.get("labels") or {}
        annotations = alert.get("annotations") or {}
        name = labels.get("alertname") or ""
        if not name or alert.get("state") == "pending":
            continue
        details = _alert_details(name, annotations)
        severity, state = labels.get("severity") or "", alert.get("state") or ""
        head = f"{severity} alert {name} {state}"
        pdb_details = f"Namespace={labels.get('namespace') or ''}, PodDisruptionBudget={labels.get('poddisruptionbudget') or ''}. {details}"
        if severity == "critical":
            have["critical"] = True
            if name == "PodDisruptionBudgetLimit":
                have["pdb"] = True
                details = pdb_details
            group, text = "CriticalAlerts", f"{head}, suggesting significant cluster issues worth investigating. {details}"
        elif name == "PodDisruptionBudgetAtLimit":
            have["pdb"] = True
            group, text = "PodDisruptionBudgetAlerts", f"{head}, which might slow node drains. {pdb_details}"
        elif name == "KubeContainerWaiting":
            have["pull"] = True
            group, text = "PodImagePullAlerts", f"{head}, which may slow workload redistribution during rolling node updates. {details}"
        elif name in ("KubeletHealthState", "KubeNodeNotReady", "KubeNodeReadinessFlapping", "KubeNodeUnreachable"):
            have["nodes"] = True
            group, text = "NodeAlerts", f"{head}, which may slow workload redistribution during rolling node updates. {details}"
        elif labels.get(AL.PRECHECK_LABEL) == "true":
            have["precheck"] = True
            group, text = "UpdatePrecheckAlerts", f"{head}, suggesting issues worth investigating before updating the cluster. {details}"
        elif name in ("VirtHandlerDaemonSetRolloutFailing", "VMCannotBeEvicted"):
            group, text = "VirtAlerts", f"{head}, which may slow workload redistribution during rolling node updates. {details}"
        else:
            continue
        conditions.append(Condition(f"recommended/{group}/{name}/{i}", "False", f"Alert:{state}", text, name))
        i += 1
    for key, group, message in (("critical", "CriticalAlerts", "No critical alerts firing."),
                                ("pdb", "PodDisruptionBudgetAlerts", "No PodDisruptionBudget alerts firing."),
                                ("pull", "PodImagePullAlerts", "No Pod container image pull alerts firing."),
                                ("nodes", "NodeAlerts", "No Node alerts firing."),
                                ("precheck", "UpdatePrecheckAlerts", "No alerts with the openShiftUpdatePrecheck label true are firing.")):
        if not have[key]:
            conditions.append(Condition(f"recommended/{group}", "True", "AsExpected", message))
    return conditions


def not_recommended(update: Doc) -> Mapping[str, Any] | None:
    """notRecommendedCondition: the Recommended condition unless True; risks without
    conditions are Unknown (the risk names listed as oc lists them)."""
    risks = update.get("risks") or []
    if not risks:
        return None
    c = find(update.get("conditions"), "Recommended")
    if c is not None:
        return None if c.get("status") == "True" else c
    names = sorted([""] * len(risks) + [r.get("name") or "" for r in risks])  # oc makes the slice with len(risks) empty names
    return {"type": "Recommended", "status": "Unknown", "reason": "NoConditions",
            "message": f"Conditional update to {(update.get('release') or {}).get('version')} has risks ({', '.join(names)}), but no conditions."}


def _upgradeable_uri(current: Version) -> str:
    if current.minor <= 13:
        return (f"https://docs.openshift.com/container-platform/{current.major}.{current.minor}/updating/index.html"
                "#understanding_clusteroperator_conditiontypes_updating-clusters-overview")
    return (f"https://docs.openshift.com/container-platform/{current.major}.{current.minor}/updating/preparing_for_updates/"
            "updating-cluster-prepare.html#cluster-upgradeable_updating-cluster-prepare")


def _ensure_upgradeable_risk(target: dict, condition: Mapping[str, Any], uri: str) -> dict:
    message = condition.get("message") or ""
    if any(message in (r.get("message") or "") for r in target.get("risks") or ()):
        return target
    target = copy.deepcopy(target)
    target["risks"] = list(target.get("risks") or []) + [
        {"url": uri, "name": "UpgradeableFalse", "message": message, "matchingRules": [{"type": "Always"}]}]
    conditions = list(target.get("conditions") or [])
    for i, c in enumerate(conditions):
        if c.get("type") == "Recommended":
            if c.get("status") == "True":
                conditions[i] = {**c, "reason": condition.get("reason") or "", "message": message}
            else:
                conditions[i] = {**c, "reason": "MultipleReasons", "message": f"{message}\n\n{c.get('message') or ''}"}
            conditions[i]["status"] = "False"
            target["conditions"] = conditions
            return target
    target["conditions"] = conditions + [{"type": "Recommended", "status": "False", "reason": condition.get("reason") or "",
                                          "message": message}]
    return target


def _version_key(update: Doc):
    v = (update.get("release") or {}).get("version") or ""
    try:
        return (1, Version(v), "")
    except VersionError:
        return (0, Version("0.0.0"), v)


class _Output:
    """stdout and stderr in the order oc writes them."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def out(self, text: str) -> None:
        self.lines.append(("stdout", text))

    def err(self, text: str) -> None:
        self.lines.append(("stderr", text))

    def result(self, error: str = "") -> OcResult:
        if error:
            self.err(f"error: {error}\n")
        return OcResult(stdout="".join(t for s, t in self.lines if s == "stdout"),
                        stderr="".join(t for s, t in self.lines if s == "stderr"),
                        exit_code=1 if error else 0, lines=list(self.lines))


def _mock(files: Mapping[str, Sequence[Mapping[str, Any]]], path: str) -> tuple[dict, Any, str]:
    """mockData.load: the ClusterVersion of PATH (a List: its first item) and the alert data
    of the -alerts.json file beside it (None when there is none)."""
    docs = files.get(path)
    if docs is None:
        raise OcError(f"open {path}: no such file or directory")
    if not docs or docs[0].get("kind") != "ClusterVersion":
        kind = docs[0].get("kind") if docs else "List"
        raise OcError(f"unexpected object type *v1.{kind} in --mock-clusterversion={path} content")
    alerts_path = path.replace("-cv.yaml", "-alerts.json", 1)
    alert_docs = files.get(alerts_path)
    return dict(docs[0]), (alert_docs[0] if alert_docs else None), alerts_path


def recommend(store: Store, args: Sequence[str], now: float = 0.0, *,
              files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> OcResult:
    positional, f = parse_flags(args, FLAGS)
    if positional:
        raise OcError(f"unexpected arguments: [{' '.join(positional)}]", usage=True)
    files = files or {}
    accept = {a for value in f["accept"] for a in value.split(",") if a}
    quiet, outdated = f.quiet, f["show-outdated-releases"]
    mock_cv = mock_alerts = None
    alerts_path = ""
    if f["mock-clusterversion"]:
        mock_cv, mock_alerts, alerts_path = _mock(files, f["mock-clusterversion"])
    want: Version | None = None
    if not f["version"]:
        if quiet:
            raise OcError("--quiet can only be set when --version is set")
    else:
        if outdated:
            raise OcError("when --version is set, --show-outdated-releases is unnecessary")
        try:
            want = Version(f["version"])
        except VersionError as exc:
            raise OcError(f'cannot parse SemVer target "{f["version"]}": {exc}') from None

    issues: set[str] = set()
    cv = mock_cv if mock_cv is not None else store.get("ClusterVersion", "", "version")
    if cv is None:
        raise OcError(NO_CV)
    o = _Output()
    spec, status = cv.get("spec") or {}, cv.get("status") or {}
    conds = status.get("conditions") or []

    c = find(conds, "Failing")
    accepted = "accepted " if "Failing" in accept else ""
    if c is not None:
        if c.get("status") != "False":
            if not quiet:
                o.out(f"{accepted}{c.get('type')}={c.get('status')}:\n\n  Reason: {c.get('reason', '')}\n  Message: "
                      f"{_indent(c.get('message', ''))}\n\n")
            issues.add("Failing")
    else:
        if not quiet:
            o.err(f"{accepted}warning: No current Failing info, see `oc describe clusterversion` for more details.\n")
        issues.add("Failing")

    c = find(conds, "Progressing")
    if c is not None and c.get("status") == "True" and c.get("message"):
        accepted = "accepted " if "Progressing" in accept else ""
        if not quiet:
            o.out(f"{accepted}info: An update is in progress.  You may wish to let this update complete before requesting a new "
                  f"update.\n  {_indent(c.get('message', ''))}\n\n")
        issues.add("Progressing")

    # precheck: the alerts
    conditions: list[Condition] = []
    try:
        if mock_cv is not None:
            if mock_alerts is None:
                conditions = [Condition("recommended/Alert", "Unknown", "NoTestData",
                                        f"This --mock-clusterversion run did not have alert data available at {alerts_path}",
                                        "AlertNoTestData")]
            else:
                conditions = alert_conditions(mock_alerts)
        elif files.get(ALERTS_FILE):
            conditions = alert_conditions(files[ALERTS_FILE][0])
        else:
            settings = (files.get(FACTS_FILE) or [None])[0]
            conditions = alert_conditions(AL.alert_data(store, F.facts_from_store(store, settings), now))
    except ValueError as exc:
        if not quiet:
            o.out(f"Failed to check for at least some preconditions: {exc}\n")
        issues.add("FailedToCompletePrecheck")
    happy, accepted_types, unhappy = [], [], []
    for cond in conditions:
        if cond.status == "True":
            happy.append(f"{cond.type} ({cond.reason})")
        else:
            issues.add(cond.acceptance_name)
            (accepted_types if cond.acceptance_name in accept else unhappy).append(cond.type)
    if not quiet:
        if happy:
            o.out("The following conditions found no cause for concern in updating this cluster to later releases: "
                  f"{', '.join(sorted(happy))}\n\n")
        if accepted_types:
            o.out("The following conditions found cause for concern in updating this cluster to later releases, but were "
                  f"explicitly accepted via --accept: {', '.join(sorted(accepted_types))}\n\n")
        if unhappy:
            o.out(f"The following conditions found cause for concern in updating this cluster to later releases: "
                  f"{', '.join(sorted(unhappy))}\n\n")
            for cond in conditions:
                if cond.status != "True":
                    o.out(f"{cond.type}={cond.status}:\n\n  Reason: {cond.reason}\n  Message: {_indent(cond.message)}\n\n")

    c = find(conds, "RetrievedUpdates")
    if c is not None and c.get("status") != "True":
        if not quiet:
            o.err(f"warning: Cannot refresh available updates:\n  Reason: {c.get('reason', '')}\n  Message: "
                  f"{_indent(c.get('message', ''))}\n\n")
        issues.add("CannotRetrieveUpdates")

    if not quiet and spec.get("channel"):
        if not spec.get("upstream"):
            o.out("Upstream update service is unset, so the cluster will use an appropriate default.\n")
        else:
            o.out(f"Upstream update service: {spec['upstream']}\n")
        channels = (status.get("desired") or {}).get("channels") or []
        o.out(f"Channel: {spec['channel']} (available channels: {', '.join(channels)})\n" if channels
              else f"Channel: {spec['channel']}\n")

    buckets: dict[int, dict[int, list[dict]]] = {}
    conditional = status.get("conditionalUpdates") or []
    for u in conditional:
        v = (u.get("release") or {}).get("version") or ""
        try:
            pv = Version(v)
        except VersionError as exc:
            if not quiet:
                o.err(f'warning: Cannot parse SemVer available update "{v}": {exc}')
            continue
        buckets.setdefault(pv.major, {}).setdefault(pv.minor, []).append(dict(u))
    images = {(u.get("release") or {}).get("image") for u in conditional}
    for r in status.get("availableUpdates") or []:
        if r.get("image") in images:
            continue
        try:
            pv = Version(r.get("version") or "")
        except VersionError as exc:
            if not quiet:
                o.err(f'warning: Cannot parse SemVer available update "{r.get("version") or ""}": {exc}')
            continue
        buckets.setdefault(pv.major, {}).setdefault(pv.minor, []).append({"release": dict(r)})

    c = find(conds, "Upgradeable")
    if c is not None and c.get("status") == "False":
        current_text = (status.get("desired") or {}).get("version") or ""
        try:
            current = Version(current_text)
        except VersionError as exc:
            if not quiet:
                o.err(f"warning: Cannot inject {c.get('type')}={c.get('status')} as a conditional update risk: cannot parse "
                      f'SemVer version "{current_text}": {exc}\n\nReason: {c.get("reason", "")}\n  Message: '
                      f"{_indent(c.get('message', ''))}\n\n")
        else:
            uri = _upgradeable_uri(current)
            for major, minors in buckets.items():
                if major < current.major:
                    continue
                for minor, targets in minors.items():
                    if major == current.major and minor <= current.minor:
                        continue
                    minors[minor] = [_ensure_upgradeable_risk(t, c, uri) for t in targets]

    if want is not None:
        if not buckets:
            return o.result(f"no updates available, so cannot display context for the requested release {want.text}")
        if want.major not in buckets:
            return o.result(f"no updates to {want.major} available, so cannot display context for the requested release {want.text}")
        if want.minor not in buckets[want.major]:
            return o.result(f"no updates to {want.major}.{want.minor} available, so cannot display context for the requested "
                            f"release {want.text}")
        for update in buckets[want.major][want.minor]:
            release = update.get("release") or {}
            if release.get("version") != want.text:
                continue
            if not quiet:
                o.out("\n")
            c = not_recommended(update)
            if c is None:
                if not quiet:
                    o.out(f"Update to {release.get('version')} has no known issues relevant to this cluster.\nImage: "
                          f"{release.get('image', '')}\nRelease URL: {release.get('url', '')}\n")
            else:
                if not quiet:
                    reason = c.get("reason", "")
                    if "ConditionalUpdateRisk" in accept:
                        reason = f"accepted {reason} via ConditionalUpdateRisk"
                    o.out(f"Update to {release.get('version')} {c.get('type')}={c.get('status')}:\nImage: {release.get('image', '')}\n"
                          f"Release URL: {release.get('url', '')}\nReason: {reason}\nMessage: {_indent(c.get('message', ''))}\n")
                issues.add("ConditionalUpdateRisk")
            unaccepted = issues - accept
            if unaccepted:
                return o.result("issues that apply to this cluster but which were not included in --accept: "
                                + ",".join(sorted(unaccepted)))
            if issues and not quiet:
                o.out(f"Update to {release.get('version')} has no known issues relevant to this cluster other than the accepted "
                      f"{','.join(sorted(issues))}.\n")
            return o.result()
        return o.result(f"no update to {want.text} available, so cannot display context for the requested release")

    if not buckets:
        o.out("No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates "
              "to be available.\n")
        return o.result()
    for major in sorted(buckets, reverse=True):
        for minor in sorted(buckets[major], reverse=True):
            updates = sorted(buckets[major][minor], key=_version_key, reverse=True)
            o.out(f"\nUpdates to {major}.{minor}:\n")
            last_was_long = False
            header_queued = True
            buffered: list[list[str]] = [["  VERSION", "ISSUES"]]  # what the tabwriter holds until Flush

            def flush() -> None:
                if buffered:
                    o.out(tabwriter(buffered, minwidth=14, padding=1))
                    buffered.clear()

            for i, u in enumerate(updates):
                c = not_recommended(u)
                if last_was_long or (c is not None and not outdated):
                    o.out("\n")
                    if c is None and not header_queued:
                        buffered.append(["  VERSION", "ISSUES"])
                        header_queued = True
                    last_was_long = False
                if i == 2 and not outdated:
                    o.out(f"And {len(updates) - 2} older {major}.{minor} updates you can see with '--show-outdated-releases' "
                          "or '--version VERSION'.\n")
                    last_was_long = True
                    break
                release = u.get("release") or {}
                if c is None:
                    buffered.append([f"  {release.get('version', '')}", "no known issues relevant to this cluster"])
                    if not outdated:
                        header_queued = False
                        flush()
                elif outdated:
                    buffered.append([f"  {release.get('version', '')}", c.get("reason", "")])
                else:
                    o.out(f"  Version: {release.get('version', '')}\n  Image: {release.get('image', '')}\n")
                    o.out(f"  Reason: {c.get('reason', '')}\n  Message: {_indent((c.get('message') or '').strip())}\n")
                    last_was_long = True
            if outdated:
                flush()
    return o.result()


recommend.uses_files = True
recommend.help_text = """Displays cluster update recommendations.

 This subcommand is read-only and does not affect the state of the cluster. To request an update, use the 'oc adm upgrade' subcommand.

 By default, this command displays recent potential target releases.  Use '--version VERSION' to display context for a particular target release.  Use '--show-outdated-releases' to display all known targets, including older releases.

Usage:
  oc adm upgrade recommend [flags] [options]

Use "oc options" for a list of global command-line options (applies to all commands).
"""
