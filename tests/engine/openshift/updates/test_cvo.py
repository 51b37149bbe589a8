"""The Cluster Version Operator updates the cluster runlevel by runlevel, as OpenShift 4's "How cluster updates work" describes."""

from __future__ import annotations

from scheduling.engine import actions as A
from scheduling.engine.openshift.cvo import INJECT_DEGRADED, job_name
from scheduling.engine.openshift.graph import pull_spec
from scheduling.engine.openshift.payload import payload

from .builders import cluster_version, node
from .driver import Driver

TARGET = "4.14.1"


def cluster(version: str = "4.13.19", workers: int = 2, **status) -> Driver:
    docs = [cluster_version(version, **status)] + [node(f"master-{i}", "master", created=i) for i in range(3)] + \
        [node(f"worker-{i}", "worker", created=10 + i) for i in range(workers)]
    d = Driver(docs)
    d.run_until(0)
    return d


def cv(d: Driver) -> dict:
    return d.store.get("ClusterVersion", "", "version")


def condition(doc: dict, type_: str) -> dict:
    return [c for c in doc["status"]["conditions"] if c["type"] == type_][0]


def request(d: Driver, version: str, **extra) -> None:
    doc = cv(d)
    d.apply([A.ReplaceObject({**doc, "spec": {**doc["spec"], "desiredUpdate": {"version": version, **extra}}}, keep_status=True)])


def operator_timeline(d: Driver, until: float, step: float = 15.0) -> dict[str, tuple[float, float]]:
    """operator -> (first time Progressing=True, first time at the new version)."""
    seen: dict[str, list] = {}
    t = d.now
    while t < until:
        t += step
        d.run_until(t)
        for co in d.store.list("ClusterOperator"):
            name = co["metadata"]["name"]
            entry = seen.setdefault(name, [None, None])
            if entry[0] is None and condition(co, "Progressing")["status"] == "True":
                entry[0] = t
            if entry[1] is None and {"name": "operator", "version": TARGET} in co["status"]["versions"]:
                entry[1] = t
    return {k: tuple(v) for k, v in seen.items()}


def test_a_steady_cluster_reports_its_version_channels_and_updates():
    d = cluster()
    status = cv(d)["status"]
    assert status["desired"]["version"] == "4.13.19"
    assert status["desired"]["image"] == pull_spec("4.13.19")
    assert "stable-4.14" in status["desired"]["channels"]
    assert condition(cv(d), "Progressing")["message"] == "Cluster version is 4.13.19"
    assert condition(cv(d), "Available")["message"] == "Done applying 4.13.19"
    assert status["history"][0]["state"] == "Completed"
    assert len(d.store.list("ClusterOperator")) == len(payload("4.13.19").cluster_operators)
    assert all(u["image"] == pull_spec(u["version"]) for u in status["availableUpdates"])
    assert "4.14.1" not in {u["version"] for u in status["availableUpdates"]}  # listed before 4.13.19 existed: no edge
    conditional = {u["release"]["version"]: u for u in status["conditionalUpdates"]}
    recommended = conditional["4.14.10"]["conditions"][0]
    assert (recommended["type"], recommended["status"], recommended["reason"]) == ("Recommended", "False", "MultipleReasons")
    assert "Nodes on AWS with custom domain names will go to NotReady state. https://issues.redhat.com/browse/MCO-1031" in recommended["message"]
    assert [r["name"] for r in conditional["4.14.10"]["risks"]][:2] == ["ARODNSWrongBootSequence", "AWSCustomDomainNodesNotReady"]


def test_runlevels_go_in_order_and_each_waits_for_its_operators():
    d = cluster()
    request(d, TARGET)
    times = operator_timeline(d, 3 * 3600)
    target = payload(TARGET)
    levels = [rl for rl in target.runlevels if rl.cluster_operators]
    for lower, higher in zip(levels, levels[1:]):
        done_lower = max(times[o][1] for o in lower.cluster_operators)
        started_higher = min(times[o][0] for o in higher.cluster_operators)
        assert done_lower <= started_higher, (lower.runlevel, higher.runlevel)
    assert levels[-1].cluster_operators == ("machine-config",)  # the MCO last
    history = cv(d)["status"]["history"]
    assert [h["state"] for h in history] == ["Completed", "Completed"]
    took = history[0]["completionTime"] - history[0]["startedTime"]
    assert 60 * 60 <= took <= 120 * 60  # the docs' 60 to 120 minutes
    assert condition(cv(d), "Progressing")["message"] == f"Cluster version is {TARGET}"


def test_the_update_steps_are_visible_in_order():
    d = cluster()
    request(d, TARGET)
    d.run_until(1)
    assert condition(cv(d), "Progressing")["message"] == f"Working towards {TARGET}: downloading update"
    assert cv(d)["status"]["history"][0]["version"] == "4.13.19"  # not accepted yet
    d.run_until(40)
    reasons = [e.reason for e in d.events if e.object.startswith(("ClusterVersion/", "Job/"))]
    assert reasons[:5] == ["RetrievePayload", "SuccessfulCreate", "LoadPayload", "PreconditionsPassed", "PayloadLoaded"]
    job = [e for e in d.events if e.reason == "SuccessfulCreate"][0]
    assert job.object == f"Job/openshift-cluster-version/{job_name(TARGET, pull_spec(TARGET))}"
    status = cv(d)["status"]
    assert status["desired"]["version"] == TARGET
    assert (status["history"][0]["state"], status["history"][0]["version"], status["history"][0]["verified"]) == ("Partial", TARGET, True)
    assert condition(cv(d), "Progressing")["message"].startswith(f"Working towards {TARGET}: ")
    assert condition(cv(d), "ReleaseAccepted")["message"] == \
        f'Payload loaded version="{TARGET}" image="{pull_spec(TARGET)}" architecture="amd64"'
    d.run_until(60)  # runlevel 00: the CVO's own deployment, applied first
    leader = [e for e in d.events if e.reason == "LeaderElection"]
    assert len(leader) == 1 and leader[0].message.startswith("cluster-version-operator-")  # the CVO replaced itself early


def test_upgradeable_false_blocks_a_minor_update_until_forced():
    d = cluster()
    co = d.store.get("ClusterOperator", "", "cloud-credential")
    conds = [c if c["type"] != "Upgradeable" else {**c, "status": "False", "reason": "MissingUpgradeableAnnotation",
                                                       "message": "Upgradeable annotation cloudcredential.openshift.io/upgradeable-to on cloudcredential.operator.openshift.io/cluster object needs updating before upgrade."}
             for c in co["status"]["conditions"]]
    d.apply([A.PatchStatus("ClusterOperator", "", "cloud-credential", {"conditions": conds})])
    d.run_until(1)
    up = condition(cv(d), "Upgradeable")
    assert (up["status"], up["reason"]) == ("False", "MissingUpgradeableAnnotation")
    assert up["message"].startswith("Cluster operator cloud-credential should not be upgraded between minor versions: Upgradeable annotation")
    request(d, TARGET)
    d.run_until(600)
    accepted = condition(cv(d), "ReleaseAccepted")
    assert (accepted["status"], accepted["reason"]) == ("False", "PreconditionChecks")
    assert accepted["message"] == (
        f'Preconditions failed for payload loaded version="{TARGET}" image="{pull_spec(TARGET)}": '
        f'Precondition "ClusterVersionUpgradeable" failed because of "MissingUpgradeableAnnotation": {up["message"]}')
    assert cv(d)["status"]["desired"]["version"] == "4.13.19"
    request(d, TARGET, force=True)
    d.run_until(601)
    assert cv(d)["status"]["desired"]["version"] == TARGET
    assert cv(d)["status"]["history"][0]["state"] == "Partial"
    assert condition(cv(d), "ReleaseAccepted")["reason"] == "PayloadLoaded"


def test_a_degraded_operator_stalls_the_update_with_the_cvos_messages_until_it_recovers():
    d = cluster()
    d.apply([A.SetAnnotation("ClusterOperator", "", "etcd", INJECT_DEGRADED,
                             "EtcdMembers_UnhealthyMembers: EtcdMembersDegraded: 2 of 3 members are available, master-0 is unhealthy")])
    request(d, TARGET)
    d.run_until(30 * 60)
    assert condition(cv(d), "Failing")["message"] == "Cluster operator etcd is degraded"
    assert condition(cv(d), "Progressing")["message"].endswith("waiting on etcd, kube-apiserver") or \
        condition(cv(d), "Progressing")["message"].endswith("waiting on etcd")
    d.run_until(60 * 60)
    assert condition(cv(d), "Progressing")["message"] == \
        f"Unable to apply {TARGET}: wait has exceeded 40 minutes for these operators: etcd"
    etcd = d.store.get("ClusterOperator", "", "etcd")
    assert (condition(etcd, "Degraded")["status"], condition(etcd, "Degraded")["reason"]) == ("True", "EtcdMembers_UnhealthyMembers")
    assert d.store.get("ClusterOperator", "", "kube-controller-manager")["status"]["versions"] == [{"name": "operator", "version": "4.13.19"}]
    d.apply([A.SetAnnotation("ClusterOperator", "", "etcd", INJECT_DEGRADED, None)])
    d.run_until(4 * 3600)
    assert cv(d)["status"]["history"][0]["state"] == "Completed"
    assert condition(cv(d), "Failing")["status"] == "False"


def test_the_update_plays_the_same_however_the_clock_is_stepped():
    def run(steps: list[float]) -> list[tuple]:
        d = cluster()
        request(d, "4.13.30")
        for t in steps:
            d.run_until(t)
        return [(e.time, e.reason, e.object, e.message) for e in d.events]

    once = run([3 * 3600])
    assert run([600.0 * i for i in range(1, 19)]) == once
    assert run([1234.5, 5000, 3 * 3600]) == once


# --- versions that are not Semantic Versions (a ClusterVersion as a user imported it) --------------


def test_a_current_version_that_is_not_semver_is_a_precondition_warning_and_the_update_goes_on():
    """rollback.go: an unparsable status.desired.version is InvalidCurrentVersion, a
    NonBlockingWarning ("do not block on issues that require an update to fix"): the CVO
    records PreconditionWarn and applies the update, it never stops reconciling."""
    d = cluster("x")
    request(d, TARGET)
    d.run_until(600)
    warn = [e for e in d.events if e.reason == "PreconditionWarn"]
    assert [e.message for e in warn] == [
        f'precondition warning for payload loaded version="{TARGET}" image="{pull_spec(TARGET)}": '
        'Precondition "ClusterVersionRollback" failed because of "InvalidCurrentVersion": No Major.Minor.Patch elements found']
    assert cv(d)["status"]["desired"]["version"] == TARGET
    assert condition(cv(d), "ReleaseAccepted")["reason"] == "PayloadLoaded"
    assert not [e for e in d.events if e.reason == "PreconditionBlock"]


def test_a_current_version_that_is_not_semver_still_blocks_on_upgradeable_false_as_upstream():
    """upgradeable.go compares the minors as text (GetEffectiveMinor): "v4.13.19" against 4.14.1
    is a minor update, blocked by Upgradeable=False; both failures are listed."""
    d = cluster("v4.13.19")
    co = d.store.get("ClusterOperator", "", "cloud-credential")
    conds = [c if c["type"] != "Upgradeable" else {**c, "status": "False", "reason": "Blocked", "message": "no"}
             for c in co["status"]["conditions"]]
    d.apply([A.PatchStatus("ClusterOperator", "", "cloud-credential", {"conditions": conds})])
    d.run_until(1)
    request(d, TARGET)
    d.run_until(600)
    accepted = condition(cv(d), "ReleaseAccepted")
    assert (accepted["status"], accepted["reason"]) == ("False", "PreconditionChecks")
    assert accepted["message"] == (
        f'Preconditions failed for payload loaded version="{TARGET}" image="{pull_spec(TARGET)}": Multiple precondition checks failed:\n'
        '* Precondition "ClusterVersionRollback" failed because of "InvalidCurrentVersion": '
        'Invalid character(s) found in major number "v4"\n'
        '* Precondition "ClusterVersionUpgradeable" failed because of "Blocked": '
        "Cluster operator cloud-credential should not be upgraded between minor versions: no")
    assert cv(d)["status"]["desired"]["version"] == "v4.13.19"


def test_a_previous_version_that_is_not_semver_is_no_previous_version():
    """rollback.go skips a history version that does not parse (klog.Errorf): a rollback then
    finds no previous Semantic Version."""
    d = cluster("4.14.1", history=[{"state": "Completed", "version": "4.14.1", "image": pull_spec("4.14.1")},
                                   {"state": "Completed", "version": "x"}])
    request(d, "4.14.0")
    d.run_until(600)
    accepted = condition(cv(d), "ReleaseAccepted")
    assert (accepted["status"], accepted["reason"]) == ("False", "PreconditionChecks")
    assert accepted["message"].endswith(
        'Precondition "ClusterVersionRollback" failed because of "LowDesiredVersion": '
        "4.14.0 is less than the current target 4.14.1, and the cluster has no previous Semantic Version")
