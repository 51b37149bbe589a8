"""`oc adm upgrade recommend` on ClusterVersions written for these tests in the shapes of
openshift/oc's recommend examples: the targets by minor, Upgradeable=False injected as a
risk of the next minor's targets, risks without conditions, --version and its errors."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.store import Store

IMG = "quay.io/openshift-release-dev/ocp-release@sha256:"
NO_ALERTS = {"--alerts": [{"status": "success", "data": {"alerts": []}}]}
HAPPY = ("The following conditions found no cause for concern in updating this cluster to later releases: "
         "recommended/CriticalAlerts (AsExpected), recommended/NodeAlerts (AsExpected), recommended/PodDisruptionBudgetAlerts "
         "(AsExpected), recommended/PodImagePullAlerts (AsExpected), recommended/UpdatePrecheckAlerts (AsExpected)\n\n")
UPGRADEABLE = "Cluster operator cloud-credential should not be upgraded between minor versions: annotation missing"


def clusterversion(upgradeable: bool = True, failing: bool = True, conditional: list | None = None) -> dict:
    conditions = [{"type": "Progressing", "status": "False", "message": "Cluster version is 4.13.19"}]
    if failing:
        conditions.append({"type": "Failing", "status": "False"})
    if not upgradeable:
        conditions.append({"type": "Upgradeable", "status": "False", "reason": "MissingUpgradeableAnnotation", "message": UPGRADEABLE})
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
            "spec": {"channel": "stable-4.14", "upstream": "https://api.openshift.com/api/upgrades_info/v1/graph"},
            "status": {"desired": {"version": "4.13.19", "channels": ["stable-4.13", "stable-4.14"]},
                       "availableUpdates": [{"version": v, "image": IMG + v.replace(".", ""), "url": f"https://errata/{v}"}
                                            for v in ("4.13.20", "4.13.21", "4.13.22", "4.14.1", "4.14.2")],
                       "conditionalUpdates": conditional or [], "conditions": conditions}}


def run(doc: dict, *args: str) -> oc.OcResult:
    return oc.run(Store([doc]), ["oc", "adm", "upgrade", "recommend", *args], 0, files=NO_ALERTS)


def test_the_targets_by_minor_newest_first_with_the_older_ones_counted():
    result = run(clusterversion())
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == HAPPY + (
        "Upstream update service: https://api.openshift.com/api/upgrades_info/v1/graph\n"
        "Channel: stable-4.14 (available channels: stable-4.13, stable-4.14)\n"
        "\nUpdates to 4.14:\n  VERSION     ISSUES\n  4.14.2      no known issues relevant to this cluster\n"
        "  4.14.1      no known issues relevant to this cluster\n"
        "\nUpdates to 4.13:\n  VERSION     ISSUES\n  4.13.22     no known issues relevant to this cluster\n"
        "  4.13.21     no known issues relevant to this cluster\n"
        "And 1 older 4.13 updates you can see with '--show-outdated-releases' or '--version VERSION'.\n")


def test_upgradeable_false_is_a_risk_of_the_next_minors_targets_only():
    result = run(clusterversion(upgradeable=False))
    assert ("\nUpdates to 4.14:\n\n  Version: 4.14.2\n  Image: " + IMG + "4142\n  Reason: MissingUpgradeableAnnotation\n"
            f"  Message: {UPGRADEABLE}\n\n  Version: 4.14.1\n") in result.stdout
    assert "\nUpdates to 4.13:\n  VERSION     ISSUES\n  4.13.22     no known issues relevant to this cluster\n" in result.stdout
    outdated = run(clusterversion(upgradeable=False), "--show-outdated-releases")
    assert ("\nUpdates to 4.14:\n  VERSION     ISSUES\n  4.14.2      MissingUpgradeableAnnotation\n"
            "  4.14.1      MissingUpgradeableAnnotation\n") in outdated.stdout
    one = run(clusterversion(upgradeable=False), "--version", "4.14.1")
    assert one.stdout.endswith(f"\nUpdate to 4.14.1 Recommended=False:\nImage: {IMG}4141\nRelease URL: https://errata/4.14.1\n"
                               f"Reason: MissingUpgradeableAnnotation\nMessage: {UPGRADEABLE}\n")
    assert (one.exit_code, one.stderr) == (1, "error: issues that apply to this cluster but which were not included in --accept: "
                                              "ConditionalUpdateRisk\n")
    accepted = run(clusterversion(upgradeable=False), "--version", "4.14.1", "--accept=ConditionalUpdateRisk")
    assert "\nReason: accepted MissingUpgradeableAnnotation via ConditionalUpdateRisk\n" in accepted.stdout
    assert accepted.stdout.endswith("Update to 4.14.1 has no known issues relevant to this cluster other than the accepted "
                                    "ConditionalUpdateRisk.\n")
    assert accepted.exit_code == 0


def test_a_conditional_update_with_risks_but_no_conditions_is_unknown():
    risky = [{"release": {"version": "4.14.3", "image": IMG + "4143"}, "risks": [{"name": "B"}, {"name": "A"}]}]
    result = run(clusterversion(conditional=risky))
    # oc builds the list of names on len(risks) empty ones: they sort first
    assert ("\nUpdates to 4.14:\n\n  Version: 4.14.3\n  Image: " + IMG + "4143\n  Reason: NoConditions\n  Message: Conditional "
            "update to 4.14.3 has risks (, , A, B), but no conditions.\n\n  VERSION     ISSUES\n"
            "  4.14.2      no known issues relevant to this cluster\n") in result.stdout


def test_without_failing_info_it_warns_and_counts_an_issue():
    result = run(clusterversion(failing=False), "--version", "4.13.22")
    assert result.stderr == ("warning: No current Failing info, see `oc describe clusterversion` for more details.\n"
                             "error: issues that apply to this cluster but which were not included in --accept: Failing\n")
    assert [stream for stream, _ in result.lines][:2] == ["stderr", "stdout"]  # printed in oc's order
    result = run(clusterversion(failing=False), "--version", "4.13.22", "--accept", "Failing")
    assert result.stderr == "accepted warning: No current Failing info, see `oc describe clusterversion` for more details.\n"


@pytest.mark.parametrize(
    "args, stderr",
    [
        pytest.param(["--version", "4.15.1"], "error: no updates to 4.15 available, so cannot display context for the requested "
                                              "release 4.15.1\n", id="no such minor"),
        pytest.param(["--version", "5.0.0"], "error: no updates to 5 available, so cannot display context for the requested "
                                             "release 5.0.0\n", id="no such major"),
        pytest.param(["--version", "4.14.9"], "error: no update to 4.14.9 available, so cannot display context for the requested "
                                              "release\n", id="no such release"),
        pytest.param(["--version", "4.14"], 'error: cannot parse SemVer target "4.14": No Major.Minor.Patch elements found\n',
                     id="not a version"),
        pytest.param(["--version", "4.14.1", "--show-outdated-releases"],
                     "error: when --version is set, --show-outdated-releases is unnecessary\n", id="outdated with version"),
        pytest.param(["4.14.1"], "error: unexpected arguments: [4.14.1]\nSee 'oc adm upgrade recommend -h' for help and "
                                 "examples\n", id="an argument"),
    ],
)
def test_errors(args, stderr):
    result = run(clusterversion(), *args)
    assert (result.exit_code, result.stderr) == (1, stderr)
