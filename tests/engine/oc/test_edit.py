"""`oc edit` in the engine (engine.oc.edit): the file kubectl opens (editoptions.go's header,
then the object as `oc get -o yaml|json` prints it) and what kubectl does with the saved file."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.oc.edit import EDIT_FILE, header
from scheduling.engine.store import Store

HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")
DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
OPENED = HEADER + """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  resourceVersion: "7"
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: nginx
        name: c
"""


def saved(text: str, command: str = "oc edit deployment/web -n shop"):
    return oc.run(Store([DEPLOY]), command, 0, files={EDIT_FILE: [{"text": text}]})


@pytest.mark.parametrize("command", ["oc edit deployment/web -n shop", "oc edit deploy web -n shop", "oc -n shop edit deployments web"])
def test_the_file_opened(command):
    result = oc.run(Store([DEPLOY]), command, 0)
    assert (result.edit, result.stdout, result.stderr, result.exit_code, result.actions) == (OPENED, "", "", 0, [])


def test_json():
    assert oc.run(Store([DEPLOY]), "oc edit deploy/web -n shop -o json", 0).edit.startswith(HEADER + '{\n    "apiVersion": "apps/v1",')


def test_a_change_is_patched_into_the_object():
    result = saved(OPENED.replace("replicas: 2", "replicas: 5").replace("      app: web\n  template", "      app: web\n  paused: true\n  template"))
    assert (result.stdout, result.stderr, result.exit_code) == ("deployment.apps/web edited\n", "", 0)
    [action] = result.actions
    assert isinstance(action, A.ReplaceObject) and action.doc["spec"]["replicas"] == 5 and action.doc["spec"]["paused"] is True


@pytest.mark.parametrize("text, stderr", [
    (OPENED, "Edit cancelled, no changes made.\n"),
    (OPENED.replace("\n  name: web", "\n  # a comment\n  name: web"), "Edit cancelled, no changes made.\n"),
    ("# only comments\n\n", "Edit cancelled, saved file was empty.\n"),
])
def test_cancelled(text, stderr):
    result = saved(text)
    assert (result.stdout, result.stderr, result.exit_code, result.actions, result.edit) == ("", stderr, 0, [], None)


def test_an_invalid_object_reopens_the_file_with_the_causes():
    result = saved(OPENED.replace("replicas: 2", "replicas: -1").replace("image: nginx", "image: ''"))
    assert (result.stderr, result.exit_code, result.actions) == ('error: deployments.apps "web" is invalid\n', 1, [])
    assert result.edit == header([('deployments.apps "web" was not valid', [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.template.spec.containers[0].image: Required value"])]) + OPENED[len(HEADER):].replace(
        "replicas: 2", "replicas: -1").replace("image: nginx", "image: ''")


def test_a_syntax_error_reopens_the_file():
    result = saved(OPENED.replace("  replicas: 2", "  replicas: [2"))
    assert result.edit.startswith(HEADER + "# The edited file had a syntax error: error converting YAML to JSON: yaml: line ")
    assert (result.stderr, result.actions) == ("", [])


@pytest.mark.parametrize("old, new, message", [
    ("  name: web", "  name: other", "error: At least one of apiVersion, kind and name was changed\n"),
    ("kind: Deployment", "kind: StatefulSet", "error: At least one of apiVersion, kind and name was changed\n"),
    ("namespace: shop", "namespace: other", 'error: the namespace from the provided object "other" does not match the namespace '
                                            '"shop". You must pass \'--namespace=other\' to perform this operation.\n'),
    ('resourceVersion: "7"', 'resourceVersion: "6"',
     'error: deployments.apps "web" could not be patched: Operation cannot be fulfilled on deployments.apps "web": the object '
     'has been modified; please apply your changes to the latest version and try again\n'
     'You can run `oc replace -f oc-edit.yaml` to try this update again.\n'),
])
def test_refused(old, new, message):
    result = saved(OPENED.replace(old, new))
    assert (result.stderr, result.exit_code, result.actions) == (message, 1, [])


def test_a_missing_object_and_no_object():
    assert oc.run(Store([DEPLOY]), "oc edit deploy/nope -n shop", 0).stderr == \
        'Error from server (NotFound): deployments.apps "nope" not found\n'
    assert oc.run(Store([DEPLOY]), "oc edit", 0).stderr.startswith(
        "error: You must provide one or more resources by argument or filename.")
