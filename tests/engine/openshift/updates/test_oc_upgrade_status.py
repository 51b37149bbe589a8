"""`oc adm upgrade status` golden tests on snapshots written after the shapes of openshift/oc's
pkg/cli/admin/upgrade/status/examples (4.14.1-workers-started-updating-multiple-pools,
4.14.1-paused-worker-pool, not-upgrading): our own names and times, the same situations,
hence the same lines."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.store import Store
from scheduling.engine.openshift.payload import payload

START = 100_000  # simulated second the update started
MCO = "machineconfiguration.openshift.io"


def cluster_version(target: str, previous: str, progressing: bool, started: float = START) -> dict:
    conditions = [
        {"type": "Available", "status": "True", "lastTransitionTime": 0, "reason": "", "message": f"Done applying {previous}"},
        {"type": "Failing", "status": "False", "lastTransitionTime": 0, "reason": "", "message": ""},
        {"type": "Progressing", "status": "True" if progressing else "False", "lastTransitionTime": started, "reason": "",
         "message": f"Working towards {target}: 714 of 859 done (83% complete), waiting on machine-config" if progressing
         else f"Cluster version is {target}"},
    ]
    history = [{"state": "Partial" if progressing else "Completed", "startedTime": started,
                "completionTime": None if progressing else started + 3000, "version": target, "image": "", "verified": True},
               {"state": "Completed", "startedTime": 0, "completionTime": 3000, "version": previous, "image": "", "verified": False}]
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
            "spec": {"channel": "stable-4.14"}, "status": {"desired": {"version": target}, "history": history, "conditions": conditions}}


def operators(target: str, previous: str, updated: int, mco: dict | None = None) -> list[dict]:
    docs = []
    for i, name in enumerate(payload(target).cluster_operators):
        version = target if i < updated else previous
        conds = [{"type": "Available", "status": "True", "lastTransitionTime": 0, "reason": "AsExpected", "message": ""},
                 {"type": "Progressing", "status": "False", "lastTransitionTime": START - 500, "reason": "AsExpected", "message": ""},
                 {"type": "Degraded", "status": "False", "lastTransitionTime": 0, "reason": "AsExpected", "message": ""}]
        if name == "machine-config" and mco:
            version = previous
            conds = [{**c, **mco.get(c["type"], {})} for c in conds]
        docs.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
                     "metadata": {"name": name, "annotations": {"include.release.openshift.io/self-managed-high-availability": "true"}},
                     "status": {"conditions": conds, "versions": [{"name": "operator", "version": version}]}})
    return docs


def pool(name: str, target: str, paused: bool = False) -> dict:
    return {"apiVersion": f"{MCO}/v1", "kind": "MachineConfigPool", "metadata": {"name": name},
            "spec": {"nodeSelector": {"matchLabels": {f"node-role.kubernetes.io/{name}": ""}}, "paused": paused,
                     "configuration": {"name": target}}}


def rendered(name: str, version: str) -> dict:
    return {"apiVersion": f"{MCO}/v1", "kind": "MachineConfig",
            "metadata": {"name": name, "annotations": {f"{MCO}/release-image-version": version}}}


def node(name: str, roles: tuple[str, ...], current: str, desired: str, draining: bool = False) -> dict:
    annotations = {f"{MCO}/currentConfig": current, f"{MCO}/desiredConfig": desired,
                   f"{MCO}/state": "Working" if draining else "Done",
                   f"{MCO}/desiredDrain": f"drain-{desired}" if draining else f"uncordon-{current}",
                   f"{MCO}/lastAppliedDrain": f"uncordon-{current}"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {f"node-role.kubernetes.io/{r}": "" for r in roles}, "annotations": annotations},
            "spec": {"unschedulable": True} if draining else {},
            "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": 0, "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}]}}


def workers_started_updating() -> Store:
    docs = [cluster_version("4.14.1", "4.14.0", True)]
    docs += operators("4.14.1", "4.14.0", 33, mco={
        "Available": {"status": "False", "lastTransitionTime": START + 774, "reason": "", "message": ""},
        "Progressing": {"status": "True", "lastTransitionTime": START + 774, "reason": "", "message": "Working towards 4.14.1"}})
    for p in ("master", "worker", "infra"):
        docs += [pool(p, f"rendered-{p}-new"), rendered(f"rendered-{p}-old", "4.14.0"), rendered(f"rendered-{p}-new", "4.14.1")]
    docs += [node("master-0", ("master",), "rendered-master-old", "rendered-master-new", draining=True),
             node("master-1", ("master",), "rendered-master-old", "rendered-master-old"),
             node("master-2", ("master",), "rendered-master-old", "rendered-master-old"),
             node("worker-a", ("worker",), "rendered-worker-old", "rendered-worker-new", draining=True),
             node("worker-b", ("worker",), "rendered-worker-old", "rendered-worker-old"),
             node("infra-a", ("worker", "infra"), "rendered-infra-old", "rendered-infra-new", draining=True),
             node("infra-b", ("worker", "infra"), "rendered-infra-old", "rendered-infra-old")]
    return Store(docs)


WORKERS_STARTED = """\
= Control Plane =
Assessment:      Progressing
Target Version:  4.14.1 (from 4.14.0)
Updating:        machine-config
Completion:      97% (32 operators updated, 1 updating, 0 waiting)
Duration:        14m (Est. Time Remaining: <10m)
Operator Health: 32 Healthy, 1 Unavailable
{operators}
Control Plane Nodes
NAME       ASSESSMENT    PHASE      VERSION   EST    MESSAGE
master-0   Progressing   Draining   4.14.0    +10m   
master-1   Outdated      Pending    4.14.0    ?      
master-2   Outdated      Pending    4.14.0    ?      

= Worker Upgrade =

WORKER POOL   ASSESSMENT    COMPLETION   STATUS
worker        Progressing   0% (0/2)     1 Available, 1 Progressing, 1 Draining
infra         Progressing   0% (0/2)     1 Available, 1 Progressing, 1 Draining

Worker Pool Nodes: worker
NAME       ASSESSMENT    PHASE      VERSION   EST    MESSAGE
worker-a   Progressing   Draining   4.14.0    +10m   
worker-b   Outdated      Pending    4.14.0    ?      

Worker Pool Nodes: infra
NAME      ASSESSMENT    PHASE      VERSION   EST    MESSAGE
infra-a   Progressing   Draining   4.14.0    +10m   
infra-b   Outdated      Pending    4.14.0    ?      

= Update Health =
SINCE   LEVEL   IMPACT   MESSAGE
14m4s   Info    None     Update is proceeding well
"""

UPDATING_OPERATORS = """
Updating Cluster Operators
NAME             SINCE   REASON   MESSAGE
machine-config   1m10s   -        Working towards 4.14.1
"""


def paused_worker_pool() -> Store:
    docs = [cluster_version("4.14.1", "4.14.0", True)] + operators("4.14.1", "4.14.0", 4)
    docs += [pool("master", "rendered-master-new"), pool("worker", "rendered-worker-new", paused=True)]
    docs += [rendered(f"rendered-{p}-{v}", {"old": "4.14.0", "new": "4.14.1"}[v]) for p in ("master", "worker") for v in ("old", "new")]
    docs += [node(f"master-{i}", ("master",), "rendered-master-old", "rendered-master-old") for i in range(3)]
    docs += [node(f"worker-{i}", ("worker",), "rendered-worker-old", "rendered-worker-old") for i in range(3)]
    return Store(docs)


PAUSED = """\
= Control Plane =
Assessment:      Progressing
Target Version:  4.14.1 (from 4.14.0)
Completion:      12% (4 operators updated, 0 updating, 29 waiting)
Duration:        6s (Est. Time Remaining: 1h12m)
Operator Health: 33 Healthy

Control Plane Nodes
NAME       ASSESSMENT   PHASE     VERSION   EST   MESSAGE
master-0   Outdated     Pending   4.14.0    ?     
master-1   Outdated     Pending   4.14.0    ?     
master-2   Outdated     Pending   4.14.0    ?     

= Worker Upgrade =

WORKER POOL   ASSESSMENT   COMPLETION   STATUS
worker        Excluded     0% (0/3)     3 Available, 0 Progressing, 0 Draining, 3 Excluded

Worker Pool Nodes: worker
NAME       ASSESSMENT   PHASE    VERSION   EST   MESSAGE
worker-0   Excluded     Paused   4.14.0    -     
worker-1   Excluded     Paused   4.14.0    -     
worker-2   Excluded     Paused   4.14.0    -     

= Update Health =
SINCE   LEVEL     IMPACT           MESSAGE
-       Warning   Update Stalled   Outdated nodes in a paused pool 'worker' will not be updated

Run with --details=health for additional description and links to related online documentation
"""

PAUSED_HEALTH = """\
= Update Health =
Message: Outdated nodes in a paused pool 'worker' will not be updated
  Since:       -
  Level:       Warning
  Impact:      Update Stalled
  Reference:   https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues
  Resources:
    machineconfigpools.machineconfiguration.openshift.io: worker
  Description: Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.
"""


def run(store: Store, command: str, now: float) -> oc.OcResult:
    return oc.run(store, command, now)


@pytest.mark.parametrize(
    "store, command, now, expected",
    [
        pytest.param(workers_started_updating, "oc adm upgrade status", START + 844, WORKERS_STARTED.format(operators=""),
                     id="workers started updating in several pools while the MCO updates"),
        pytest.param(workers_started_updating, "oc adm upgrade status --details=operators", START + 844,
                     WORKERS_STARTED.format(operators=UPDATING_OPERATORS), id="details of the updating operators"),
        pytest.param(paused_worker_pool, "oc adm upgrade status", START + 6, PAUSED,
                     id="a paused worker pool is excluded and reported as stalling the update"),
    ],
)
def test_status_golden(store, command, now, expected):
    result = run(store(), command, now)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == expected


def test_status_details_health_describes_each_insight():
    result = run(paused_worker_pool(), "oc adm upgrade status --details=health", START + 6)
    assert result.stdout.endswith(PAUSED_HEALTH)


def test_a_cluster_that_is_not_updating_says_so():
    store = Store([cluster_version("4.14.1", "4.14.0", False)] + operators("4.14.1", "4.14.0", 33))
    assert run(store, "oc adm upgrade status", START + 4000).stdout == "The cluster is not updating.\n"


def test_an_unknown_details_value_is_refused():
    result = run(paused_worker_pool(), "oc adm upgrade status --details=pools", START)
    assert (result.exit_code, result.stderr) == (
        1, "error: invalid value for --details: pools (must be one of none, all, nodes, health, operators)\n")


# --- Update Health from the cluster's alerts (alerts.go parseAlertDataToInsights) ------------------------------------
# Shapes of upstream's 4.15.0-ec2-unavailable-mco-20m example and its -alerts.json: firing alerts
# of warning or critical severity that started during the update; PodDisruptionBudget alerts
# whenever they started; pending, info and pre-update alerts left out.


def _alert(name: str, severity: str, active: float, state: str = "firing", ns: str = "openshift-monitoring", **annotations) -> dict:
    from scheduling.engine.oc.output import timestamp

    return {"labels": {"alertname": name, "namespace": ns, "severity": severity}, "annotations": annotations,
            "state": state, "activeAt": timestamp(active), "value": "1e+00"}


ALERTS = {"status": "success", "data": {"alerts": [
    _alert("KubePodNotReady", "warning", START + 600,
           description="Pod openshift-etcd/etcd-guard-master-1 has been in a non-ready state for longer than 15 minutes.",
           summary="Pod has been in a non-ready state for more than 15 minutes.",
           runbook_url="https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/KubePodNotReady.md"),
    _alert("PodDisruptionBudgetAtLimit", "warning", START - 86400, ns="shop"),
    _alert("CustomWithMessage", "critical", START + 60, description="It has a description", message="and a message",
           summary="Both texts", runbook_url="https://example.com/runbook.md"),
    _alert("FiringBeforeTheUpdate", "critical", START - 10, summary="not shown: it fired before the update"),
    _alert("StillPending", "critical", START + 10, state="pending", summary="not shown: pending"),
    _alert("JustInfo", "info", START + 10, summary="not shown: info"),
]}}

ALERTS_TABLE = """\
= Update Health =
SINCE    LEVEL      IMPACT           MESSAGE
14m      Critical   Unknown          Alert is firing: Both texts
5m       Warning    Unknown          Alert is firing: Pod has been in a non-ready state for more than 15 minutes.
24h15m   Warning    Unknown          Alert is firing: PodDisruptionBudgetAtLimit
-        Warning    Update Stalled   Outdated nodes in a paused pool 'worker' will not be updated

Run with --details=health for additional description and links to related online documentation
"""

ALERTS_HEALTH = """\
= Update Health =
Message: Alert is firing: Both texts
  Since:       14m
  Level:       Critical
  Impact:      Unknown
  Reference:   https://example.com/runbook.md
  Resources:
    alerts.config.openshift.io: openshift-monitoring/CustomWithMessage
  Description: Alert started firing during the update. The alert description is: It has a description | and a message

Message: Alert is firing: Pod has been in a non-ready state for more than 15 minutes.
  Since:       5m
  Level:       Warning
  Impact:      Unknown
  Reference:   https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/KubePodNotReady.md
  Resources:
    alerts.config.openshift.io: openshift-monitoring/KubePodNotReady
  Description: Alert started firing during the update. The alert description is: Pod openshift-etcd/etcd-guard-master-1 has been in a non-ready state for longer than 15 minutes.

Message: Alert is firing: PodDisruptionBudgetAtLimit
  Since:       24h15m
  Level:       Warning
  Impact:      Unknown
  Reference:   <alert does not have a runbook_url annotation>
  Resources:
    alerts.config.openshift.io: shop/PodDisruptionBudgetAtLimit
  Description: Alert known to affect updates has been firing since before the update started. The alert has no description.

Message: Outdated nodes in a paused pool 'worker' will not be updated
"""


@pytest.mark.parametrize("details, expected", [("", ALERTS_TABLE), (" --details=health", ALERTS_HEALTH)])
def test_update_health_lists_the_alerts_given_as_alerts_go_words_them(details, expected):
    result = oc.run(paused_worker_pool(), f"oc adm upgrade status{details}", START + 900, files={"--alerts": [ALERTS]})
    assert (result.exit_code, result.stderr) == (0, "")
    health = result.stdout[result.stdout.index("= Update Health ="):]
    assert health.startswith(expected)


def mco_down_with_a_pdb_at_its_limit() -> Store:
    docs = [cluster_version("4.14.1", "4.14.0", True)]
    docs += operators("4.14.1", "4.14.0", 33, mco={
        "Available": {"status": "False", "lastTransitionTime": START + 774, "reason": "MachineConfigControllerFailed",
                      "message": "Cluster not available for [{operator 4.14.0}]: failed to apply machine config controller manifests"},
        "Progressing": {"status": "True", "lastTransitionTime": START + 774, "reason": "", "message": "Working towards 4.14.1"}})
    docs += [pool("master", "rendered-master-new"), rendered("rendered-master-old", "4.14.0"), rendered("rendered-master-new", "4.14.1"),
             node("master-0", ("master",), "rendered-master-old", "rendered-master-old"),
             {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
              "spec": {"minAvailable": 2},
              "status": {"currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2, "disruptionsAllowed": 0}}]
    return Store(docs)


SIMULATED_ALERTS = """\
= Update Health =
SINCE    LEVEL      IMPACT             MESSAGE
20m30s   Critical   Unknown            Alert is firing: Cluster operator has not been available for 10 minutes.
20m30s   Error      API Availability   Cluster Operator machine-config is unavailable (MachineConfigControllerFailed)
now      Warning    Unknown            Alert is firing: The pod disruption budget is preventing further disruption to pods.
8m24s    Warning    Unknown            Alert is firing: Pod container waiting longer than 1 hour

Run with --details=health for additional description and links to related online documentation
"""


def test_update_health_reads_the_simulated_clusters_alerts_derived_and_fired_by_the_user():
    from scheduling.engine.openshift import alerts as AL

    fired = AL.user_alert("KubeContainerWaiting", {"namespace": "shop", "pod": "web-1", "container": "web",
                                                   "reason": "ImagePullBackOff"}, START + 1500)
    now = START + 774 + 1230
    store = mco_down_with_a_pdb_at_its_limit()
    result = oc.run(store, "oc adm upgrade status", now, files={"cluster-facts": [{"alerts": [fired]}]})
    assert result.stdout[result.stdout.index("= Update Health ="):] == SIMULATED_ALERTS
    detailed = oc.run(store, "oc adm upgrade status --details=health", now, files={"cluster-facts": [{"alerts": [fired]}]}).stdout
    assert ("  Resources:\n    alerts.config.openshift.io: openshift-cluster-version/ClusterOperatorDown\n"
            "  Description: Alert started firing during the update. The alert description is: The machine-config operator may "
            "be down or disabled because MachineConfigControllerFailed, and the components it manages may be unavailable or "
            "degraded.  Cluster upgrades may not complete. For more information refer to 'oc get -o yaml clusteroperator "
            "machine-config'.\n") in detailed
    # ten minutes earlier ClusterOperatorDown is still pending (its `for: 10m`): left out
    early = oc.run(store, "oc adm upgrade status", START + 774 + 599).stdout
    assert "Cluster operator has not been available" not in early and "pod disruption budget" in early
