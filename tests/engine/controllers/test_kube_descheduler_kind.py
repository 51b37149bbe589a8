"""KubeDescheduler as a kind of the cluster (operator.openshift.io/v1, namespaced): the API
server's checks from its CRD (manifests/kube-descheduler-operator.crd.yaml: the singleton rule,
the enums, the minimum), `oc get` (the CRD has no additionalPrinterColumns: NAME AGE),
`oc get -o yaml`, `oc describe` (kubectl's generic describer), and the operator reading it
from the cluster: only `cluster` in openshift-kube-descheduler-operator, its namespace made
when missing, its status condition, a change of spec acted on at once."""

from __future__ import annotations

import pytest
import yaml

from scheduling.engine import oc
from scheduling.engine.simulate import simulate
from scheduling.engine.store import Store
from scheduling.store import kube

from ..test_simulate_descheduler_admission import CLUSTER, events, load

NS = "openshift-kube-descheduler-operator"


def kd(name: str = "cluster", namespace: str = NS, **spec) -> dict:
    return {"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"mode": "Predictive", "deschedulingIntervalSeconds": 600, "profiles": ["TopologyAndDuplicates"], **spec}}


def text(doc: dict) -> str:
    return yaml.safe_dump(doc, sort_keys=False)


SINGLETON = "metadata: Invalid value: \"object\": kubedescheduler is a singleton, .metadata.name must be 'cluster'"


@pytest.mark.parametrize("doc, message", [
    (kd("other"), f'KubeDescheduler.operator.openshift.io "other" is invalid: {SINGLETON}'),
    (kd(mode="Sometimes"), 'KubeDescheduler.operator.openshift.io "cluster" is invalid: '
                           'spec.mode: Unsupported value: "Sometimes": supported values: "Automatic", "Predictive"'),
    (kd(deschedulingIntervalSeconds=0), 'KubeDescheduler.operator.openshift.io "cluster" is invalid: spec.deschedulingIntervalSeconds: '
                                        'Invalid value: 0: spec.deschedulingIntervalSeconds in body should be greater than or equal to 1'),
    (kd(profiles="AffinityAndTaints"), 'KubeDescheduler.operator.openshift.io "cluster" is invalid: spec.profiles: '
                                       'Invalid value: "string": spec.profiles in body must be of type array: "string"'),
], ids=["name", "mode", "interval", "profiles-type"])
def test_the_api_server_refuses_what_the_crd_refuses(doc, message):
    with pytest.raises(kube.DocumentError) as exc:
        kube.load_documents(text(doc), "kd.yaml")
    assert message in str(exc.value)


def test_oc_apply_of_a_kubedescheduler_not_named_cluster_is_refused_in_kubectl_s_words():
    result = oc.run(Store([]), "oc apply -f kd.yaml", 0, files={"kd.yaml": [kd("descheduler")]})
    assert (result.stdout, result.exit_code) == ("", 1)
    assert result.stderr == f'The KubeDescheduler "descheduler" is invalid: {SINGLETON}\n'


def test_another_namespace_is_accepted_by_the_api_server_and_ignored_by_the_operator():
    """The CRD does not restrict the namespace; the operator watches only its own."""
    [doc] = kube.load_documents(text(kd(namespace="default", mode="Automatic")), "kd.yaml")
    out = simulate(load(CLUSTER) + [doc], explain="none", until=1300, objects=True)
    assert events(out, "Descheduled", "DeschedulerRun", "FailedDeschedulerRun") == []
    assert [o["metadata"]["name"] for o in out["objects"] if o["kind"] in ("ConfigMap", "Namespace")] == []
    [stored] = [o for o in out["objects"] if o["kind"] == "KubeDescheduler"]
    assert "status" not in stored


def test_oc_get_prints_name_and_age_and_the_object_as_the_api_returns_it():
    store = Store([{**kd(), "metadata": {**kd()["metadata"], "creationTimestamp": 0}}])
    table = oc.run(store, f"oc get kubedescheduler -n {NS}", 3600)
    assert table.stdout == "NAME      AGE\ncluster   60m\n"
    assert oc.run(store, "oc get kubedeschedulers.operator.openshift.io -A", 90).stdout == (
        "NAMESPACE                             NAME      AGE\n"
        f"{NS}   cluster   90s\n")
    got = yaml.safe_load(oc.run(store, f"oc get kubedescheduler cluster -n {NS} -o yaml", 60).stdout)
    assert (got["apiVersion"], got["kind"], got["metadata"]["creationTimestamp"], got["spec"]["profiles"]) == (
        "operator.openshift.io/v1", "KubeDescheduler", "2026-01-01T00:00:00Z", ["TopologyAndDuplicates"])
    missing = oc.run(Store([]), f"oc get kubedescheduler cluster -n {NS}", 0)
    assert missing.stderr == 'Error from server (NotFound): kubedeschedulers.operator.openshift.io "cluster" not found\n'


def operator_run(doc: dict, until: float = 0, timeline: dict | None = None) -> dict:
    docs = load(CLUSTER, text(doc), *([text(timeline)] if timeline else []))
    return simulate(docs, explain="none", until=until, objects=True)


def test_the_operator_makes_its_namespace_its_configmap_and_its_status():
    out = operator_run(kd())
    objects = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in out["objects"]}
    assert ("Namespace", "", NS) in objects
    assert ("ConfigMap", NS, "cluster") in objects
    [condition] = objects[("KubeDescheduler", NS, "cluster")]["status"]["conditions"]
    assert condition == {"type": "TargetConfigControllerDegraded", "status": "False", "lastTransitionTime": "2026-01-01T00:00:00Z"}
    store = Store(out["objects"])
    described = oc.run(store, f"oc describe kubedescheduler cluster -n {NS}", 60).stdout
    assert described.startswith(f"Name:         cluster\nNamespace:    {NS}\n")
    assert "  Conditions:\n    Last Transition Time:  2026-01-01T00:00:00Z\n    Status:                False\n" \
           "    Type:                  TargetConfigControllerDegraded\n" in described
    listed = oc.run(store, f"oc get cm cluster -n {NS}", 60).stdout
    assert listed == "NAME      DATA   AGE\ncluster   1      60s\n"


def test_the_operator_s_error_is_its_degraded_condition():
    out = operator_run(kd(profiles=["CompactAndScale"]))
    [stored] = [o for o in out["objects"] if o["kind"] == "KubeDescheduler"]
    assert stored["status"]["conditions"] == [{
        "type": "TargetConfigControllerDegraded", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
        "reason": "enabling Descheduler CompactAndScale with Scheduler LowNodeUtilization may cause an eviction/scheduling hot loop"}]
    assert not [o for o in out["objects"] if o["kind"] == "ConfigMap"]


def test_switching_to_automatic_runs_a_cycle_at_once_and_evicts():
    """`oc patch` of the mode at t=100: the operator rolls the descheduler, whose first cycle
    evicts at 100 (not at the next interval, 600)."""
    timeline = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "switch"},
                "steps": [{"at": 100, "run": f"oc patch kubedescheduler cluster -n {NS} --type=merge "
                                             "-p '{\"spec\":{\"mode\":\"Automatic\"}}'"}]}
    out = operator_run(kd(), until=700, timeline=timeline)
    runs = [(e["time"], e["reason"], e["message"]) for e in out["events"] if e["reason"] in ("DeschedulerRun", "Descheduled")]
    assert runs == [
        (0.0, "DeschedulerRun", "would evict 1 pods"),
        (100.0, "Descheduled", "pod eviction from node1 node by sigs.k8s.io/descheduler (RemoveDuplicates)"),
        (100.0, "DeschedulerRun", "1 pods evicted"),
        (700.0, "DeschedulerRun", "0 pods evicted"),
    ]


def test_deleted_and_made_again_it_is_synced_and_run_at_once():
    timeline = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "again"},
                "steps": [{"at": 50, "run": f"oc delete kubedescheduler cluster -n {NS}"},
                          {"at": 80, "apply": kd()}]}
    out = operator_run(kd(), until=100, timeline=timeline)
    assert [e["time"] for e in out["events"] if e["reason"] == "DeschedulerRun"] == [0.0, 80.0]
