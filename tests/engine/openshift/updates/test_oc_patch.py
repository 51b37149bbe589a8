"""`oc patch` as the update procedures use it: pausing a pool (`--type merge`; a custom
resource refuses a strategic merge patch), acknowledging an admin gate in the admin-acks
ConfigMap, a JSON patch; `(no change)` when nothing changes."""

from __future__ import annotations

from scheduling.engine import oc
from scheduling.engine.oc.patch import json_patch, merge_patch
from scheduling.engine.store import Store

POOL = {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
        "metadata": {"name": "worker", "creationTimestamp": 0}, "spec": {"paused": False, "maxUnavailable": 1},
        "status": {"machineCount": 3}}
ACKS = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "admin-acks", "namespace": "openshift-config", "creationTimestamp": 0}}



def test_pausing_a_pool_with_a_merge_patch():
    store = Store([POOL])
    result = oc.run(store, "oc patch mcp/worker --type merge -p '{\"spec\":{\"paused\":true}}'", 60)
    assert (result.stdout, result.stderr, result.exit_code) == ("machineconfigpool.machineconfiguration.openshift.io/worker patched\n", "", 0)
    [action] = result.actions
    assert action.doc["spec"] == {"paused": True, "maxUnavailable": 1} and action.keep_status


def test_a_custom_resource_refuses_a_strategic_merge_patch():
    result = oc.run(Store([POOL]), "oc patch mcp worker -p '{\"spec\":{\"paused\":true}}'", 60)
    assert result.exit_code == 1 and result.actions == []
    assert result.stderr == ("Error from server (UnsupportedMediaType): the body of the request was in an unknown format - accepted "
                             "media types include: application/json-patch+json, application/merge-patch+json, "
                             "application/apply-patch+yaml\n")


def test_acknowledging_an_admin_gate():
    result = oc.run(Store([ACKS]), "oc -n openshift-config patch cm admin-acks --patch "
                                   "'{\"data\":{\"ack-4.18-kube-1.32-api-removals-in-4.19\":\"true\"}}' --type=merge", 60)
    assert result.stdout == "configmap/admin-acks patched\n"
    assert result.actions[0].doc["data"] == {"ack-4.18-kube-1.32-api-removals-in-4.19": "true"}


def test_a_patch_that_changes_nothing_says_so():
    result = oc.run(Store([POOL]), "oc patch mcp worker --type=merge -p '{\"spec\":{\"paused\":false}}'", 60)
    assert (result.stdout, result.actions) == ("machineconfigpool.machineconfiguration.openshift.io/worker patched (no change)\n", [])


def test_a_missing_object_is_not_found():
    result = oc.run(Store([]), "oc patch mcp worker --type=merge -p '{\"spec\":{}}'", 60)
    assert result.exit_code == 1
    assert result.stderr == 'Error from server (NotFound): machineconfigpools.machineconfiguration.openshift.io "worker" not found\n'


def test_merge_and_json_patch_semantics():
    assert merge_patch({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": None, "e": 3}, "d": [2]}) == {"a": {"c": 2, "e": 3}, "d": [2]}
    doc = {"spec": {"maxUnavailable": 1, "list": [1, 2]}}
    assert json_patch(doc, [{"op": "replace", "path": "/spec/maxUnavailable", "value": "40%"},
                            {"op": "add", "path": "/spec/list/-", "value": 3},
                            {"op": "remove", "path": "/spec/list/0"}]) == {"spec": {"maxUnavailable": "40%", "list": [2, 3]}}
    assert doc == {"spec": {"maxUnavailable": 1, "list": [1, 2]}}
