"""`oc edit` in the console (scheduling/console/views.py, engine.oc.edit): the editor pane holds
the file kubectl opens (its header comment, then the object's YAML), Save answers as kubectl
does when the editor closes, a change is previewed first and written on Apply, errors reopen
the pane with kubectl's header; editors only, CSRF, escaped."""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from scheduling.management.commands.oc import Command
from scheduling.store import oc_cli, services
from tests.scheduling.test_console import answer, run
from tests.scheduling.test_oc_command import CLUSTER

DEPLOYMENT = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, creationTimestamp: 0, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""
HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")


@pytest.fixture
def cluster(db):
    return services.import_new_cluster("demo", CLUSTER + DEPLOYMENT, "cluster.yaml")


def editor_text(response) -> str | None:
    """The text of the editor pane an answer swaps in (None: the pane emptied)."""
    html = response.content.decode()
    pane = re.search(r'<div id="oc-editor"[^>]*>(.*?)</div>', html, re.S)
    assert pane is not None, "the answer swaps the editor pane"
    text = re.search(r'<textarea name="text" class="oc-editor-text"[^>]*>(.*?)</textarea>', pane.group(1), re.S)
    return unescape(text.group(1)) if text else None


def save(client, cluster, text: str, **extra):
    return client.post(reverse("console-edit", args=[cluster.pk]), {"command": "oc edit deployment/web", "text": text, **extra},
                       HTTP_HX_REQUEST="true")


def shown(response) -> dict:
    """What an answer to Save shows (it echoes no command)."""
    result = answer(response)
    assert result.pop("echo") is None
    return result


def replicas(cluster) -> int:
    return oc_cli.cluster_store(cluster).get("Deployment", "default", "web")["spec"]["replicas"]


def test_edit_opens_the_file_kubectl_opens(editor_client, cluster):
    response = editor_client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc edit deploy web"},
                                  HTTP_HX_REQUEST="true")
    text = editor_text(response)
    assert text.startswith(HEADER + "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n")
    assert "\nspec:\n" in text and "\n  replicas: 2\n" in text
    assert answer(response)["lines"] == []


def test_an_unchanged_file_cancels_the_edit(editor_client, cluster):
    text = editor_text(editor_client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc edit deployment/web"},
                                          HTTP_HX_REQUEST="true"))
    response = save(editor_client, cluster, text.replace("\n", "\r\n"))  # a browser posts a textarea with CRLF
    assert shown(response)["lines"] == [["stderr", "Edit cancelled, no changes made.\n"]]
    assert editor_text(response) is None


def test_a_change_is_previewed_then_applied(editor_client, cluster):
    text = editor_text(editor_client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc edit deployment/web"},
                                          HTTP_HX_REQUEST="true"))
    edited = text.replace("replicas: 2", "replicas: 3")
    response = save(editor_client, cluster, edited)
    html = response.content.decode()
    assert 'id="oc-preview"' in html and "Preview</strong> of <code>oc edit deployment/web</code>" in html
    assert 'data-created="default/web-' in html  # the Deployment's third pod, in the loop on a copy
    assert reverse("console-edit", args=[cluster.pk]) in html.split('id="oc-preview"')[1]  # Apply posts the edit back
    assert replicas(cluster) == 2  # nothing written yet
    response = save(editor_client, cluster, edited, confirm="1")
    assert shown(response) == {"lines": [["stdout", "deployment.apps/web edited\n"]], "exit_code": 0}
    assert editor_text(response) is None
    assert replicas(cluster) == 3


def test_an_invalid_object_reopens_the_editor_with_the_api_servers_causes(editor_client, cluster):
    text = editor_text(editor_client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc edit deployment/web"},
                                          HTTP_HX_REQUEST="true"))
    for extra in ({}, {"confirm": "1"}):
        response = save(editor_client, cluster, text.replace("replicas: 2", "replicas: -1"), **extra)
        assert shown(response) == {"lines": [["stderr", 'error: deployments.apps "web" is invalid\n']], "exit_code": 1}
        reopened = editor_text(response)
        assert reopened.startswith(HEADER + '# deployments.apps "web" was not valid:\n'
                                   "# * spec.replicas: Invalid value: -1: must be greater than or equal to 0\n#\n"
                                   "apiVersion: apps/v1\n")
        assert "replicas: -1" in reopened
    assert replicas(cluster) == 2


def test_a_syntax_error_reopens_the_editor(editor_client, cluster):
    response = save(editor_client, cluster, HEADER + "spec: [\n")
    assert editor_text(response).startswith(HEADER + "# The edited file had a syntax error: error converting YAML to JSON: yaml: ")


def test_a_missing_object(editor_client, cluster):
    result = run(editor_client, cluster, "oc edit deployment/nope")
    assert result == {"lines": [["stderr", 'Error from server (NotFound): deployments.apps "nope" not found\n']], "exit_code": 1}


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_only_editors_may_edit(client, viewer, cluster, who):
    if who == "viewer":
        client.force_login(viewer)
    name = "viewer" if who == "viewer" else "system:anonymous"
    forbidden = (f'Error from server (Forbidden): deployments.apps "web" is forbidden: User "{name}" cannot patch resource '
                 '"deployments" in API group "apps" in the namespace "default"\n')
    assert run(client, cluster, "oc edit deployment/web") == {"lines": [["stderr", forbidden]], "exit_code": 1}
    response = save(client, cluster, HEADER + "kind: Deployment\n", confirm="1")
    assert shown(response) == {"lines": [["stderr", forbidden]], "exit_code": 1}
    assert replicas(cluster) == 2


def test_saving_needs_the_csrf_token(editor, cluster):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(reverse("console-edit", args=[cluster.pk]), {"command": "oc edit deploy/web", "text": ""}).status_code == 403


def test_the_editor_text_is_escaped(editor_client, cluster):
    editor_client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc label deploy web note=x", "confirm": "1"},
                       HTTP_HX_REQUEST="true")
    response = save(editor_client, cluster, HEADER + "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
                                                     "  labels: {a: '</textarea><b>x</b>'}\nspec: [\n")
    html = response.content.decode()
    assert "<b>x</b>" not in html and "&lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;" in html


def test_completion_knows_edit(client, cluster):
    data = client.get(reverse("console-complete", args=[cluster.pk])).json()
    assert "edit" in data["commands"] and "--output" in data["flags"]["edit"]


# --- manage.py oc edit: kubectl's editor loop with $KUBE_EDITOR / $EDITOR -----------------------------------------


def oc(*argv: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = Command().main(list(argv), io.StringIO(""), out, err)
    return out.getvalue(), err.getvalue(), code


def test_the_command_line_edits_with_the_users_editor(cluster, monkeypatch):
    monkeypatch.delenv("KUBE_EDITOR", raising=False)
    monkeypatch.setenv("EDITOR", r"sed -i s/replicas:\ 2/replicas:\ 4/")
    assert oc("--cluster", "demo", "edit", "deployment/web") == ("deployment.apps/web edited\n", "", 0)
    assert replicas(cluster) == 4
    monkeypatch.setenv("KUBE_EDITOR", "true")  # saves the file as it was
    assert oc("--cluster", "demo", "edit", "deploy", "web") == ("", "Edit cancelled, no changes made.\n", 0)


def test_the_command_line_without_a_working_editor(cluster, monkeypatch):
    monkeypatch.setenv("KUBE_EDITOR", "false")
    assert oc("--cluster", "demo", "edit", "deployment/web") == ("", 'error: there was a problem with the editor "false"\n', 1)


def test_the_command_line_reopens_an_invalid_edit_until_it_is_left_unchanged(cluster, monkeypatch):
    monkeypatch.setenv("KUBE_EDITOR", r"sed -i s/replicas:\ 2$/replicas:\ -1/")  # a second pass changes nothing
    out, err, code = oc("--cluster", "demo", "edit", "deployment/web")
    assert (out, code) == ("", 1)
    assert err == ('error: deployments.apps "web" is invalid\n'
                   "error: Edit cancelled, no valid changes were saved.\n")
    assert replicas(cluster) == 2


# --- the namespaces of an OpenShift 4 cluster, in the console ------------------------------------------------------


def test_an_openshift_4_cluster_lists_and_completes_its_payloads_namespaces(client, db):
    demo = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "openshift4-cluster.yaml"
    ocp = services.import_new_cluster("ocp", demo.read_text(), demo.name)
    listed = run(client, ocp, "oc get ns -o name")["lines"][0][1].splitlines()
    assert {"namespace/openshift-etcd", "namespace/openshift-kube-apiserver", "namespace/openshift-monitoring",
            "namespace/kube-system"} <= set(listed)
    assert run(client, ocp, "oc get pods -n openshift-kube-apiserver") == {
        "lines": [["stderr", "No resources found in openshift-kube-apiserver namespace.\n"]], "exit_code": 0}
    names = client.get(reverse("console-complete", args=[ocp.pk])).json()["names"]["ns"]
    assert {"openshift-etcd", "openshift-machine-config-operator", "default"} <= set(names)


def test_the_command_line_edits_a_snapshot_without_changing_it(tmp_path, monkeypatch):
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(DEPLOYMENT)
    monkeypatch.setenv("KUBE_EDITOR", r"sed -i s/replicas:\ 2/replicas:\ 4/")
    assert oc("-f", str(snapshot), "edit", "deployment/web") == ("deployment.apps/web edited\n", "", 0)
    assert "replicas: 2" in snapshot.read_text()
