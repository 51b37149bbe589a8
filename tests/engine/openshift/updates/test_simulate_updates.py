"""`simulate` runs the update controllers (docs/commands.md): the OpenShift
kinds, --objects, --controllers cvo,mco-node-controller,mco-daemon, Timeline steps that set
spec.desiredUpdate or run `oc adm upgrade`."""

from __future__ import annotations

import pytest

from scheduling.engine.simulate import SimulationError, simulate

from .builders import cluster_version, machine_config, node

TIMELINE = "clusterui.io/v1alpha1"


def by_kind(result: dict, kind: str) -> list[dict]:
    return [o for o in result["objects"] if o["kind"] == kind]


def test_a_timeline_that_sets_desired_update_runs_the_whole_update():
    cv = cluster_version("4.13.19", "stable-4.13")
    request = {"apiVersion": cv["apiVersion"], "kind": "ClusterVersion", "metadata": {"name": "version"},
               "spec": {**cv["spec"], "desiredUpdate": {"version": "4.13.30"}}}
    docs = [cv, node("master-0", "master"), node("worker-0", "worker"),
            {"apiVersion": TIMELINE, "kind": "Timeline", "metadata": {"name": "update"}, "steps": [{"at": 60, "apply": request}]}]
    result = simulate(docs, until=3 * 3600, objects=True, explain="none")
    [version] = by_kind(result, "ClusterVersion")
    assert [(h["state"], h["version"]) for h in version["status"]["history"]] == [("Completed", "4.13.30"), ("Completed", "4.13.19")]
    assert version["status"]["history"][0]["startedTime"] == "2026-01-01T00:01:30Z"  # 60 s + retrieving and verifying
    pools = {p["metadata"]["name"]: p["status"] for p in by_kind(result, "MachineConfigPool")}
    assert {n: (s["machineCount"], s["updatedMachineCount"]) for n, s in pools.items()} == {"master": (1, 1), "worker": (1, 1)}
    for n in by_kind(result, "Node"):
        a = n["metadata"]["annotations"]
        assert a["machineconfiguration.openshift.io/state"] == "Done"
        assert a["machineconfiguration.openshift.io/currentConfig"] == pools[n["metadata"]["name"].split("-")[0]]["configuration"]["name"]
    assert result["objects"][0]["kind"] == "ClusterOperator"  # sorted by kind, namespace, name
    reasons = [e["reason"] for e in result["events"]]
    completed = [e for e in result["events"] if e["reason"] == "Completed"]
    assert reasons.index("PayloadLoaded") < reasons.index("SetDesiredConfig") < reasons.index("Completed")
    assert {e["object"]: e["message"] for e in completed} == {
        f"MachineConfigPool/openshift-machine-config-operator/{p}": f"Pool {p} has completed update to MachineConfig {pools[p]['configuration']['name']}"
        for p in ("master", "worker")}
    assert "UpgradeComplete" not in reasons  # the CVO records no event when an update completes


def test_a_timeline_runs_oc_adm_upgrade():
    docs = [cluster_version("4.13.19", "stable-4.13"), node("master-0", "master"),
            {"apiVersion": TIMELINE, "kind": "Timeline", "metadata": {"name": "update"},
             "steps": [{"at": 10, "run": "oc adm upgrade channel stable-4.14"}, {"at": 20, "run": "oc adm upgrade --to 4.13.30"},
                       {"at": 60, "run": "oc adm upgrade status"}]}]
    result = simulate(docs, until=70, objects=True, explain="none", controllers=["cvo", "mco-node-controller", "mco-daemon"])
    runs = [(e["reason"], e["object"], e["message"]) for e in result["events"] if e["object"].startswith("Command/")]
    assert runs[0] == ("CommandOutput", "Command/0", "")
    assert runs[1] == ("CommandOutput", "Command/1", "Requested update to 4.13.30\n")
    assert runs[2][2].startswith("= Control Plane =\nAssessment:      Progressing\nTarget Version:  4.13.30 (from 4.13.19)\n")
    [version] = by_kind(result, "ClusterVersion")
    assert version["spec"]["channel"] == "stable-4.14"
    assert version["spec"]["desiredUpdate"] == {"version": "4.13.30", "image": version["status"]["desired"]["image"]}


def test_only_the_named_controllers_run():
    docs = [cluster_version("4.13.19"), node("worker-0", "worker"), machine_config("99-worker-ssh", "worker")]
    result = simulate(docs, objects=True, explain="none", controllers=["mco-node-controller"])
    assert by_kind(result, "ClusterOperator") == []  # no CVO
    assert [p["metadata"]["name"] for p in by_kind(result, "MachineConfigPool")] == ["master", "worker"]
    with pytest.raises(SimulationError) as exc:
        simulate(docs, controllers=["mco"])
    assert "valid names are" in str(exc.value) and "mco-node-controller" in str(exc.value)
