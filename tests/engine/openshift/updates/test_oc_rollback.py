"""`oc adm upgrade rollback` as openshift/oc pkg/cli/admin/upgrade/rollback words it: back to
the previous entry of status.history, only within a z-stream, never while an update is in
progress; the request is a merge patch of spec.desiredUpdate."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import Store

IMAGE = {v: f"quay.io/openshift-release-dev/ocp-release@sha256:{n * 64}" for v, n in
         (("4.13.19", "1"), ("4.13.21", "2"), ("4.13.30", "3"), ("4.14.1", "4"))}


def clusterversion(desired: str, history: list[tuple[str, str]], progressing=("False", "", "Cluster version is {}"),
                   image: str | None = None, **spec) -> dict:
    conditions = []
    if progressing:
        status, reason, message = progressing
        conditions.append({"type": "Progressing", "status": status, "reason": reason, "message": message.format(desired)})
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
            "spec": {"channel": "stable-4.13", **spec},
            "status": {"desired": {"version": desired, "image": image or IMAGE[desired]},
                       "history": [{"state": s, "version": v, "image": IMAGE.get(v, "")} for s, v in history],
                       "conditions": conditions}}


def run(doc: dict, command: str = "oc adm upgrade rollback") -> oc.OcResult:
    return oc.run(Store([doc]), command, 0)


@pytest.mark.parametrize(
    "doc, stderr",
    [
        pytest.param(clusterversion("4.13.19", [("Partial", "4.13.19")], ("True", "ClusterOperatorNotAvailable", "Still installing")),
                     f"error: no previous version found in ClusterVersion's status.history besides the current 4.13.19 "
                     f"({IMAGE['4.13.19']}).\n", id="installing"),
        pytest.param(clusterversion("4.13.19", [("Completed", "4.13.19")]),
                     f"error: no previous version found in ClusterVersion's status.history besides the current 4.13.19 "
                     f"({IMAGE['4.13.19']}).\n", id="installed"),
        pytest.param(clusterversion("4.13.30", [("Partial", "4.13.30"), ("Completed", "4.13.19")],
                                    ("True", "ClusterOperatorsUpdating", "Working towards 4.13.30: 106 of 841 done (12% complete)")),
                     "error: unable to rollback while an update is Progressing=True: ClusterOperatorsUpdating: Working towards "
                     "4.13.30: 106 of 841 done (12% complete).\n", id="an update in progress"),
        pytest.param(clusterversion("4.13.19", [("Completed", "4.13.19"), ("Completed", "4.13.19")],
                                    image="quay.io/openshift-release-dev/ocp-release@sha256:" + "9" * 64),
                     f"error: previous version 4.13.19 ({IMAGE['4.13.19']}) is greater than or equal to current version 4.13.19 "
                     f"(quay.io/openshift-release-dev/ocp-release@sha256:{'9' * 64}).  Use 'oc adm upgrade ...' to update, and "
                     "not this rollback command.\n", id="after a multi-arch pivot at the same version"),
        pytest.param(clusterversion("4.14.1", [("Completed", "4.14.1"), ("Completed", "4.13.30")]),
                     "error: 4.13.30 is less than the current target 4.14.1 and matches the cluster's previous version, but "
                     "rollbacks that change major or minor versions are not recommended.\n", id="after a minor update"),
        pytest.param(clusterversion("4.13.30", [("Completed", "4.13.30"), ("Completed", "4.13.19")], progressing=()),
                     "error: no current Progressing info, see `oc describe clusterversion` for more details.\n",
                     id="no Progressing condition"),
        pytest.param(clusterversion("4.13", [("Completed", "4.13.19")], image=IMAGE["4.13.19"]),
                     "error: invalid ClusterVersion status.desired.version: No Major.Minor.Patch elements found\n",
                     id="a desired version that is no SemVer"),
        pytest.param(clusterversion("4.13.30", [("Completed", "4.13.30"), ("Completed", "4.13.x")]),
                     'error: previous version "4.13.x" invalid SemVer: Invalid character(s) found in patch number "x"\n',
                     id="a previous version that is no SemVer"),
    ],
)
def test_rollback_refuses(doc, stderr):
    result = run(doc)
    assert (result.exit_code, result.stdout, result.stderr, result.actions) == (1, "", stderr, [])


def desired_update(result: oc.OcResult) -> dict:
    [action] = result.actions
    assert isinstance(action, A.ReplaceObject)
    return action.doc["spec"]["desiredUpdate"]


def test_rollback_after_a_patch_update_requests_the_previous_version():
    result = run(clusterversion("4.13.30", [("Completed", "4.13.30"), ("Completed", "4.13.19")],
                                desiredUpdate={"version": "4.13.30", "image": IMAGE["4.13.30"], "acceptRisks": [{"name": "X"}]}))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "Requested rollback from 4.13.30 to 4.13.19\n", "")
    # a merge patch: what the patch does not name (acceptRisks) stays
    assert desired_update(result) == {"architecture": "", "version": "4.13.19", "image": IMAGE["4.13.19"], "force": False,
                                      "acceptRisks": [{"name": "X"}]}


def test_rollback_after_a_retargeted_update_goes_to_the_partial_one():
    result = run(clusterversion("4.13.30", [("Completed", "4.13.30"), ("Partial", "4.13.21"), ("Completed", "4.13.19")]))
    assert result.stdout == "Requested rollback from 4.13.30 to 4.13.21\n"
    assert desired_update(result)["image"] == IMAGE["4.13.21"]


def test_rollback_takes_no_arguments_and_has_ocs_help():
    result = run(clusterversion("4.13.30", [("Completed", "4.13.30")]), "oc adm upgrade rollback 4.13.19")
    assert (result.exit_code, result.stderr) == (
        1, "error: unexpected arguments: [4.13.19]\nSee 'oc adm upgrade rollback -h' for help and examples\n")
    help_text = run(clusterversion("4.13.30", [("Completed", "4.13.30")]), "oc adm upgrade rollback -h").stdout
    assert help_text.startswith("Rollback the cluster to the previous release.\n\n Only patch version rollbacks within the same z stream")
    assert "Usage:\n  oc adm upgrade rollback [flags] [options]\n" in help_text


def test_without_a_clusterversion():
    result = oc.run(Store([]), "oc adm upgrade rollback", 0)
    assert result.stderr == ("error: no cluster version information available - you must be connected to an OpenShift version 4 "
                             "server to fetch the current version\n")
