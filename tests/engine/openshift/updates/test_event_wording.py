"""The events of an update, worded as upstream records them: the CVO's sync worker
(openshift/cluster-version-operator pkg/cvo/sync_worker.go, its preconditions in
pkg/payload/precondition), the MCO's node and drain controllers and the machine-config
daemon (openshift/machine-config-operator pkg/controller/node, pkg/controller/drain,
pkg/daemon)."""

from __future__ import annotations

import re

from scheduling.engine import actions as A
from scheduling.engine.openshift.graph import pull_spec

from .builders import cluster_version, node, pdb, replica_set
from .driver import MCO, Driver
from .test_cvo import TARGET, cluster, condition, cv, request

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
NAME_CHARS = "[bcdfghjklmnpqrstvwxz2456789]"


def cvo_events(d: Driver) -> list[tuple[str, str, str]]:
    return [(e.type, e.reason, e.message) for e in d.events if e.kind == "ClusterVersion"]


def test_the_cvo_and_mco_events_are_in_their_operators_namespaces():
    """cluster-version-operator sync_worker.go records on a reference to the ClusterVersion in
    openshift-cluster-version (its recorder named after that namespace); the MCO's controllers
    and daemon record through ctrlcommon.NamespacedEventRecorder, which puts the cluster-scoped
    Node and MachineConfigPool references in openshift-machine-config-operator."""
    d = Driver([cluster_version("4.13.19", "stable-4.13"), node("master-0", "master"), node("worker-0", "worker")])
    d.run_until(0)
    request(d, "4.13.30")
    d.run_until(4 * 3600)
    cvo = {(e.namespace, e.source) for e in d.events if e.kind == "ClusterVersion"}
    assert cvo == {("openshift-cluster-version", "openshift-cluster-version")}
    mco = {(e.kind, e.namespace) for e in d.events if e.source.startswith("machineconfig")}
    assert mco == {("Node", "openshift-machine-config-operator"), ("MachineConfigPool", "openshift-machine-config-operator")}


def test_the_cvo_words_an_accepted_update_as_its_sync_worker_does_and_records_nothing_when_it_completes():
    d = cluster()
    request(d, TARGET)
    d.run_until(4 * 3600)
    image = pull_spec(TARGET)
    assert cvo_events(d) == [
        ("Normal", "RetrievePayload", f'Retrieving and verifying payload version="{TARGET}" image="{image}"'),
        ("Normal", "LoadPayload", f'Loading payload version="{TARGET}" image="{image}"'),
        ("Normal", "PreconditionsPassed", f'preconditions passed for payload loaded version="{TARGET}" image="{image}"'),
        ("Normal", "PayloadLoaded", f'Payload loaded version="{TARGET}" image="{image}" architecture="amd64"'),
    ]
    assert cv(d)["status"]["history"][0]["state"] == "Completed"  # done, and no UpgradeComplete event
    [leader] = [e for e in d.events if e.reason == "LeaderElection"]
    assert (leader.kind, leader.namespace, leader.name, leader.source) == ("Lease", "openshift-cluster-version", "version",
                                                                          "openshift-cluster-version")
    assert re.fullmatch(f"cluster-version-operator-{NAME_CHARS}{{10}}-{NAME_CHARS}{{5}}_{UUID} became leader", leader.message)


def _not_upgradeable(d: Driver) -> str:
    co = d.store.get("ClusterOperator", "", "cloud-credential")
    message = "Upgradeable annotation cloudcredential.openshift.io/upgradeable-to needs updating before upgrade."
    conds = [c if c["type"] != "Upgradeable" else {**c, "status": "False", "reason": "MissingUpgradeableAnnotation", "message": message}
             for c in co["status"]["conditions"]]
    d.apply([A.PatchStatus("ClusterOperator", "", "cloud-credential", {"conditions": conds})])
    d.run_until(d.now + 1)
    return condition(cv(d), "Upgradeable")["message"]


def test_a_failed_precondition_is_a_precondition_block_warning():
    d = cluster()
    upgradeable = _not_upgradeable(d)
    request(d, TARGET)
    d.run_until(600)
    failure = f'Precondition "ClusterVersionUpgradeable" failed because of "MissingUpgradeableAnnotation": {upgradeable}'
    assert cvo_events(d)[-1] == (
        "Warning", "PreconditionBlock",
        f'Preconditions failed for payload loaded version="{TARGET}" image="{pull_spec(TARGET)}": {failure}')
    assert [r for _, r, _ in cvo_events(d)].count("PreconditionBlock") == 1  # recorded once while it blocks


def test_force_turns_a_failed_precondition_into_a_precondition_warn():
    d = cluster()
    upgradeable = _not_upgradeable(d)
    request(d, TARGET, force=True)
    d.run_until(600)
    failure = f'Precondition "ClusterVersionUpgradeable" failed because of "MissingUpgradeableAnnotation": {upgradeable}'
    reasons = [(t, r) for t, r, _ in cvo_events(d)]
    assert reasons == [("Normal", "RetrievePayload"), ("Normal", "LoadPayload"), ("Warning", "PreconditionWarn"),
                       ("Normal", "PreconditionsPassed"), ("Normal", "PayloadLoaded")]
    assert cvo_events(d)[2][2] == (f'precondition warning for payload loaded version="{TARGET}" image="{pull_spec(TARGET)}": '
                                   f"Forced through blocking failures: {failure}")


def test_the_rollback_precondition_takes_only_the_previous_version_of_the_same_minor():
    d = Driver([cluster_version("4.13.19", "stable-4.13"), node("master-0", "master"), node("worker-0", "worker")])
    d.run_until(0)
    request(d, "4.13.30")
    d.run_until(4 * 3600)
    assert [h["version"] for h in cv(d)["status"]["history"]] == ["4.13.30", "4.13.19"]
    request(d, "4.13.21")  # older than the current one but not the previous one
    d.run_until(d.now + 600)
    message = (f'Preconditions failed for payload loaded version="4.13.21" image="{pull_spec("4.13.21")}": '
               'Precondition "ClusterVersionRollback" failed because of "LowDesiredVersion": 4.13.21 is less than the current '
               f"target 4.13.30, and the only supported rollback is to the cluster's previous version 4.13.19 "
               f"({pull_spec('4.13.19')})")
    assert cvo_events(d)[-1] == ("Warning", "PreconditionBlock", message)
    assert (condition(cv(d), "ReleaseAccepted")["status"], condition(cv(d), "ReleaseAccepted")["message"]) == ("False", message)
    request(d, "4.13.19")  # the previous version: accepted, applied like an update
    d.run_until(d.now + 4 * 3600)
    assert [(h["state"], h["version"]) for h in cv(d)["status"]["history"]] == [
        ("Completed", "4.13.19"), ("Completed", "4.13.30"), ("Completed", "4.13.19")]
    assert {co["status"]["versions"][0]["version"] for co in d.store.list("ClusterOperator")} == {"4.13.19"}


def test_one_nodes_os_update_is_worded_as_the_machine_config_daemon_words_it():
    d = Driver([cluster_version("4.13.19", "stable-4.13"), node("master-0", "master"), node("worker-0", "worker")])
    d.run_until(0)
    request(d, "4.13.30")
    d.run_until(4 * 3600)
    pool = d.store.get("MachineConfigPool", "", "worker")
    new = pool["spec"]["configuration"]["name"]
    url = d.store.get("MachineConfig", "", new)["spec"]["osImageURL"]
    worker = [(e.reason, e.message, e.source) for e in d.events if e.kind == "Node" and e.name == "worker-0"
              and e.source.startswith("machineconfig")]
    mcd = "machineconfigdaemon"
    assert worker == [
        ("Cordon", "Cordoned node to apply update", mcd),
        ("Drain", "Draining node to update config.", mcd),
        ("InClusterUpgrade", f"Updating from oscontainer {url}", mcd),
        ("OSUpdateStarted", "Upgrading OS", mcd),
        ("OSUpgradeApplied", f"OS upgrade applied; new MachineConfig ({new}) has new OS image ({url})", mcd),
        ("OSUpdateStaged", "Changes to OS staged", mcd),
        ("Reboot", f"Node will reboot into config {new}", mcd),
        ("Uncordon", f"Update completed for config {new} and node has been uncordoned", mcd),
        ("NodeDone", f"Setting node worker-0, currentConfig {new} to Done", mcd),
    ]
    pool_events = [(e.reason, e.message, e.source) for e in d.events if e.kind == "MachineConfigPool" and e.name == "worker"]
    assert pool_events == [
        ("SetDesiredConfig", f"Targeted node worker-0 to MachineConfig: {new}", "machineconfigcontroller-nodecontroller"),
        ("Completed", f"Pool worker has completed update to MachineConfig {new}", "machineconfigcontroller-nodecontroller"),
    ]


def test_a_drain_failing_for_more_than_an_hour_is_a_drain_failed_warning():
    labels = {"app": "web"}
    docs = [node("node1", created=0), node("node2", created=1), replica_set("web", 2, labels), pdb("web-pdb", labels, 2)]
    d = Driver(docs, controllers=MCO)
    d.run_until(0)
    from .builders import machine_config

    d.apply([A.ReplaceObject(machine_config("99-worker-ssh", "worker"))])
    d.run_until(3600 + 700)
    failed = [(e.type, e.message, e.source) for e in d.events if e.reason == "DrainFailed"]
    assert failed and set(failed) == {("Warning", "node node1: drain exceeded timeout: 1h0m0s. Will continue to retry.",
                                       "machineconfigcontroller-nodecontroller")}
    assert not [e for e in d.events if e.reason in ("DrainFailed",) and e.time <= 3600]


def test_oc_lists_the_operators_events_in_their_namespaces_and_describe_node_leaves_the_mcds_out():
    from scheduling.engine import oc

    d = Driver([cluster_version("4.13.19", "stable-4.13"), node("master-0", "master"), node("worker-0", "worker")])
    d.run_until(0)
    request(d, "4.13.30")
    d.run_until(4 * 3600)
    now = d.now
    mco = oc.run(d.store, "oc get events -n openshift-machine-config-operator", now).stdout
    rows = [line.split(None, 4)[2:4] for line in mco.splitlines()[1:]]
    assert ["Cordon", "node/worker-0"] in rows and ["NodeDone", "node/worker-0"] in rows
    assert ["SetDesiredConfig", "machineconfigpool/worker"] in rows and ["Completed", "machineconfigpool/master"] in rows
    cvo = oc.run(d.store, "oc get events -n openshift-cluster-version", now).stdout
    rows = [line.split(None, 4)[2:4] for line in cvo.splitlines()[1:]]
    assert ["RetrievePayload", "clusterversion/version"] in rows and ["PayloadLoaded", "clusterversion/version"] in rows
    default = oc.run(d.store, "oc get events", now)
    assert "clusterversion/version" not in default.stdout and "Cordon" not in default.stdout
    # kubectl describe asks for involvedObject.namespace="" on a Node: the MCD's events are not there
    described = oc.run(d.store, "oc describe node worker-0", now).stdout
    assert "Cordon" not in described and "NodeDone" not in described
