"""`simulate` with the Machine API kinds: `--objects` shows the machines' phases and
conditions, `--controllers` runs only the named ones, and Timeline steps run the `oc`
commands or apply a Machine without one of its hooks (acting as the hook's owner)."""

from __future__ import annotations

from scheduling.engine.simulate import simulate
from tests.engine.openshift.machines import builders as B
from scheduling.engine.openshift import machine_api as M

NS = M.NAMESPACE


def lone_machine(hooks: dict | None = None) -> dict:
    ms = B.machineset()
    spec = dict(ms["spec"]["template"]["spec"])
    if hooks:
        spec["lifecycleHooks"] = hooks
    return {"apiVersion": M.API_VERSION, "kind": "Machine",
            "metadata": {"name": "lone", "namespace": NS, "labels": {M.ROLE_LABEL: "worker"}}, "spec": spec}


def timeline(*steps) -> dict:
    return {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"}, "steps": list(steps)}


def machine_of(result: dict) -> dict | None:
    return next((o for o in result["objects"] if o["kind"] == "Machine" and o["metadata"]["name"] == "lone"), None)


HOOK = {"preDrain": [{"name": "MigrateImportantApp", "owner": "my-app-migration-controller"}]}


def test_a_timeline_deletes_a_machine_and_applies_it_without_its_hook():
    without_hook = {**lone_machine(), "metadata": {**lone_machine()["metadata"], "finalizers": [M.FINALIZER]}}
    docs = [lone_machine(HOOK), timeline({"at": 300, "run": f"oc delete machine lone -n {NS}"}, {"at": 400, "apply": without_hook})]
    held = simulate(docs, until=399, objects=True)
    machine = machine_of(held)
    assert machine["status"]["phase"] == "Deleting"
    assert [(c["type"], c["status"]) for c in machine["status"]["conditions"]] == [
        ("InstanceExists", "True"), ("Drainable", "False"), ("Terminable", "True")]
    assert machine["metadata"]["deletionTimestamp"] == "2026-01-01T00:05:00Z"  # t=300 s, as the API prints it
    done = simulate(docs, until=500, objects=True)
    assert machine_of(done) is None
    assert [(e["time"], e["reason"]) for e in done["events"] if e["object"] == f"Machine/{NS}/lone"] == [
        (0.0, "Create"), (300.0, "DrainBlocked"), (400.0, "DrainProceeds"), (400.0, "Deleted"), (400.0, "DrainSucceeded"),
        (400.0, "Delete")]
    assert [(e["object"], e["message"]) for e in done["events"] if e["reason"] == "CommandOutput"] == [
        ("Command/0", f'machine.machine.openshift.io "lone" deleted from {NS} namespace\n')]


def test_only_the_named_controllers_run():
    result = simulate([lone_machine()], until=600, objects=True, controllers=["machineset-controller"])
    assert "status" not in machine_of(result) and result["events"] == []
    result = simulate([lone_machine()], until=600, objects=True, controllers=["machine-controller"])
    assert machine_of(result)["status"]["phase"] == "Running"


def test_until_zero_runs_every_first_sync_to_the_end():
    # the MachineSet controller creates the machines, and the machine controller, later in
    # the list, takes them up at the same instant (its first sync is part of t=0 too)
    result = simulate([B.machineset(replicas=2)], until=0, objects=True)
    assert [(o["kind"], o.get("status", {}).get("phase")) for o in result["objects"]] == [
        ("Machine", "Provisioning"), ("Machine", "Provisioning"), ("MachineSet", None)]
    result = simulate([B.machineset(replicas=2)], until=1, objects=True)
    assert [o.get("status", {}).get("phase") for o in result["objects"] if o["kind"] == "Machine"] == ["Provisioning", "Provisioning"]


def test_the_crd_defaults_are_applied_on_load():
    from scheduling.engine import oc
    from scheduling.engine.store import Store
    from scheduling.store.kube import load_documents

    text = f"""
apiVersion: machine.openshift.io/v1beta1
kind: MachineHealthCheck
metadata: {{name: workers, namespace: {NS}}}
spec:
  selector: {{}}
  unhealthyConditions: [{{type: Ready, status: "False", timeout: 300s}}]
"""
    (mhc,) = load_documents(text, "mhc.yaml")
    assert (mhc["spec"]["maxUnhealthy"], mhc["spec"]["nodeStartupTimeout"]) == ("100%", "10m")
    out = oc.run(Store([mhc]), f"oc get mhc -n {NS}", 0).stdout
    assert out.splitlines()[1].split()[:2] == ["workers", "100%"]


def test_a_provider_spec_placement_that_is_not_an_object_is_no_placement():
    """The CRD keeps providerSpec.value as written (preserved unknown fields), so an import
    accepts `placement: x`; the machine is provisioned as without one, in the default region
    (it once raised AttributeError in every pass; found by fuzzing accepted documents)."""
    machine = lone_machine()
    machine["spec"]["providerSpec"] = {"value": {"instanceType": "m6i.xlarge", "placement": "1e18"}}
    out = simulate([machine], until=60, objects=True)
    assert machine_of(out)["spec"]["providerID"].startswith("aws:///us-east-1a/")
