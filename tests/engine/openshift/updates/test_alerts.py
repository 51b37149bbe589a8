"""The simulated cluster's alerts (scheduling.engine.openshift.alerts): derived from the objects with the
real rules' labels, annotations and `for` durations, or fired by the user; and how `oc adm
upgrade recommend` sorts them into its conditions (alerts.go)."""

from __future__ import annotations

import pytest

from scheduling.engine.store import Store
from scheduling.engine.openshift import alerts as AL
from scheduling.engine.openshift.oc_recommend import alert_conditions

from .builders import node


def names(store: Store, now: float) -> list[tuple[str, str]]:
    return [(a["labels"]["alertname"], a["state"]) for a in AL.derived_alerts(store, now)]


def not_ready(name: str, since: float, unschedulable: bool = False) -> dict:
    doc = node(name)
    doc["status"]["conditions"] = [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown", "lastTransitionTime": since}]
    if unschedulable:
        doc["spec"] = {"unschedulable": True}
    return doc


def test_a_node_not_ready_is_pending_for_15_minutes_then_fires_unless_cordoned():
    store = Store([not_ready("worker-0", 100), not_ready("worker-1", 100, unschedulable=True)])
    assert names(store, 100 + 899) == [("KubeNodeNotReady", "pending")]
    [alert] = AL.derived_alerts(store, 100 + 900)
    assert alert["state"] == "firing" and alert["activeAt"] == "2026-01-01T00:01:40Z"
    assert alert["labels"]["node"] == "worker-0" and alert["labels"]["severity"] == "warning"
    assert alert["annotations"] == {"description": "worker-0 has been unready for more than 15 minutes.",
                                    "runbook_url": "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/KubeNodeNotReady.md",
                                    "summary": "Node is not ready."}


def operator(name: str, **conditions: tuple[str, str, float]) -> dict:
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator", "metadata": {"name": name},
            "status": {"conditions": [{"type": t, "status": s, "reason": r, "lastTransitionTime": at}
                                      for t, (s, r, at) in conditions.items()]}}


def test_an_operator_down_fires_after_10_minutes_and_degraded_after_30():
    store = Store([operator("monitoring", Available=("False", "UpdatingPrometheusFailed", 0), Degraded=("True", "", 0)),
                   operator("dns", Available=("True", "AsExpected", 0), Degraded=("False", "AsExpected", 0))])
    assert names(store, 599) == [("ClusterOperatorDown", "pending"), ("ClusterOperatorDegraded", "pending")]
    assert names(store, 1800) == [("ClusterOperatorDown", "firing"), ("ClusterOperatorDegraded", "firing")]
    down = AL.derived_alerts(store, 1800)[0]
    assert down["labels"] == {"alertname": "ClusterOperatorDown", "name": "monitoring", "namespace": "openshift-cluster-version",
                              "reason": "UpdatingPrometheusFailed", "severity": "critical"}
    assert down["annotations"]["description"] == (
        "The monitoring operator may be down or disabled because UpdatingPrometheusFailed, and the components it manages may be "
        "unavailable or degraded.  Cluster upgrades may not complete. For more information refer to 'oc get -o yaml "
        "clusteroperator monitoring'.")


def pdb(name: str, current: int, desired: int, expected: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "shop"},
            "spec": {}, "status": {"currentHealthy": current, "desiredHealthy": desired, "expectedPods": expected}}


@pytest.mark.parametrize(
    "status, expected",
    [
        pytest.param((2, 2, 2), [("PodDisruptionBudgetAtLimit", "warning")], id="at its limit"),
        pytest.param((1, 2, 2), [("PodDisruptionBudgetLimit", "critical")], id="below its limit"),
        pytest.param((3, 2, 3), [], id="one disruption allowed"),
        pytest.param((0, 0, 0), [], id="no pods expected"),
    ],
)
def test_pod_disruption_budget_alerts(status, expected):
    alerts = AL.derived_alerts(Store([pdb("web", *status)]), 50)
    assert [(a["labels"]["alertname"], a["labels"]["severity"]) for a in alerts] == expected
    assert all(a["state"] == "firing" and a["labels"]["poddisruptionbudget"] == "web" for a in alerts)


def test_a_preset_takes_its_rules_annotations_from_the_labels():
    alert = AL.user_alert("KubeNodeReadinessFlapping", {"node": "worker-2"}, 60)
    assert alert == {"labels": {"alertname": "KubeNodeReadinessFlapping", "node": "worker-2", "namespace": "kube-system",
                                "severity": "warning"},
                     "annotations": {"description": "The readiness status of node worker-2 has changed 3 times in the last 15 minutes.",
                                     "summary": "Node readiness status is flapping."},
                     "state": "firing", "activeAt": "2026-01-01T00:01:00Z", "value": "1e+00"}


def data(*alerts: dict) -> dict:
    return {"status": "success", "data": {"alerts": list(alerts)}}


def alert(name: str, severity: str = "warning", state: str = "firing", **labels) -> dict:
    return {"labels": {"alertname": name, "severity": severity, **labels}, "annotations": {}, "state": state}


def test_recommend_sorts_alerts_into_its_groups():
    conditions = alert_conditions(data(
        alert("VMCannotBeEvicted"), alert("Watchdog", "none"), alert("KubeNodeNotReady", state="pending"),
        alert("PodDisruptionBudgetLimit", "critical", namespace="shop", poddisruptionbudget="web"),
        {"labels": {"alertname": "X", "severity": "info", "openShiftUpdatePrecheck": "true"},
         "annotations": {"summary": "Check me", "description": "d", "message": "m", "runbook_url": "https://r"}, "state": "firing"}))
    assert [(c.type, c.status, c.acceptance_name) for c in conditions] == [
        ("recommended/VirtAlerts/VMCannotBeEvicted/0", "False", "VMCannotBeEvicted"),
        ("recommended/CriticalAlerts/PodDisruptionBudgetLimit/1", "False", "PodDisruptionBudgetLimit"),
        ("recommended/UpdatePrecheckAlerts/X/2", "False", "X"),
        ("recommended/PodImagePullAlerts", "True", ""),
        ("recommended/NodeAlerts", "True", ""),
    ]
    assert conditions[1].message == (
        "critical alert PodDisruptionBudgetLimit firing, suggesting significant cluster issues worth investigating. Namespace=shop, "
        "PodDisruptionBudget=web. PodDisruptionBudgetLimit. The alert has no description. <alert does not have a runbook_url "
        "annotation>")
    assert conditions[2].message == ("info alert X firing, suggesting issues worth investigating before updating the cluster. "
                                     "Check me. The alert description is: d | m https://r")
