"""The simulated cluster's alerts, as Prometheus' /api/v1/alerts answers them (what `oc adm
inspect-alerts` prints and `oc adm upgrade recommend` / `status` read).

Two sources:
* alerts the user fires (`facts["alerts"]`, set on Cluster Settings or given in the
  ClusterVersion's `clusterui.io/facts` annotation): whatever a real cluster might fire that
  the simulation does not model (an image pull stuck, kubelet health, a precheck alert). A
  name of PRESETS gets that rule's severity and annotations from its labels;
* alerts derived from the objects, with the real rules' expressions, labels, annotations and
  `for` durations (a condition holding for less than `for` is "pending", as in Prometheus):
  ClusterOperatorDown and ClusterOperatorDegraded (openshift/cluster-version-operator
  install/0000_90_cluster-version-operator_02_servicemonitor.yaml; no console_url metric is
  simulated, so the description has no console link), KubeNodeNotReady and
  KubeNodeUnreachable (openshift/cluster-monitoring-operator assets/control-plane/
  prometheus-rule.yaml), PodDisruptionBudgetAtLimit and PodDisruptionBudgetLimit
  (openshift/cluster-kube-controller-manager-operator manifests/0000_90_..._05_alerts.yaml).
  The durations come from the conditions' lastTransitionTime. A PodDisruptionBudget's status
  records no transition time (Kubernetes 1.11), so its alerts fire as soon as the expression
  holds: the rules' `for: 60m` / `for: 15m` are not simulated (activeAt is "now").
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.oc.output import seconds, timestamp
from scheduling.engine.store import Store, name_of, namespace_of

from .conditions import find

CVO_NAMESPACE = "openshift-cluster-version"
KSM_LABELS = {"job": "kube-state-metrics", "namespace": "openshift-monitoring", "service": "kube-state-metrics",
              "container": "kube-rbac-proxy-main", "endpoint": "https-main"}
RUNBOOKS = "https://github.com/openshift/runbooks/blob/master/alerts/"
SEVERITIES = ("critical", "warning", "info", "none")
PRECHECK_LABEL = "openShiftUpdatePrecheck"

# Rules a user may fire by name: severity, fixed labels, the labels to give, annotations
# (str.format over the labels; `value` is the alert's value).
PRESETS: dict[str, dict[str, Any]] = {
    "KubeContainerWaiting": {
        "severity": "warning", "labels": {}, "needs": ("namespace", "pod", "container", "reason"),
        "annotations": {
            "description": 'pod/{pod} in namespace {namespace} on container {container} has been in waiting state for longer '
                           'than 1 hour. (reason: "{reason}").',
            "summary": "Pod container waiting longer than 1 hour"},
        "source": "openshift/cluster-monitoring-operator assets/control-plane/prometheus-rule.yaml"},
    "KubeNodeReadinessFlapping": {
        "severity": "warning", "labels": {"namespace": "kube-system"}, "needs": ("node",),
        "annotations": {
            "description": "The readiness status of node {node} has changed {value} times in the last 15 minutes.",
            "summary": "Node readiness status is flapping."},
        "source": "openshift/cluster-monitoring-operator assets/control-plane/prometheus-rule.yaml"},
    "KubeletHealthState": {
        "severity": "warning", "labels": {"namespace": "openshift-machine-config-operator"}, "needs": ("node",),
        "annotations": {
            "summary": "This keeps track of Kubelet health failures, and tallies them. The warning is triggered if 2 or more "
                       "failures occur.",
            "description": "Kubelet health failure threshold reached",
            "runbook_url": RUNBOOKS + "machine-config-operator/KubeletHealthState.md"},
        "source": "openshift/machine-config-operator install/0000_90_machine-config_01_prometheus-rules.yaml"},
}
# Derived from the objects (the page says so; they cannot be fired by hand).
DERIVED = ("ClusterOperatorDown", "ClusterOperatorDegraded", "KubeNodeNotReady", "KubeNodeUnreachable",
           "PodDisruptionBudgetAtLimit", "PodDisruptionBudgetLimit")


class AlertError(ValueError):
    """A user alert that cannot be fired; str() says why."""


def _refer(name: str) -> str:
    return "oc adm upgrade" if name == "version" else f"oc get -o yaml clusteroperator {name}"


def _alert(labels: Mapping[str, str], annotations: Mapping[str, str], since: float, now: float, hold: float,
           value: str = "1e+00") -> dict:
    """One entry of /api/v1/alerts: pending until the expression held `hold` seconds."""
    return {"labels": dict(labels), "annotations": dict(annotations),
            "state": "firing" if now - since >= hold else "pending", "activeAt": timestamp(since), "value": value}


def _since(condition: Mapping[str, Any] | None, now: float) -> float:
    t = seconds((condition or {}).get("lastTransitionTime"))
    return now if t is None else min(t, now)


def _operator_alerts(name: str, up: Mapping[str, Any] | None, degraded: Mapping[str, Any] | None, now: float) -> list[dict]:
    out = []
    if up is not None and up.get("status") != "True":
        reason = up.get("reason") or ""
        labels = {"alertname": "ClusterOperatorDown", "name": name, "namespace": CVO_NAMESPACE, "severity": "critical"}
        if reason:
            labels["reason"] = reason
        out.append(_alert(labels, {
            "description": f"The {name} operator may be down or disabled because {reason}, and the components it manages may be "
                           f"unavailable or degraded.  Cluster upgrades may not complete. For more information refer to "
                           f"'{_refer(name)}'.",
            "runbook_url": RUNBOOKS + "cluster-monitoring-operator/ClusterOperatorDown.md",
            "summary": "Cluster operator has not been available for 10 minutes."}, _since(up, now), now, 600, "0e+00"))
    if degraded is None or degraded.get("status") == "True":
        reason = (degraded or {}).get("reason") or ""
        labels = {"alertname": "ClusterOperatorDegraded", "name": name, "namespace": CVO_NAMESPACE, "severity": "warning"}
        if reason:
            labels["reason"] = reason
        out.append(_alert(labels, {
            "description": f"The {name} operator is degraded because {reason}, and the components it manages may have reduced "
                           f"quality of service.  Cluster upgrades may not complete. For more information refer to "
                           f"'{_refer(name)}'.",
            "runbook_url": RUNBOOKS + "cluster-monitoring-operator/ClusterOperatorDegraded.md",
            "summary": "Cluster operator has been degraded for 30 minutes."}, _since(degraded, now), now, 1800))
    return out


def derived_alerts(store: Store, now: float) -> list[dict]:
    """The alerts the rules above fire (or have pending) on the objects of `store` at `now`."""
    out: list[dict] = []
    cv = store.get("ClusterVersion", "", "version")
    if cv is not None:
        conds = (cv.get("status") or {}).get("conditions")
        out += _operator_alerts("version", find(conds, "Available"), find(conds, "Failing") or {"status": "False"}, now)
    for co in sorted(store.list("ClusterOperator"), key=name_of):
        conds = (co.get("status") or {}).get("conditions")
        out += _operator_alerts(name_of(co), find(conds, "Available") or {"status": "False"}, find(conds, "Degraded"), now)
    for node in sorted(store.list("Node"), key=name_of):
        name = name_of(node)
        spec = node.get("spec") or {}
        ready = find((node.get("status") or {}).get("conditions"), "Ready")
        if ready is not None and ready.get("status") != "True" and not spec.get("unschedulable"):
            out.append(_alert({"alertname": "KubeNodeNotReady", "condition": "Ready", **KSM_LABELS, "node": name,
                               "severity": "warning", "status": "true"},
                              {"description": f"{name} has been unready for more than 15 minutes.",
                               "runbook_url": RUNBOOKS + "cluster-monitoring-operator/KubeNodeNotReady.md",
                               "summary": "Node is not ready."}, _since(ready, now), now, 900, "0e+00"))
        taints = spec.get("taints") or ()
        evicting = any(t.get("key") in ("ToBeDeletedByClusterAutoscaler", "cloud.google.com/impending-node-termination",
                                        "aws-node-termination-handler/spot-itn") for t in taints)
        if not evicting and any(t.get("key") == "node.kubernetes.io/unreachable" and t.get("effect") == "NoSchedule" for t in taints):
            out.append(_alert({"alertname": "KubeNodeUnreachable", **KSM_LABELS, "effect": "NoSchedule",
                               "key": "node.kubernetes.io/unreachable", "node": name, "severity": "warning"},
                              {"description": f"{name} is unreachable and some workloads may be rescheduled.",
                               "summary": "Node is unreachable."}, _since(ready, now), now, 900))
    for pdb in sorted(store.list("PodDisruptionBudget"), key=lambda d: (namespace_of(d), name_of(d))):
        status = pdb.get("status") or {}
        if "currentHealthy" not in status:
            continue  # the disruption controller has not looked at it yet
        current, desired = int(status.get("currentHealthy") or 0), int(status.get("desiredHealthy") or 0)
        labels = {"namespace": namespace_of(pdb), "poddisruptionbudget": name_of(pdb)}
        if current == desired and int(status.get("expectedPods") or 0) > 0:
            out.append(_alert({"alertname": "PodDisruptionBudgetAtLimit", **labels, "severity": "warning"}, {
                "description": "The pod disruption budget is at the minimum disruptions allowed level. The number of current "
                               "healthy pods is equal to the desired healthy pods.",
                "runbook_url": RUNBOOKS + "cluster-kube-controller-manager-operator/PodDisruptionBudgetAtLimit.md",
                "summary": "The pod disruption budget is preventing further disruption to pods."}, now, now, 0))
        elif current < desired:
            out.append(_alert({"alertname": "PodDisruptionBudgetLimit", **labels, "severity": "critical"}, {
                "description": "The pod disruption budget is below the minimum disruptions allowed level and is not satisfied. "
                               "The number of current healthy pods is less than the desired healthy pods.",
                "runbook_url": RUNBOOKS + "cluster-kube-controller-manager-operator/PodDisruptionBudgetLimit.md",
                "summary": "The pod disruption budget registers insufficient amount of pods."}, now, now, 0))
    return out


def user_alert(name: str, labels: Mapping[str, str], now: float, *, severity: str = "", summary: str = "",
               description: str = "", runbook_url: str = "", precheck: bool = False, value: str = "") -> dict:
    """An alert the user fires (as kept in facts["alerts"]): a PRESETS name takes its rule's
    severity and annotations from the labels it needs; any other name is taken as given."""
    name = (name or "").strip()
    if not name or any(c.isspace() for c in name):
        raise AlertError("an alert needs a name without spaces (its alertname label)")
    if name in DERIVED:
        raise AlertError(f"{name} fires from the cluster's state here: change the objects (or their conditions) instead")
    labels = {str(k).strip(): str(v).strip() for k, v in labels.items() if str(k).strip()}
    preset = PRESETS.get(name)
    annotations: dict[str, str] = {}
    if preset is not None:
        missing = [k for k in preset["needs"] if not labels.get(k)]
        if missing:
            raise AlertError(f"{name} needs the label{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        labels = {**labels, **preset["labels"]}
        severity = severity or preset["severity"]
        fields = {**labels, "value": value or "3"}
        annotations = {k: v.format(**fields) for k, v in preset["annotations"].items()}
    severity = severity or "warning"
    if severity not in SEVERITIES:
        raise AlertError(f"severity must be one of {', '.join(SEVERITIES)}")
    for key, text in (("summary", summary), ("description", description), ("runbook_url", runbook_url)):
        if text.strip():
            annotations[key] = text.strip()
    labels = {"alertname": name, **{k: v for k, v in labels.items() if k != "alertname"}, "severity": severity}
    if precheck:
        labels[PRECHECK_LABEL] = "true"
    return {"labels": labels, "annotations": dict(sorted(annotations.items())), "state": "firing",
            "activeAt": timestamp(now), "value": value or "1e+00"}


def parse_labels(text: str) -> dict[str, str]:
    """`namespace=openshift-monitoring pod=web-1` (spaces or commas) -> labels."""
    out = {}
    for word in (text or "").replace(",", " ").split():
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise AlertError(f'labels are key=value pairs: "{word}" is not')
        out[key] = value.strip('"')
    return out


def alert_data(store: Store, facts: Mapping[str, Any], now: float) -> dict:
    """/api/v1/alerts of the simulated cluster: the user's alerts, then the derived ones."""
    given: Sequence[Mapping[str, Any]] = [a for a in (facts or {}).get("alerts") or () if isinstance(a, Mapping)]
    return {"status": "success", "data": {"alerts": [dict(a) for a in given] + derived_alerts(store, now)}}
