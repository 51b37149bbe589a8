"""The way in: `manage.py load_demo` loads the OpenShift 4 demo beside the 3.11 one; the front
page lists it and the EUS scenario, its Cluster Settings show 4.18 on eus-4.18, and `manage.py
oc` on it prints the kubelets' VERSION, the pools and the admin gate that waits."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from scheduling.management.commands.oc import Command
from scheduling.models import Cluster, ConfigMap, MachineConfigPool, Node
from scheduling.models import Node as StoredNode
from scheduling.models import Pod as StoredPod
from scheduling.pages import explain
from scheduling.store import reconcile

pytestmark = pytest.mark.django_db


def oc(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = Command().main(list(argv), io.StringIO(), out, err)
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture
def loaded():
    call_command("load_demo", stdout=io.StringIO())
    return Cluster.objects.get(name="openshift4")


def test_load_demo_loads_both_demos_and_is_idempotent(loaded):
    assert set(Cluster.objects.values_list("name", flat=True)) == {"demo", "openshift4"}
    revision = loaded.revision
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    loaded.refresh_from_db()
    assert loaded.revision == revision and 'cluster "openshift4" already exists' in out.getvalue()
    assert Node.objects.filter(cluster=loaded).count() == 12
    assert MachineConfigPool.objects.filter(cluster=loaded).count() == 3
    acks = ConfigMap.objects.get(cluster=loaded, namespace="openshift-config", name="admin-acks")
    assert acks is not None


def test_the_front_page_leads_to_the_demo_and_the_eus_scenario(client, loaded):
    body = client.get(reverse("cluster-list")).content.decode()
    assert f'href="{reverse("cluster-detail", args=[loaded.pk])}">openshift4</a>' in body
    assert "EUS to EUS: 4.16 to 4.18 with the worker pools paused" in body
    detail = client.get(reverse("cluster-detail", args=[loaded.pk])).content.decode()
    assert reverse("update-settings", args=[loaded.pk]) in detail
    settings = client.get(reverse("update-settings", args=[loaded.pk])).content.decode()
    assert "4.18.44" in settings and "eus-4.18" in settings


def test_oc_on_the_stored_demo_shows_versions_pools_and_the_gate(loaded):
    nodes = oc("--cluster", "openshift4", "get", "nodes").splitlines()
    assert nodes[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert {line.split()[-1] for line in nodes[1:]} == {"v1.31.15+7de76a5"}
    pools = oc("--cluster", "openshift4", "get", "mcp").splitlines()
    assert [line.split()[0] for line in pools[1:]] == ["infra", "master", "worker"]
    upgrade = oc("--cluster", "openshift4", "adm", "upgrade")
    assert upgrade.startswith("Cluster version is 4.18.44\n\nUpgradeable=False\n\n  Reason: AdminAckRequired\n"
                              "  Message: Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs")
    assert "admin-acks" in oc("--cluster", "openshift4", "get", "cm", "-n", "openshift-config")
    status = oc("--cluster", "openshift4", "adm", "upgrade", "status")
    assert status.startswith("The cluster is not updating.")


def test_cluster_settings_lists_the_admin_gate_and_an_editor_acknowledges_it(editor_client, loaded):
    page = editor_client.get(reverse("update-settings", args=[loaded.pk])).content.decode()
    assert "<code>ack-4.18-kube-1.32-api-removals-in-4.19</code>: waits for your acknowledgement" in page
    assert "oc -n openshift-config patch cm admin-acks --patch" in page
    response = editor_client.post(reverse("update-ack", args=[loaded.pk]), {"gate": "ack-4.18-kube-1.32-api-removals-in-4.19"})
    assert response.status_code == 302
    acks = ConfigMap.objects.get(cluster=loaded, namespace="openshift-config", name="admin-acks").document
    assert acks["data"] == {"ack-4.18-kube-1.32-api-removals-in-4.19": "true"}
    page = editor_client.get(reverse("update-settings", args=[loaded.pk])).content.decode()
    assert "<code>ack-4.18-kube-1.32-api-removals-in-4.19</code>: acknowledged" in page
    # a gate of another minor is refused
    editor_client.post(reverse("update-ack", args=[loaded.pk]), {"gate": "ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20"})
    acks = ConfigMap.objects.get(cluster=loaded, namespace="openshift-config", name="admin-acks").document
    assert list(acks["data"]) == ["ack-4.18-kube-1.32-api-removals-in-4.19"]


def test_a_viewer_cannot_acknowledge(viewer_client, loaded):
    response = viewer_client.post(reverse("update-ack", args=[loaded.pk]), {"gate": "ack-4.18-kube-1.32-api-removals-in-4.19"})
    assert response.status_code == 403
    assert "data" not in ConfigMap.objects.get(cluster=loaded, namespace="openshift-config", name="admin-acks").document


def test_max_unavailable_is_previewed_then_applied(editor_client, loaded):
    url = reverse("update-pool-max", args=[loaded.pk])
    page = editor_client.post(url, {"pool": "worker", "max_unavailable": "40%", "action": "preview"}).content.decode()
    assert "updates <strong>2 of 6</strong> nodes at once" in page and "3 rounds, about 15 minutes" in page
    assert MachineConfigPool.objects.get(cluster=loaded, name="worker").document["spec"]["maxUnavailable"] == 1  # nothing written
    bad = editor_client.post(url, {"pool": "worker", "max_unavailable": "40 %", "action": "preview"}).content.decode()
    assert 'invalid value for IntOrString: invalid value &quot;40 %&quot;: strconv.Atoi: parsing &quot;40 &quot;: invalid syntax' in bad
    editor_client.post(url, {"pool": "worker", "max_unavailable": "40%", "action": "apply"})
    assert MachineConfigPool.objects.get(cluster=loaded, name="worker").document["spec"]["maxUnavailable"] == "40%"
    editor_client.post(url, {"pool": "infra", "max_unavailable": "2", "action": "apply"})
    assert MachineConfigPool.objects.get(cluster=loaded, name="infra").document["spec"]["maxUnavailable"] == 2


def test_the_openshift4_demo_runs_the_framework_scheduler_and_spreads_web_over_the_zones(loaded):
    cluster = loaded
    reconcile.reconcile(cluster.pk, force=True)
    assert explain.is_framework(explain.cluster_policy(cluster))
    zone = {n.name: n.document["metadata"]["labels"]["topology.kubernetes.io/zone"]
            for n in StoredNode.objects.filter(cluster=cluster)}
    web = [p.document for p in StoredPod.objects.filter(cluster=cluster, namespace="shop")
           if p.document["metadata"].get("labels", {}).get("app") == "web"]
    counts: dict[str, int] = {}
    for doc in web:
        node = doc["spec"].get("nodeName")
        assert node, doc["metadata"]["name"]
        counts[zone[node]] = counts.get(zone[node], 0) + 1
    assert sorted(counts.values()) == [2, 2, 2]
