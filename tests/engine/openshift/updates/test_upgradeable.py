"""The checks behind Upgradeable, translated from upstream's tables: the kube-apiserver
operator's kubelet version skew (Test_kubeletVersionSkewController_Sync of
openshift/cluster-kube-apiserver-operator) and the CVO's admin acks (the admin-ack cases of
TestOperator_upgradeableSync, openshift/cluster-version-operator pkg/cvo/cvo_test.go)."""

from __future__ import annotations

import pytest

from scheduling.engine.openshift import upgradeable as U

EVEN, ODD, API_SERVER = "4.8.0", "4.9.0", "1.21.1"


def skewed(*skews: int) -> list[str]:
    return [f"1.{21 + skew}.{i}" for i, skew in enumerate(skews)]


def nodes(versions: list[str]) -> list[dict]:
    return [{"metadata": {"name": f"test{i:03d}"}, "status": {"nodeInfo": {"kubeletVersion": v}}} for i, v in enumerate(versions)]


@pytest.mark.parametrize("ocp, kubelets, status, reason, message", [
    pytest.param(EVEN, skewed(0, 0, 0), "True", "KubeletMinorVersionsSynced", "Kubelet and API server minor versions are synced.",
                 id="Synced/Even"),
    pytest.param(ODD, skewed(0, 0, 0), "True", "KubeletMinorVersionsSynced", "Kubelet and API server minor versions are synced.",
                 id="Synced/Odd"),
    pytest.param(ODD, ["Invalid", "1.21.2", "1.20.3"], "Unknown", "KubeletVersionUnknown",
                 "Unable to determine the kubelet version on node test000: No Major.Minor.Patch elements found",
                 id="ErrorParsingKubeletVersion"),
    pytest.param(EVEN, skewed(0, -1, 0), "False", "KubeletMinorVersionUnsupportedNextUpgrade",
                 "Kubelet minor version (1.20.1) on node test001 will not be supported in the next OpenShift minor version upgrade.",
                 id="UnsupportedNextUpgrade/Even"),
    pytest.param(ODD, skewed(0, -2, 0), "False", "KubeletMinorVersionUnsupported",
                 "Unsupported kubelet minor version (1.19.1) on node test001 is too far behind the target API server version (1.21.1).",
                 id="UnsupportedNextUpgrade/Odd"),
    pytest.param(EVEN, skewed(0, -1, -1), "False", "KubeletMinorVersionUnsupportedNextUpgrade",
                 "Kubelet minor versions on nodes test001 and test002 will not be supported in the next OpenShift minor version upgrade.",
                 id="TwoNodesNotSynced"),
    pytest.param(EVEN, skewed(0, -1, -1, -1), "False", "KubeletMinorVersionUnsupportedNextUpgrade",
                 "Kubelet minor versions on nodes test001, test002, and test003 will not be supported in the next OpenShift minor "
                 "version upgrade.", id="ThreeNodesNotSynced"),
    pytest.param(EVEN, skewed(0, -1, -1, -1, -1, -1, 0, 0), "False", "KubeletMinorVersionUnsupportedNextUpgrade",
                 "Kubelet minor versions on 5 nodes will not be supported in the next OpenShift minor version upgrade.",
                 id="ManyNodesNotSynced"),
    pytest.param(EVEN, skewed(0, -3, 0), "False", "KubeletMinorVersionUnsupported",
                 "Unsupported kubelet minor version (1.18.1) on node test001 is too far behind the target API server version (1.21.1).",
                 id="SkewedUnsupported/Even"),
    pytest.param(ODD, skewed(-1, 0, 0), "True", "KubeletMinorVersionSupportedNextUpgrade",
                 "Kubelet minor version (1.20.0) on node test000 is behind the expected API server version; nevertheless, it will "
                 "continue to be supported in the next OpenShift minor version upgrade.", id="SkewedButOK/Odd"),
    pytest.param(ODD, skewed(0, -1, 1), "Unknown", "KubeletMinorVersionAhead",
                 "Unsupported kubelet minor version (1.22.2) on node test002 is ahead of the target API server version (1.21.1).",
                 id="Unsupported"),
])
def test_kubelet_version_skew(ocp, kubelets, status, reason, message):
    assert U.kubelet_skew(ocp, nodes(kubelets), API_SERVER) == (status, reason, message)


def test_the_kube_apiserver_cluster_operator_carries_the_skew_as_library_go_unions_it():
    # 4.18 (Kubernetes 1.31) with kubelets of 4.16 (1.29): fine now, not after the next minor
    assert U.kube_apiserver_upgradeable("4.18.44", nodes(["v1.31.15", "v1.29.20"])) == (
        "False", "KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade",
        "KubeletMinorVersionUpgradeable: Kubelet minor version (1.29.20) on node test001 will not be supported in the next "
        "OpenShift minor version upgrade.")
    # 4.17 (1.30) with 4.16 kubelets: behind but supported after the update to 4.18
    assert U.kube_apiserver_upgradeable("4.17.56", nodes(["v1.29.20"]))[:2] == ("True", "AsExpected")


DESCRIPTION = {"ack-4.8-kube-122-api-removals-in-4.9": "Description."}


def cm(data):
    return {"data": data}


@pytest.mark.parametrize("gates, acks, expected", [
    pytest.param({"ack-4.8-kube-122-api-removals-in-4.9": ""}, {}, ("AdminAckConfigMapGateValueError",
                 "admin-gates configmap gate ack-4.8-kube-122-api-removals-in-4.9 must contain a non-empty value."),
                 id="admin-gates configmap gate does not have value"),
    pytest.param(DESCRIPTION, {}, ("AdminAckRequired", "Description."), id="admin ack required"),
    pytest.param({**DESCRIPTION, "ack-4.9-kube-122-api-removals-in-4.9": "Description 2."}, {}, ("AdminAckRequired", "Description."),
                 id="admin ack required and admin ack gate does not apply to version"),
    pytest.param({**DESCRIPTION, "ack-4.8-foo": ""}, {}, ("MultipleReasons",
                 "Description. admin-gates configmap gate ack-4.8-foo must contain a non-empty value."),
                 id="admin ack required and configmap gate does not have value"),
    pytest.param({"ack-4.8-kube-122-api-removals-in-4.9": "Description 2.", "ack-4.8-foo": "Description 1.", "ack-4.8-bar": "Description 3."},
                 {}, ("AdminAckRequired", "Description 1. Description 2. Description 3."), id="multiple admin acks required"),
    pytest.param(DESCRIPTION, {"ack-4.8-kube-122-api-removals-in-4.9": "true"}, None, id="admin ack found"),
    pytest.param({**DESCRIPTION, "ack-4.8-foo": "Description foo.", "ack-4.8-bar": "Description bar."},
                 {"ack-4.8-kube-122-api-removals-in-4.9": "true", "ack-4.8-bar": "true"}, ("AdminAckRequired", "Description foo."),
                 id="admin ack 2 of 3 found"),
    pytest.param({**DESCRIPTION, "ack-4.8-foo": "Description foo.", "ack-4.8-bar": "Description bar."},
                 {"ack-4.8-kube-122-api-removals-in-4.9": "true", "ack-4.8-bar": "true", "ack-4.8-foo": "true"}, None,
                 id="multiple admin acks found"),
    pytest.param(DESCRIPTION, None, ("UnableToAccessAdminAcksConfigMap", "admin-acks configmap not found."),
                 id="admin-acks configmap not found"),
    pytest.param(None, {}, ("UnableToAccessAdminGatesConfigMap", "admin-gates configmap not found."),
                 id="admin-gates configmap not found"),
])
def test_admin_acks(gates, acks, expected):
    found = U.admin_ack_check("4.8.0", None if gates is None else cm(gates), None if acks is None else cm(acks))
    assert (None if found is None else (found["reason"], found["message"])) == expected


def test_one_failing_check_is_upgradeable_false_several_are_multiple_reasons():
    ack = U.admin_ack_check("4.8.0", cm(DESCRIPTION), cm({}))
    co = U.operators_check({"kube-apiserver": {"status": {"conditions": [
        {"type": "Upgradeable", "status": "False", "reason": "R", "message": "M"}]}}})
    one = U.set_upgradeable([], [ack, None], 0)
    assert [(c["type"], c["reason"], c["message"]) for c in one] == [("Upgradeable", "AdminAckRequired", "Description.")]
    both = {c["type"]: c for c in U.set_upgradeable([], [ack, co], 0)}
    assert set(both) == {"Upgradeable", "UpgradeableAdminAckRequired", "UpgradeableClusterOperators"}
    assert both["Upgradeable"]["reason"] == "MultipleReasons"
    assert both["Upgradeable"]["message"] == (
        "Cluster should not be upgraded between minor versions for multiple reasons: AdminAckRequired,R\n"
        "* Description.\n* Cluster operator kube-apiserver should not be upgraded between minor versions: M")
    assert U.set_upgradeable(list(both.values()), [None, None], 0) == []


def test_the_releases_admin_gates_come_from_the_cvo_branches():
    assert U.gates_of("4.18.44") == {"ack-4.18-kube-1.32-api-removals-in-4.19": (
        "Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs which require admin consideration. Please see the "
        "knowledge article https://access.redhat.com/articles/7112216 for details and instructions.")}
    assert list(U.gates_of("4.19.41")) == ["ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20"]
    # no gate on the way from 4.16 to 4.18: release-4.16 and release-4.17 ship an empty admin-gates
    assert U.gates_of("4.16.60") == {} and U.gates_of("4.17.56") == {}
