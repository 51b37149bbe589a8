"""MachineHealthChecks: a machine whose node stays unhealthy longer than the timeout is
deleted and its MachineSet replaces it; past maxUnhealthy nothing is remediated and the
check says why."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import HEARTBEAT_STOPPED_ANNOTATION
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.driver import Driver
from tests.engine.openshift.machines.test_deletion_flow import NS, conditions, running
from scheduling.engine.openshift import machine_api as M
from scheduling.engine.openshift.machinehealthcheck import max_unhealthy, parse_duration


def stop_kubelet(d: Driver, machine: dict) -> None:
    d.apply([A.SetAnnotation("Node", "", M.node_name_of(machine), HEARTBEAT_STOPPED_ANNOTATION, str(int(d.now)))])
    d.settle()


@pytest.mark.parametrize("text, seconds", [("300s", 300), ("5m", 300), ("1h30m", 5400), ("0", 0), ("1.5m", 90)])
def test_durations_are_read_as_go_reads_them(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("value, expected, limit", [(None, 3, 3), ("40%", 3, 1), ("100%", 3, 3), (1, 3, 1), ("0%", 3, 0)])
def test_max_unhealthy_is_a_count_or_a_percentage_rounded_down(value, expected, limit):
    assert max_unhealthy(value, expected) == limit


def test_an_unhealthy_machine_is_replaced():
    d = Driver([B.machineset(replicas=3), B.mhc(max_unhealthy="40%", timeout="300s")])
    d.run_until(300)
    victim = running(d)[0]
    name, node = M.name_of(victim), M.node_name_of(victim)
    t0 = d.now
    stop_kubelet(d, victim)
    d.run_until(t0 + 345)
    # Ready went Unknown at t0+45 (first 5 s check after the 40 s grace period): remediation at +346
    assert M.phase_of(d.store.get("Machine", NS, name)) == "Running"
    target = f"{NS}/workers/{name}/{node}"
    assert [(e[0] - t0, e[3]) for e in d.events("DetectedUnhealthy")] == [(45, f"Machine {target} has unhealthy node {node}")]
    d.run_until(t0 + 346)
    assert M.phase_of(d.store.get("Machine", NS, name)) == "Deleting"
    assert [(e[0] - t0, e[3]) for e in d.events("MachineDeleted")] == [
        (346, f"Machine {target} has been remediated by requesting to delete Machine object")]
    d.run_until(t0 + 900)
    assert d.store.get("Machine", NS, name) is None
    assert len(running(d)) == 3
    mhc = d.store.get("MachineHealthCheck", NS, "workers")
    assert (mhc["status"]["expectedMachines"], mhc["status"]["currentHealthy"], mhc["status"]["remediationsAllowed"]) == (3, 3, 1)
    assert conditions(mhc) == {"RemediationAllowed": ("True", None, None)}
    out = oc.run(d.store, f"oc get mhc -n {NS}", d.now).stdout
    assert out == "NAME      MAXUNHEALTHY   EXPECTEDMACHINES   CURRENTHEALTHY\nworkers   40%            3                  3\n"


def test_remediation_is_held_back_past_max_unhealthy():
    d = Driver([B.machineset(replicas=3), B.mhc(max_unhealthy="40%", timeout="300s")])
    d.run_until(300)
    first, second, _ = running(d)
    t0 = d.now
    stop_kubelet(d, first)
    stop_kubelet(d, second)
    d.run_until(t0 + 1000)
    assert [M.phase_of(m) for m in M.machines(d.store)] == ["Running"] * 3, "nothing is deleted"
    mhc = d.store.get("MachineHealthCheck", NS, "workers")
    assert (mhc["status"]["expectedMachines"], mhc["status"]["currentHealthy"], mhc["status"]["remediationsAllowed"]) == (3, 1, 0)
    message = ("Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy "
               "(total: 3, unhealthy: 2, maxUnhealthy: 40%)")
    assert conditions(mhc) == {"RemediationAllowed": ("False", "TooManyUnhealthy", message)}
    assert mhc["status"]["conditions"][0]["severity"] == "Warning"
    # (while the machines were provisioning, without nodes, they counted as unhealthy too)
    assert [(e[0] - t0, e[3]) for e in d.events("RemediationRestricted") if e[0] > t0] == [
        (45, "Remediation restricted due to exceeded number of unhealthy machines "
                                  "(total: 3, unhealthy: 2, maxUnhealthy: 40%)")]
    assert not d.events("MachineDeleted")

    # one node comes back: one unhealthy of three is within 40 %: the other is remediated
    d.apply([A.SetAnnotation("Node", "", M.node_name_of(second), HEARTBEAT_STOPPED_ANNOTATION, None)])
    d.settle()
    d.run_until(d.now + 10)
    assert M.phase_of(d.store.get("Machine", NS, M.name_of(first))) == "Deleting"
    assert M.phase_of(d.store.get("Machine", NS, M.name_of(second))) == "Running"


def test_a_machine_without_an_owner_is_not_remediated():
    ms = B.machineset(replicas=1)
    lone = {"apiVersion": M.API_VERSION, "kind": "Machine",
            "metadata": {"name": "lone-worker", "namespace": NS, "labels": dict(ms["spec"]["template"]["metadata"]["labels"],
                                                                                 **{M.MACHINESET_LABEL: "none"})},
            "spec": ms["spec"]["template"]["spec"]}
    d = Driver([lone, B.mhc(timeout="60s")])
    d.run_until(300)
    (machine,) = running(d)
    stop_kubelet(d, machine)
    d.run_until(d.now + 300)
    node = M.node_name_of(machine)
    assert [e[3] for e in d.events("SkippedNoController")] == [
        f"Machine {NS}/workers/lone-worker/{node} has no controller owner, skipping remediation"]
    assert M.phase_of(d.store.get("Machine", NS, "lone-worker")) == "Running"
