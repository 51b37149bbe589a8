"""The KubeDescheduler on a stored cluster: one object, the operator's configuration, read by the
descheduler controller from the store. The Descheduler page applies it (`oc apply -f` after its
preview), an import creates it, `oc apply` changes it; `oc get kubedescheduler cluster -n
openshift-kube-descheduler-operator -o yaml`, `oc get cm cluster -n ...` and `oc get ns` show
what the operator made. On an OpenShift 4 cluster the page speaks of the operator, not of 3.11."""

from __future__ import annotations

import pytest
import yaml
from django.urls import reverse

from scheduling.models import Cluster, Event
from scheduling.models import KubeDescheduler as StoredKubeDescheduler
from scheduling.models import Pod
from scheduling.store import oc_cli, services
from scheduling.store.reconcile import reconcile

from .test_descheduler_page import CLUSTER, KUBE_DESCHEDULER, act

NS = "openshift-kube-descheduler-operator"
OPENSHIFT4 = """\
---
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {profile: LowNodeUtilization}
"""


@pytest.fixture
def cluster(db):
    c = services.import_new_cluster("desched4", CLUSTER + OPENSHIFT4, "cluster.yaml")
    reconcile(c.pk, force=True)
    return Cluster.objects.get(pk=c.pk)


def oc(cluster: Cluster, command: str, files: dict | None = None) -> tuple[int, str, str]:
    out: dict[str, list[str]] = {"stdout": [], "stderr": []}
    result = oc_cli.run_on_cluster(Cluster.objects.get(pk=cluster.pk), command.split(), lambda s, t: out[s].append(t), files=files)
    return result.exit_code, "".join(out["stdout"]), "".join(out["stderr"])


def test_the_page_previews_applying_it_and_apply_writes_the_object(editor_client, cluster):
    body = act(editor_client, cluster, action="compose", profiles=["TopologyAndDuplicates"], mode="Automatic",
               descheduling_interval_seconds="600").content.decode()
    preview = body[body.index('id="descheduler-apply"'):]
    assert "<code>oc apply -f kubedescheduler.yaml</code>" in preview
    assert 'data-evicted="default/web-b"' in preview  # Automatic: the cycle the apply starts evicts at once
    assert not StoredKubeDescheduler.objects.filter(cluster=cluster).exists()  # nothing written yet
    document = body.split('name="document" value="', 1)[1].split('"', 1)[0].replace("&#x27;", "'").replace("&quot;", '"')
    body = act(editor_client, cluster, action="apply", document=document).content.decode()
    assert "kubedescheduler.operator.openshift.io/cluster created: the operator&#x27;s policy runs now and every 600 s and evicts" in body
    [stored] = StoredKubeDescheduler.objects.filter(cluster=cluster)
    assert (stored.namespace, stored.name, stored.spec["mode"], stored.spec["profiles"]) == (NS, "cluster", "Automatic", ["TopologyAndDuplicates"])
    assert Cluster.objects.get(pk=cluster.pk).descheduler == {}  # the object is the one truth
    reconcile(cluster.pk, force=True)
    assert [e.involved_name for e in Event.objects.filter(cluster=cluster, reason="Descheduled")] == ["web-b"]
    assert Pod.objects.get(cluster=cluster, name="web-b").metadata.get("deletionTimestamp") is not None


def test_a_viewer_may_not_apply_it(viewer_client, cluster):
    response = act(viewer_client, cluster, action="apply", document=KUBE_DESCHEDULER)
    assert response.status_code in (302, 403)
    assert not StoredKubeDescheduler.objects.filter(cluster=cluster).exists()


def test_oc_shows_the_object_its_configmap_and_its_namespace(cluster):
    services.import_documents(cluster, KUBE_DESCHEDULER, "kd.yaml")
    reconcile(cluster.pk, force=True)
    code, out, err = oc(cluster, f"oc get kubedescheduler cluster -n {NS} -o yaml")
    assert (code, err) == (0, "")
    got = yaml.safe_load(out)
    assert (got["apiVersion"], got["kind"], got["metadata"]["name"], got["metadata"]["namespace"]) == (
        "operator.openshift.io/v1", "KubeDescheduler", "cluster", NS)
    assert got["spec"] == {"mode": "Predictive", "deschedulingIntervalSeconds": 3600, "profiles": ["TopologyAndDuplicates"]}
    assert [(c["type"], c["status"]) for c in got["status"]["conditions"]] == [("TargetConfigControllerDegraded", "False")]
    code, out, _ = oc(cluster, f"oc get cm cluster -n {NS}")
    assert out.splitlines()[0].split() == ["NAME", "DATA", "AGE"] and out.splitlines()[1].split()[:2] == ["cluster", "1"]
    code, out, _ = oc(cluster, f"oc get cm cluster -n {NS} -o jsonpath={{.data.policy\\.yaml}}")
    assert yaml.safe_load(out)["profiles"][0]["name"] == "TopologyAndDuplicates"
    code, out, _ = oc(cluster, "oc get ns")
    assert NS in [line.split()[0] for line in out.splitlines()[1:]]
    code, out, _ = oc(cluster, f"oc get kubedescheduler -n {NS}")
    assert out.splitlines()[0].split() == ["NAME", "AGE"] and out.splitlines()[1].split()[0] == "cluster"


def test_oc_apply_of_a_changed_mode_runs_a_cycle_at_once(cluster):
    services.import_documents(cluster, KUBE_DESCHEDULER, "kd.yaml")
    reconcile(cluster.pk, force=True)
    assert Event.objects.get(cluster=cluster, reason="DeschedulerRun").message == "would evict 1 pods"
    automatic = yaml.safe_load(KUBE_DESCHEDULER.replace("Predictive", "Automatic"))
    code, out, err = oc(cluster, "oc apply -f kd.yaml", {"kd.yaml": [automatic]})
    assert (code, out, err) == (0, "kubedescheduler.operator.openshift.io/cluster configured\n", "")
    reconcile(cluster.pk, force=True)
    assert [e.involved_name for e in Event.objects.filter(cluster=cluster, reason="Descheduled")] == ["web-b"]
    stored = StoredKubeDescheduler.objects.get(cluster=cluster)
    assert stored.status["conditions"][0]["type"] == "TargetConfigControllerDegraded"  # kept through the user's update


def test_a_name_other_than_cluster_is_refused_by_the_api_server(cluster):
    other = yaml.safe_load(KUBE_DESCHEDULER.replace("name: cluster", "name: descheduler"))
    code, out, err = oc(cluster, "oc apply -f kd.yaml", {"kd.yaml": [other]})
    assert (code, out) == (1, "")
    assert err == ("The KubeDescheduler \"descheduler\" is invalid: metadata: Invalid value: \"object\": "
                   "kubedescheduler is a singleton, .metadata.name must be 'cluster'\n")


def test_the_page_speaks_of_the_operator_on_openshift_4_and_of_3_11_otherwise(client, cluster, db):
    body = client.get(reverse("descheduler", args=[cluster.pk])).content.decode()
    intro = body[body.index('id="descheduler-intro"'):].split("</p>", 1)[0]
    assert "Kube Descheduler Operator" in intro and "OpenShift 3.11" not in intro
    assert "LifecycleAndUtilization" in intro
    legacy = services.import_new_cluster("desched311", CLUSTER, "cluster.yaml")
    body = client.get(reverse("descheduler", args=[legacy.pk])).content.decode()
    intro = body[body.index('id="descheduler-intro"'):].split("</p>", 1)[0]
    assert "The OpenShift 3.11 descheduler" in intro and "Kube Descheduler Operator" not in intro
