"""The MachineSet page's template edit form (taints through a MachineSet): before applying, the preview
(the cluster's loop on a copy) says that the existing nodes do not change, then what scaling
the set to 0 and back does to every pod of its nodes: the documentation's example, a taint key1=value1:
NoExecute added to the template, leaves the pod without the toleration Pending (and says
which toleration would let it on the new nodes) and puts the pod with it on a new node, where
the taint manager deletes it after its tolerationSeconds. Nothing is written until Apply."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest
from django.urls import reverse

from scheduling.store import kube, reconcile, services
from scheduling.pages import previews
from scheduling.models import Cluster, KIND_MODELS

from .clusters import scenario_objects

pytestmark = pytest.mark.django_db

NS = "openshift-machine-api"
SET = "ci-7xk2p-worker-us-east-1a"
OLD_NODES = ("ip-10-0-21-11.ec2.internal", "ip-10-0-22-12.ec2.internal")
TAINT = {"op": "template-taint-add", "key": "key1", "value": "value1", "effect": "NoExecute", "replicas": "2"}


def scenario() -> Cluster:
    """The documentation's cluster without the scenario's script (which edits and scales the set by itself)."""
    cluster = services.import_new_cluster("machineset-taints", scenario_objects("machineset-taints"), "cluster.yaml")
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def text(html: str) -> str:
    """What the user reads: the tags dropped, the entities decoded, the spaces collapsed."""
    return htmllib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def item(html: str, step: str, what: str, pod_prefix: str) -> str:
    """The text of the list item `data-<what>` of the pod whose name starts with `pod_prefix`,
    in the preview step whose command starts with `step`."""
    section = re.search(rf'<section class="pv loop-step" data-step="{re.escape(step)}.*?</section>', html, re.S)
    assert section, f"no step {step}"
    match = re.search(rf'<li data-{what}="default/{pod_prefix}[^"]*".*?</li>', section.group(0), re.S)
    assert match, f"no {what} item for {pod_prefix} in {step}"
    return text(match.group(0))


def stored_machineset(cluster: Cluster) -> dict:
    return KIND_MODELS["MachineSet"].objects.get(cluster=cluster, namespace=NS, name=SET).document


def preview(client, cluster: Cluster, data: dict):
    return client.post(reverse("machineset-preview", args=[cluster.pk, NS, SET]), data, HTTP_HX_REQUEST="true")


def test_the_machineset_page_offers_the_template_edit_form(client):
    cluster = scenario()
    page = client.get(reverse("machineset-detail", args=[cluster.pk, NS, SET]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"{SET} 2 2 2 2 0s" in text(html)
    assert "Editing spec.template changes no existing machine or node" in text(html)
    assert 'name="csrfmiddlewaretoken"' in html and 'value="template-taint-add"' in html
    assert f"oc edit machineset {SET}" in text(html)
    # the machines page links to it
    machines = client.get(reverse("machines", args=[cluster.pk])).content.decode()
    assert reverse("machineset-detail", args=[cluster.pk, NS, SET]) in machines


def test_the_seeds_taint_preview_shows_where_each_pod_would_go(client):
    cluster = scenario()
    before = stored_machineset(cluster)
    response = preview(client, cluster, TAINT)
    assert response.status_code == 200
    html = response.content.decode()
    page = text(html)

    assert "Preview: add taint key1=value1:NoExecute to the template on machineset/" + SET in page
    # applying: existing nodes do not change
    assert ("Existing machines and nodes do not change: only machines created from now on are made from the new "
            "template (taints key1=value1:NoExecute).") in page
    for node in OLD_NODES:
        assert f"→ {node}: taints none — keeps running without key1=value1:NoExecute" in page
    assert "oc apply -f machineset-" + SET + ".yaml then the cluster's controllers for 0 s, until nothing more happens" in page
    assert "No machine, node or pod changes." in page

    # then scaled to 0 and back, on the same copy
    down, up = f"oc scale --replicas=0 machineset {SET} -n {NS}", f"oc scale --replicas=2 machineset {SET} -n {NS}"
    assert down in page and up in page
    assert "Pending — no nodes available to schedule pods" in item(html, down, "pending", "no-toleration-")
    assert "Killing at +0 s" in item(html, down, "gone", "tolerates-")
    no_toleration = item(html, up, "pending", "no-toleration-")
    assert ("stays Pending — 0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate."
            in no_toleration)
    assert "does not tolerate key1=value1:NoExecute of the new nodes; the toleration that would:" in no_toleration
    assert "key: key1 operator: Equal value: value1 effect: NoExecute" in no_toleration
    assert re.search(r'<a class="explain-link" href="/clusters/\d+/pods/default/no-toleration-[^/"]+/">Explain', html)

    tolerates = item(html, up, "started", "tolerates-")
    # the new machines provision in 240 s; the taint manager deletes the pod 3600 s after it lands
    assert re.search(r"\(was Pending\) → ip-[\d-]+\.ec2\.internal new node at \+240 s the taint manager deletes it at "
                     r"\+3840 s \(its tolerationSeconds\)", tolerates), tolerates
    assert 'data-pending="default/tolerates-' not in html[html.index(f'data-step="{up}'):]

    # nothing written; Apply carries the edited document and the version previewed
    assert stored_machineset(cluster) == before
    document = json.loads(htmllib.unescape(re.search(r'name="document" value="([^"]*)"', html).group(1)))
    assert document["spec"]["template"]["spec"]["taints"] == [{"key": "key1", "value": "value1", "effect": "NoExecute"}]


def test_apply_writes_the_template_and_no_node_changes(editor_client):
    cluster = scenario()
    html = preview(editor_client, cluster, TAINT).content.decode()
    fields = dict(re.findall(r'<input type="hidden" name="(document|resource_version|verb)" value="([^"]*)"', html))
    fields = {k: htmllib.unescape(v) for k, v in fields.items()}
    response = editor_client.post(reverse("machineset-apply", args=[cluster.pk, NS, SET]), fields, HTTP_HX_REQUEST="true")
    assert f"machineset.machine.openshift.io/{SET} edited" in text(response.content.decode())
    taints = stored_machineset(cluster)["spec"]["template"]["spec"]["taints"]
    assert taints == [{"key": "key1", "value": "value1", "effect": "NoExecute"}]
    reconcile.reconcile(cluster.pk)
    nodes = {n.name: n.document for n in KIND_MODELS["Node"].objects.filter(cluster=cluster)}
    assert sorted(nodes) == sorted(OLD_NODES) and all(not n["spec"].get("taints") for n in nodes.values())

    # the same apply again: the version has moved on, nothing is written
    again = editor_client.post(reverse("machineset-apply", args=[cluster.pk, NS, SET]), fields, HTTP_HX_REQUEST="true")
    assert "Not applied: someone changed this MachineSet since the preview." in text(again.content.decode())


def test_viewers_preview_but_cannot_apply(viewer_client):
    cluster = scenario()
    html = preview(viewer_client, cluster, TAINT).content.decode()
    assert "Log in as an editor to apply changes." in text(html)
    denied = viewer_client.post(reverse("machineset-apply", args=[cluster.pk, NS, SET]), {"document": "{}", "resource_version": "1"})
    assert denied.status_code == 403


def test_a_bad_taint_or_yaml_is_refused_with_the_apis_message(client):
    cluster = scenario()
    bad = preview(client, cluster, {**TAINT, "key": "bad key!"})
    assert "This change cannot be made:" in text(bad.content.decode())
    assert 'spec.template.spec.taints[0].key: Invalid value: "bad key!"' in text(bad.content.decode())
    other = preview(client, cluster, {"op": "yaml", "text": "kind: MachineSet\nmetadata: {name: other}\n"})
    assert "kind, name and namespace cannot change here" in text(other.content.decode())


def test_output_is_escaped(client):
    cluster = scenario()
    response = preview(client, cluster, {**TAINT, "key": "<script>alert(1)</script>"})
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_an_oc_edit_that_also_changes_replicas_says_it_scales_the_set(client):
    cluster = scenario()
    doc = previews.editable(stored_machineset(cluster))
    doc["spec"]["replicas"] = 3
    doc["spec"]["template"]["spec"]["taints"] = [{"key": "key1", "value": "value1", "effect": "NoExecute"}]
    page = text(preview(client, cluster, {"op": "yaml", "text": kube.dump_documents([doc])}).content.decode())
    assert "Preview: edit the MachineSet (oc edit)" in page
    assert ("The edit also changes spec.replicas from 2 to 3: applying it scales the set at once "
            "(new machines from the new template).") in page
    assert "Then scale to 0 and back to 3" in page
