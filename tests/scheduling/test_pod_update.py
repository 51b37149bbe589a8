"""A user's update of a stored Pod (`oc replace -f`, `oc apply -f`, the editor's Apply, an
import over it) goes through the API server's update admission (DefaultTolerationSeconds,
PodTolerationRestriction and Priority handle Update in 1.11) and ValidatePodUpdate: what the
pod keeps, and the Forbidden answers, with nothing written when refused."""

from __future__ import annotations

import io
import json

import pytest
from django.urls import reverse

from scheduling.store import kube, reconcile, services
from scheduling.management.commands.oc import Command
from scheduling.models import Pod

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1}
status:
  conditions: [{type: Ready, status: "True"}]
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: nginx:1, resources: {requests: {cpu: 100m}}}]
"""

POD = """apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  nodeSelector: {{disk: {disk}}}
  containers: [{{name: c, image: {image}, resources: {{requests: {{cpu: 100m}}}}}}]
"""

DEFAULTS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]
FORBIDDEN = ('The Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than '
             "`spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or "
             "`spec.tolerations` (only additions to existing tolerations)\n")


def oc(*argv: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = Command().main(list(argv), io.StringIO(), out, err)
    return out.getvalue(), err.getvalue(), code


@pytest.fixture
def cluster(db):
    cluster = services.import_new_cluster("upd", CLUSTER, "cluster.yaml")
    reconcile.reconcile(cluster.pk)  # the first sync, as `manage.py import_cluster` runs it
    return cluster


def pod_file(tmp_path, disk="ssd", image="nginx:2"):
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(disk=disk, image=image))
    return str(path)


def stored(cluster) -> Pod:
    return Pod.objects.get(cluster=cluster, name="p")


def tolerations(cluster) -> list:
    return [t for t in stored(cluster).spec.get("tolerations") or [] if t.get("effect") == "NoExecute"]


@pytest.mark.parametrize("verb", ["replace", "apply"])
def test_an_update_keeps_the_default_toleration_seconds(cluster, tmp_path, verb):
    assert tolerations(cluster) == DEFAULTS  # admitted on create
    out, err, code = oc("--cluster", "upd", verb, "-f", pod_file(tmp_path))
    assert (code, err) == (0, "")
    assert out == ("pod/p replaced\n" if verb == "replace" else "pod/p configured\n")
    pod = stored(cluster)
    assert pod.spec["containers"][0]["image"] == "nginx:2"
    assert tolerations(cluster) == DEFAULTS
    # PodTolerationRestriction handles Update too: a Burstable pod keeps memory-pressure
    assert {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"} in pod.spec["tolerations"]


def test_a_forbidden_change_is_refused_with_the_api_servers_message(cluster, tmp_path):
    before = stored(cluster)
    out, err, code = oc("--cluster", "upd", "replace", "-f", pod_file(tmp_path, disk="hdd"))
    assert (out, code) == ("", 1)
    assert err.startswith(FORBIDDEN)
    # diff.ObjectDiff: the common prefix, then A: the update's rest and B: the stored one
    # (the fields in Go's order: the same on every database)
    assert err.startswith(FORBIDDEN + '{"containers":[{"name":"c","image":"nginx:1",')
    assert '"dnsPolicy":"ClusterFirst","nodeSelector":{"disk":"\n\nA: hdd"},' in err and '\n\nB: ssd"},' in err
    after = stored(cluster)
    assert (after.resource_version, after.spec) == (before.resource_version, before.spec)


def test_existing_tolerations_may_only_change_their_seconds(cluster, tmp_path):
    path = tmp_path / "pod.yaml"
    # the stored not-ready toleration with other seconds, one added, unreachable and
    # memory-pressure left out (DefaultTolerationSeconds and PodTolerationRestriction add
    # them again on update): allowed
    path.write_text(POD.format(disk="ssd", image="nginx:1") + "  tolerations:\n"
                    "  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}\n"
                    "  - {key: dedicated, operator: Equal, value: a, effect: NoSchedule}\n")
    assert oc("--cluster", "upd", "replace", "-f", str(path)) == ("pod/p replaced\n", "", 0)
    assert tolerations(cluster) == [{**DEFAULTS[0], "tolerationSeconds": 30}, DEFAULTS[1]]
    # the added toleration with another value: refused
    path.write_text(POD.format(disk="ssd", image="nginx:1") + "  tolerations:\n"
                    "  - {key: dedicated, operator: Equal, value: b, effect: NoSchedule}\n")
    version = stored(cluster).resource_version
    out, err, code = oc("--cluster", "upd", "replace", "-f", str(path))
    assert code == 1
    assert err == ('The Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified '
                   "except its tolerationSeconds\n")
    assert stored(cluster).resource_version == version


def test_snapshot_mode_is_unchanged(tmp_path):
    snapshot = tmp_path / "snap.yaml"
    snapshot.write_text(POD.format(disk="ssd", image="nginx:1"))
    out, err, code = oc("-f", str(snapshot), "replace", "-f", pod_file(tmp_path, disk="hdd"))
    assert (out, err, code) == ("pod/p replaced\n", "", 0)


def test_the_editor_refuses_a_forbidden_pod_change_and_writes_nothing(editor_client, cluster):
    pod = stored(cluster)
    doc = pod.document
    doc["spec"] = {**doc["spec"], "nodeSelector": {"disk": "hdd"}}
    response = editor_client.post(reverse("apply-edit", args=[cluster.pk]), {
        "document": json.dumps(doc), "resource_version": pod.resource_version, "verb": "replaced",
    })
    assert response.status_code == 422
    text = response.content.decode()
    assert "spec: Forbidden: pod updates may not change fields other than" in text
    assert stored(cluster).resource_version == pod.resource_version


def test_a_server_dry_run_is_refused_alike_and_writes_nothing(cluster, tmp_path):
    version = stored(cluster).resource_version
    out, err, code = oc("--cluster", "upd", "replace", "-f", pod_file(tmp_path, disk="hdd"), "--dry-run=server")
    assert (out, code) == ("", 1)
    assert err.startswith(FORBIDDEN)
    out, err, code = oc("--cluster", "upd", "replace", "-f", pod_file(tmp_path), "--dry-run=server")
    assert (out, err, code) == ("pod/p replaced (server dry run)\n", "", 0)
    assert stored(cluster).resource_version == version


def test_an_import_over_the_pod_is_checked_as_an_update(cluster):
    version = stored(cluster).resource_version
    with pytest.raises(kube.DocumentError) as refused:
        services.import_documents(cluster, POD.format(disk="hdd", image="nginx:1"), "pod.yaml")
    assert 'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than' in str(refused.value)
    assert stored(cluster).resource_version == version
    services.import_documents(cluster, POD.format(disk="ssd", image="nginx:2"), "pod.yaml")
    assert stored(cluster).spec["containers"][0]["image"] == "nginx:2"
    assert tolerations(cluster) == DEFAULTS


def test_the_editors_preview_of_a_pod_says_apply_will_be_refused(editor_client, cluster):
    url = reverse("pod-preview", args=[cluster.pk, "default", "p"])
    refused = editor_client.post(url, {"op": "selector-set", "key": "disk", "value": "hdd"}, HTTP_HX_REQUEST="true")
    assert ("Apply will be refused: The Pod &quot;p&quot; is invalid: spec: Forbidden: pod updates may not change "
            "fields other than") in refused.content.decode()
    added = editor_client.post(url, {"op": "toleration-add", "key": "k", "operator": "Equal", "value": "v",
                                     "effect": "NoSchedule"}, HTTP_HX_REQUEST="true")
    assert "Apply will be refused" not in added.content.decode()
