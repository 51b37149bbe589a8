"""The what-if editor's pages: a preview computed without writing, and apply with its
compare-and-swap on the version the preview was made from."""

from __future__ import annotations

import json
import re

import pytest

from django.urls import reverse

from scheduling.models import Node
from tests.scheduling.pages import FRONTEND_ON_NODE2, apply_form, preview, set_doc


def test_a_taint_preview_lists_the_evicted_pods_and_changes_nothing(editor_client, demo):
    before = Node.objects.get(cluster=demo, name="node2").resource_version
    response = preview(editor_client, demo, "node2", op="taint-add", key="key1", value="value1", effect="NoExecute")
    body = response.content.decode()
    assert response.status_code == 200
    assert re.findall(r'data-evicted="([^"]+)"', body) == [FRONTEND_ON_NODE2]
    assert Node.objects.get(cluster=demo, name="node2").resource_version == before
    assert "taints" not in Node.objects.get(cluster=demo, name="node2").spec


def test_the_oc_taint_field_takes_ocs_forms_and_messages(editor_client, demo):
    ok = preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExecute")
    assert re.findall(r'data-evicted="([^"]+)"', ok.content.decode()) == [FRONTEND_ON_NODE2]
    bad = preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExcute")
    assert bad.status_code == 200  # htmx swaps the message in; a plain post gets 422
    assert "error: invalid taint effect: NoExcute, unsupported taint effect" in bad.content.decode()
    missing = preview(editor_client, demo, "node1", op="taint-oc", taint="dedicated:NoSchedule-")
    assert 'error: taint &quot;dedicated:NoSchedule&quot; not found' in missing.content.decode()
    removal = preview(editor_client, demo, "node1", op="taint-oc", taint="key2-")
    body = removal.content.decode()
    assert removal.status_code == 200
    # default/new-pod-key1 tolerates key1 and is pinned to node1: it would start there
    assert re.findall(r'data-scheduled="([^"]+)"', body) == ["default/new-pod-key1"]


def test_apply_commits_the_previewed_document(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExecute").content.decode())
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "node/node2 tainted" in response.content.decode()
    assert Node.objects.get(cluster=demo, name="node2").spec["taints"] == [{"key": "key1", "value": "value1", "effect": "NoExecute"}]


def test_a_concurrent_edit_of_another_field_is_kept_and_the_taint_applied(editor_client, demo):
    """As kubectl's taint is a patch: someone else's write since the preview is re-read, the
    taint applied to the latest version, and both changes stay."""
    form = apply_form(preview(editor_client, demo, "node2", op="taint-add", key="a", value="b", effect="NoSchedule").content.decode())
    set_doc(demo, "Node", "node2", lambda d: d["metadata"]["labels"].update(team="x"))  # someone else
    set_doc(demo, "Node", "node2", lambda d: d.setdefault("spec", {}).update(taints=[{"key": "theirs", "effect": "NoSchedule"}]))
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form)
    assert response.status_code == 200 and "node/node2 tainted" in response.content.decode()
    stored = Node.objects.get(cluster=demo, name="node2")
    assert stored.spec["taints"] == [{"key": "theirs", "effect": "NoSchedule"}, {"key": "a", "value": "b", "effect": "NoSchedule"}]
    assert stored.metadata["labels"]["team"] == "x"


def test_a_concurrent_edit_without_the_previewed_base_is_a_conflict_and_writes_nothing(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node2", op="taint-add", key="a", value="b", effect="NoSchedule").content.decode())
    form.pop("base")  # a form that does not say what the edit was made from cannot be re-applied
    set_doc(demo, "Node", "node2", lambda d: d["metadata"]["labels"].update(team="x"))  # someone else
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form)
    body = response.content.decode()
    assert response.status_code == 409
    assert "someone changed this object since the preview" in body
    assert 'Operation cannot be fulfilled on nodes &quot;node2&quot;: the object has been modified' in body
    stored = Node.objects.get(cluster=demo, name="node2")
    assert "taints" not in stored.spec and stored.metadata["labels"]["team"] == "x"


def test_an_invalid_edit_is_explained_and_not_previewed(editor_client, demo):
    response = editor_client.post(reverse("node-preview", args=[demo.pk, "node2"]), {"op": "label-set", "key": "bad key!", "value": "v"})
    assert response.status_code == 422
    assert "metadata.labels: Invalid value: &quot;bad key!&quot;" in response.content.decode()


def test_a_pod_toleration_preview_shows_the_pod_starting(editor_client, demo):
    url = reverse("pod-preview", args=[demo.pk, "default", "new-pod-key1"])
    body = editor_client.post(url, {"op": "toleration-add", "key": "key2", "operator": "Equal", "value": "value2",
                                    "effect": "NoSchedule"}, HTTP_HX_REQUEST="true").content.decode()
    assert re.findall(r'data-scheduled="([^"]+)"', body) == ["default/new-pod-key1"]


def test_a_controller_template_preview_shows_the_rollout_the_loop_makes(editor_client, demo):
    url = reverse("controller-preview", args=[demo.pk, "Deployment", "shop", "frontend"])
    body = editor_client.post(url, {"op": "selector-set", "key": "disktype", "value": "nvme"}, HTTP_HX_REQUEST="true").content.decode()
    # the rolling update surges one pod of the new template (maxSurge 25 % of 3), which fits no
    # node: it stays Pending and the old pods keep running (the rollout stalls, as in Kubernetes)
    created = re.findall(r'data-created="([^"]+)"', body)
    assert len(created) == 1 and created[0].startswith("shop/frontend-")
    assert re.findall(r'data-pending="([^"]+)"', body) == created
    assert "didn&#x27;t match node selector" in body
    assert "data-deleted" not in body and "data-evicted" not in body


def test_affinity_forms_preview_where_the_pod_would_go(editor_client, demo):
    url = reverse("pod-preview", args=[demo.pk, "default", "ssd-cache"])
    body = editor_client.post(url, {"op": "node-affinity-add", "key": "zone", "operator": "In", "values": "us-east-1a"},
                              HTTP_HX_REQUEST="true").content.decode()
    assert "require node label zone In us-east-1a" in body
    # a pod's affinity is not among what a pod update may change: the API server refuses the
    # write, so the loop sees no change (the old predictor showed the pod moving)
    assert "Apply will be refused: The Pod &quot;ssd-cache&quot; is invalid: spec: Forbidden:" in body
    assert "data-scheduled" not in body and "data-pending" not in body
    body = editor_client.post(url, {"op": "pod-affinity-add", "kind": "affinity", "key": "app", "value": "frontend",
                                    "topology_key": "kubernetes.io/hostname"}, HTTP_HX_REQUEST="true").content.decode()
    assert "podAffinity" in body  # the diff
    assert "Apply will be refused" in body


def test_apply_refuses_what_is_not_a_stored_kind(editor_client, demo):
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), {
        "document": json.dumps({"kind": "Policy", "apiVersion": "v1", "metadata": {"name": "x"}}),
        "resource_version": 1, "verb": "replaced"})
    assert response.status_code == 422 and 'no matches for kind &quot;Policy&quot;' in response.content.decode()


def test_the_confirmation_after_apply_only_shows_what_oc_would_print(client, demo):
    url = reverse("node-detail", args=[demo.pk, "node2"])
    assert "node/node2 tainted" in client.get(url, {"applied": "node/node2 tainted"}).content.decode()
    assert "Call 555" not in client.get(url, {"applied": "Call 555 to fix your cluster"}).content.decode()


@pytest.mark.parametrize("operator", ["Exists", "DoesNotExist"])
def test_values_with_exists_are_refused_with_the_api_servers_message(editor_client, demo, operator):
    url = reverse("pod-preview", args=[demo.pk, "default", "ssd-cache"])
    response = editor_client.post(url, {"op": "node-affinity-add", "key": "zone", "operator": operator, "values": "a,b"},
                                  HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200  # htmx swaps error answers too (error_status)
    assert ("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0].values: Forbidden: may not be specified when `operator` is &#x27;Exists&#x27; or "
            "&#x27;DoesNotExist&#x27;") in body
    assert "Apply" not in body


def test_exists_without_values_previews(editor_client, demo):
    url = reverse("pod-preview", args=[demo.pk, "default", "ssd-cache"])
    body = editor_client.post(url, {"op": "node-affinity-add", "key": "zone", "operator": "Exists", "values": ""},
                              HTTP_HX_REQUEST="true").content.decode()
    assert "require node label zone Exists" in body and "values: Forbidden" not in body
    # a pod's affinity is not among what a pod update may change: the preview says so
    assert "Apply will be refused: The Pod &quot;ssd-cache&quot; is invalid: spec: Forbidden:" in body


def test_score_changes_name_only_best_nodes_that_have_a_row_and_show_avoid_pods_apart(editor_client, demo):
    # node4's PreferNoSchedule taint lowers only node4's score for the frontend pod there: node3
    # ties with it afterwards and is named best although its own score did not change
    body = preview(editor_client, demo, "node4", op="taint-add", key="x", value="y", effect="PreferNoSchedule").content.decode()
    tables = re.findall(r'<caption><strong>([^<]+)</strong>: best node ([^<]*) → ([^<]*)</caption>(.*?)</table>', body, re.S)
    # (scored on the loop's store at the clock: the demo's first sync has placed its pending pods)
    assert [t[:2] for t in tables] == [("shop/frontend-6d4f8b9c7d-9mzqt", "node4")]
    for pod, best_before, best_after, table in tables:
        rows = re.findall(r'data-score-row="([^"]+)"', table)
        for best in (best_before + ", " + best_after).split(", "):
            assert best == "none" or best in rows, (pod, best, rows)
        assert "100000" not in re.sub(r"\+ 100000 avoid-pods", "", table)


# --- the node-selection admission plugins in the what-if editor --------------------------------------------------


BLACKLIST_DISKTYPE = [{"apiVersion": "v1", "kind": "PodNodeConstraintsConfig", "nodeSelectorLabelBlacklist": ["disktype"]}]


def test_a_template_change_whose_new_pods_admission_would_refuse_says_so(editor_client, demo):
    from scheduling.store import services

    services.set_admission_config(demo, BLACKLIST_DISKTYPE, False)
    url = reverse("controller-preview", args=[demo.pk, "Deployment", "shop", "frontend"])
    body = editor_client.post(url, {"op": "selector-set", "key": "disktype", "value": "nvme"}, HTTP_HX_REQUEST="true").content.decode()
    # apps/v1 Deployments pass PodNodeConstraints in 3.11; the ReplicaSet controller's pods do not
    assert re.search(r"<li>ReplicaSet/shop/frontend-[0-9a-z]+: its controller&#x27;s new pods are refused: Error creating: "
                     r"pods &quot;frontend-[0-9a-z]+-&quot; is forbidden: node selection by label\(s\) \[disktype\] "
                     r"is prohibited by policy for your role\.</li>", body), body
    assert re.findall(r'data-created="([^"]+)"', body) == []


def test_a_template_change_previews_the_new_pods_with_their_projects_node_selector(editor_client, demo):
    from scheduling.store import services

    ns = services.get_object(demo, "Namespace", "shop").document
    ns["metadata"]["annotations"] = {"openshift.io/node-selector": "disktype=nvme"}
    services.replace_object(demo, ns)
    url = reverse("controller-preview", args=[demo.pk, "Deployment", "shop", "frontend"])
    body = editor_client.post(url, {"op": "toleration-add", "key": "k", "operator": "Exists", "value": "",
                                    "effect": "NoSchedule"}, HTTP_HX_REQUEST="true").content.decode()
    # no node has disktype=nvme: the rollout's new pod (with the project's selector merged) fits nowhere
    pending = re.findall(r'data-pending="([^"]+)"', body)
    assert len(pending) == 1 and pending == re.findall(r'data-created="([^"]+)"', body)
    assert "9 node(s) didn&#x27;t match node selector" in body


def test_an_update_of_a_statefulsets_template_is_refused_with_the_api_servers_text(editor_client, demo):
    """PodNodeConstraints checks updates too (of the resources it lists: apps StatefulSets,
    not apps Deployments); the what-if editor shows the refusal and Apply refuses it."""
    from scheduling.store import services

    services.import_documents(demo, """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: postgres}]}
""")
    services.set_admission_config(demo, BLACKLIST_DISKTYPE, False)
    url = reverse("controller-preview", args=[demo.pk, "StatefulSet", "shop", "db"])
    response = editor_client.post(url, {"op": "selector-set", "key": "disktype", "value": "nvme"}, HTTP_HX_REQUEST="true")
    refusal = ("statefulsets.apps &quot;db&quot; is forbidden: node selection by label(s) [disktype] "
               "is prohibited by policy for your role")
    assert refusal in response.content.decode() and 'name="document"' not in response.content.decode()
    services.set_admission_config(demo, [], False)
    previewed = editor_client.post(url, {"op": "selector-set", "key": "disktype", "value": "nvme"}, HTTP_HX_REQUEST="true")
    form = apply_form(previewed.content.decode())
    services.set_admission_config(demo, BLACKLIST_DISKTYPE, False)
    applied = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true")
    assert refusal in applied.content.decode()
    assert "nodeSelector" not in services.get_object(demo, "StatefulSet", "db", "shop").document["spec"]["template"]["spec"]


def test_the_scheduler_picker_previews_a_template_for_a_scheduler_that_does_not_run(editor_client, demo):
    page = editor_client.get(reverse("controller-detail", args=[demo.pk, "Deployment", "shop", "frontend"])).content.decode()
    assert 'name="op" value="scheduler-set"' in page and '<option value="default-scheduler">' in page
    url = reverse("controller-preview", args=[demo.pk, "Deployment", "shop", "frontend"])
    body = editor_client.post(url, {"op": "scheduler-set", "name": "gpu-scheduler"}, HTTP_HX_REQUEST="true").content.decode()
    # the surge pod of the new template names a scheduler that does not run: it waits, Pending
    created = re.findall(r'data-created="([^"]+)"', body)
    assert len(created) == 1 and re.findall(r'data-pending="([^"]+)"', body) == created
    assert "SchedulerNotRunning" not in body
