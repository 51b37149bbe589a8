"""`oc adm upgrade` and `oc adm upgrade channel` (OpenShift 4's update documentation), as current openshift/oc
prints them: the documentation's example was printed by an older oc ("Supported but not recommended
updates:" and a "Recommended: False" line); current oc says "Updates with known issues:"."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import Store

SEED_UPDATES = [
    ("4.10.26", "quay.io/openshift-release-dev/ocp-release@sha256:e1fa1f513068082d97d78be643c369398b0e6820afab708d26acda2262940954"),
    ("4.10.25", "quay.io/openshift-release-dev/ocp-release@sha256:ed84fb3fbe026b3bbb4a2637ddd874452ac49c6ead1e15675f257e28664879cc"),
    ("4.10.24", "quay.io/openshift-release-dev/ocp-release@sha256:aab51636460b5a9757b736a29bc92ada6e6e6282e46b06e6fd483063d590d62a"),
    ("4.10.23", "quay.io/openshift-release-dev/ocp-release@sha256:e40e49d722cb36a95fa1c03002942b967ccbd7d68de10e003f0baa69abad457b"),
]
SEED_411 = "quay.io/openshift-release-dev/ocp-release@sha256:300bce8246cf880e792e106607925de0a404484637627edf5f517375517d54a4"
RPM_OSTREE = ("Nodes with substantial numbers of containers and CPU contention may not reconcile machine configuration "
              "https://bugzilla.redhat.com/show_bug.cgi?id=2111817#c22")
CHANNELS = ["candidate-4.10", "candidate-4.11", "eus-4.10", "fast-4.10", "fast-4.11", "stable-4.10"]


def seed_cluster(**status) -> dict:
    conditions = [
        {"type": "Available", "status": "True", "lastTransitionTime": 0, "reason": "", "message": "Done applying 4.10.22"},
        {"type": "Failing", "status": "False", "lastTransitionTime": 0, "reason": "", "message": ""},
        {"type": "Progressing", "status": "False", "lastTransitionTime": 0, "reason": "", "message": "Cluster version is 4.10.22"},
        {"type": "RetrievedUpdates", "status": "True", "lastTransitionTime": 0, "reason": "", "message": ""},
    ]
    doc = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
           "spec": {"channel": "fast-4.11"},
           "status": {"desired": {"version": "4.10.22", "channels": CHANNELS, "image": "quay.io/openshift-release-dev/ocp-release@sha256:x"},
                      "availableUpdates": [{"version": v, "image": i} for v, i in reversed(SEED_UPDATES)],
                      "conditionalUpdates": [{"release": {"version": "4.11.0", "image": SEED_411},
                                              "risks": [{"name": "RPMOSTreeTimeout"}],
                                              "conditions": [{"type": "Recommended", "status": "False", "reason": "RPMOSTreeTimeout",
                                                              "message": RPM_OSTREE}]}],
                      "conditions": conditions}}
    doc["status"].update(status)
    return doc


SEED_OUTPUT = """\
Cluster version is 4.10.22

Upstream is unset, so the cluster will use an appropriate default.
Channel: fast-4.11 (available channels: candidate-4.10, candidate-4.11, eus-4.10, fast-4.10, fast-4.11, stable-4.10)

Recommended updates:

  VERSION     IMAGE
""" + "".join(f"  {v}     {i}\n" for v, i in SEED_UPDATES)

KNOWN_ISSUES = f"""
Updates with known issues:

  Version: 4.11.0
  Image: {SEED_411}
  Reason: RPMOSTreeTimeout
  Message: {RPM_OSTREE}
"""

MORE = ("\nAdditional updates which are not recommended for your cluster configuration are available, to view those re-run "
        "the command with --include-not-recommended.\n")


def run(doc: dict, command: str) -> oc.OcResult:
    return oc.run(Store([doc]), command, 0)


@pytest.mark.parametrize(
    "command, stdout",
    [
        pytest.param("oc adm upgrade --include-not-recommended", SEED_OUTPUT + KNOWN_ISSUES,
                     id="the documentation's example lists the recommended updates and the one with a known issue"),
        pytest.param("oc adm upgrade", SEED_OUTPUT + MORE, id="without the flag it says more updates exist"),
    ],
)
def test_upgrade_lists_updates(command, stdout):
    result = run(seed_cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)


@pytest.mark.parametrize(
    "command, exit_code, stdout, stderr, desired",
    [
        pytest.param("oc adm upgrade --to 4.10.25", 0, "Requested update to 4.10.25\n", "",
                     {"version": "4.10.25", "image": SEED_UPDATES[1][1]}, id="--to a recommended version"),
        pytest.param("oc adm upgrade --to-latest", 0, "Requested update to 4.10.26\n", "",
                     {"version": "4.10.26", "image": SEED_UPDATES[0][1]}, id="--to-latest picks the highest recommended"),
        pytest.param("oc adm upgrade --to 4.11.0", 1, "",
                     "error: the update 4.11.0 is not one of the recommended updates, but is available as a conditional update. "
                     "To accept the Recommended=False risk and to proceed with update use --allow-not-recommended.\n"
                     f"  Reason: RPMOSTreeTimeout\n  Message: {RPM_OSTREE}\n", None,
                     id="a conditional update needs --allow-not-recommended"),
        pytest.param("oc adm upgrade --to 4.11.0 --allow-not-recommended", 0, "Requested update to 4.11.0\n",
                     "warning: with --allow-not-recommended you have accepted the risks with 4.11.0 and bypassed "
                     f"Recommended=False RPMOSTreeTimeout: {RPM_OSTREE}\n", {"version": "4.11.0", "image": SEED_411},
                     id="--allow-not-recommended accepts the risk with a warning"),
        pytest.param("oc adm upgrade --to 4.12.0", 1, "",
                     "error: the update is not one of the possible targets: 4.10.26, 4.10.25, 4.10.24, 4.10.23. specify "
                     "--to-image to continue with the update.\n", None, id="a version not offered"),
        pytest.param("oc adm upgrade --to 4.10.22", 0, "info: Cluster is already at version 4.10.22\n", "", None,
                     id="the version the cluster runs"),
        pytest.param("oc adm upgrade --to 4.10", 1, "",
                     "error: --to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): No Major.Minor.Patch "
                     "elements found\n", None, id="not a version"),
        pytest.param("oc adm upgrade --to v4.10.25", 1, "",
                     "error: --to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): Invalid character(s) found in "
                     'major number "v4"\n', None, id="a version with a v (blang/semver's own message)"),
        pytest.param("oc adm upgrade --to 4.10.025", 1, "",
                     "error: --to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): Patch number must not contain "
                     'leading zeroes "025"\n', None, id="a leading zero"),
        pytest.param("oc adm upgrade --to-image quay.io/openshift-release-dev/ocp-release:4.10.25-x86_64", 1, "",
                     "error: --to-image must be a by-digest pull spec, unless --force is also set, because release images that "
                     "are not accessed via digest cannot be verified by the cluster.  Even when --force is set, using tags is "
                     "not recommended, although we continue to allow it for backwards compatibility\n", None,
                     id="a by-tag image"),
        pytest.param(f"oc adm upgrade --to-image {SEED_UPDATES[2][1]}", 0, "Requested update to 4.10.24\n", "",
                     {"version": "4.10.24", "image": SEED_UPDATES[2][1]}, id="--to-image of an offered release"),
        pytest.param("oc adm upgrade --clear", 0, "info: No update in progress\n", "", None, id="--clear without a request"),
        pytest.param("oc adm upgrade --clear --to 4.10.25", 1, "", "error: --clear may not be specified with any other flags\n",
                     None, id="--clear with another flag"),
    ],
)
def test_upgrade_requests(command, exit_code, stdout, stderr, desired):
    result = run(seed_cluster(), command)
    assert (result.exit_code, result.stdout, result.stderr) == (exit_code, stdout, stderr)
    if desired is None:
        assert result.actions == []
    else:
        [action] = result.actions
        assert isinstance(action, A.ReplaceObject) and action.keep_status
        assert action.doc["spec"]["desiredUpdate"] == desired


def test_an_update_in_progress_blocks_another_request_unless_allowed():
    doc = seed_cluster()
    for c in doc["status"]["conditions"]:
        if c["type"] == "Progressing":
            c.update(status="True", message="Working towards 4.10.23: 106 of 802 done (13% complete)")
    result = run(doc, "oc adm upgrade")
    assert result.stdout.startswith("info: An upgrade is in progress. Working towards 4.10.23: 106 of 802 done (13% complete)\n\n")
    refused = run(doc, "oc adm upgrade --to 4.10.25")
    assert refused.stderr == ("error: the cluster is already upgrading:\n\n  Reason: \n  Message: Working towards 4.10.23: 106 of "
                              "802 done (13% complete)\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.\n")
    allowed = run(doc, "oc adm upgrade --to 4.10.25 --allow-upgrade-with-warnings")
    assert allowed.stdout == "Requested update to 4.10.25\n"
    assert allowed.stderr.startswith("warning: --allow-upgrade-with-warnings is bypassing: the cluster is already upgrading:")


def test_upgradeable_false_is_printed():
    doc = seed_cluster()
    doc["status"]["conditions"].append({"type": "Upgradeable", "status": "False", "reason": "AdminAckRequired",
                                        "message": "Kubernetes 1.25 removes APIs.\nSee the article."})
    assert "\nUpgradeable=False\n\n  Reason: AdminAckRequired\n  Message: Kubernetes 1.25 removes APIs.\n  See the article.\n\n" \
        in run(doc, "oc adm upgrade").stdout


@pytest.mark.parametrize(
    "command, exit_code, stdout, stderr, channel",
    [
        pytest.param("oc adm upgrade channel fast-4.11", 0, "info: Cluster is already in fast-4.11 (no change)\n", "", None,
                     id="the same channel"),
        pytest.param("oc adm upgrade channel stable-4.10", 0, "", "", "stable-4.10", id="an available channel"),
        pytest.param("oc adm upgrade channel stable-4.12", 1, "",
                     'error: the requested channel "stable-4.12" is not one of the available channels (candidate-4.10, '
                     "candidate-4.11, eus-4.10, fast-4.10, fast-4.11, stable-4.10), you must pass --allow-explicit-channel to "
                     "continue\n", None, id="a channel the release is not in"),
        pytest.param("oc adm upgrade channel", 1, "",
                     'error: You are requesting to clear the update channel. The current channel "fast-4.11" is one of the '
                     "available channels, you must pass --allow-explicit-channel to continue\n", None, id="clearing"),
    ],
)
def test_channel(command, exit_code, stdout, stderr, channel):
    result = run(seed_cluster(), command)
    assert (result.exit_code, result.stdout, result.stderr) == (exit_code, stdout, stderr)
    if channel is None:
        assert result.actions == []
    else:
        assert result.actions[0].doc["spec"]["channel"] == channel


def test_get_clusterversion_prints_the_crd_columns():
    result = oc.run(Store([seed_cluster(history=[{"state": "Completed", "version": "4.10.22"}])]), "oc get clusterversion", 0)
    assert result.stdout == ("NAME      VERSION   AVAILABLE   PROGRESSING   SINCE   STATUS\n"
                             "version   4.10.22   True        False         0s      Cluster version is 4.10.22\n")
