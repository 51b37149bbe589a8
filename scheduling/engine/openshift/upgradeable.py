"""Whether the cluster may leave its minor version: the checks behind ClusterVersion's
Upgradeable condition and the operators' own Upgradeable conditions that feed it.

* The Cluster Version Operator (pkg/cvo/upgradeable.go, release-4.18): its checks in order:
  the admin acks (`clusterAdminAcksCompletedUpgradeable`: every gate of the `admin-gates`
  ConfigMap in openshift-config-managed whose `ack-4.<minor>-` prefix names the cluster's
  current minor needs `"true"` under the same key in the `admin-acks` ConfigMap in
  openshift-config), then the ClusterOperators' Upgradeable=False
  (`clusterOperatorsUpgradeable`). One failing check: Upgradeable=False with its reason and
  message; several: a condition per check (UpgradeableAdminAckRequired,
  UpgradeableClusterOperators) and Upgradeable=False MultipleReasons.
* The kube-apiserver operator's KubeletVersionSkewController (openshift/cluster-kube-apiserver-operator,
  pkg/operator/kubeletversionskewcontroller): a kubelet at most 1 minor behind the API server
  is supported on an odd OpenShift minor, at most 2 on an even (EUS) one; a node whose kubelet
  would be too far behind after the next minor update makes kube-apiserver Upgradeable=False.
  Its operator condition KubeletMinorVersionUpgradeable reaches the ClusterOperator through
  library-go's UnionCondition (reason `KubeletMinorVersion_<reason>`, message
  `KubeletMinorVersionUpgradeable: <message>`).
* The machine-config operator (pkg/operator/status.go syncUpgradeableStatus): a Degraded pool
  makes it Upgradeable=False (DegradedPool).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from scheduling.engine.store import name_of

from . import conditions as C
from .data.admin_gates import ADMIN_GATES
from .kubelet import kube_minor, kube_version, minor_of_kubelet
from .versions import Version, is_version, semver_error

GATES_NAMESPACE, GATES_NAME = "openshift-config-managed", "admin-gates"
ACKS_NAMESPACE, ACKS_NAME = "openshift-config", "admin-acks"
ADMIN_ACK_TYPE = "UpgradeableAdminAckRequired"
OPERATORS_TYPE = "UpgradeableClusterOperators"
_GATE = re.compile(r"^ack-[4-5][.]([0-9]{1,})-[^-]")
SKEW_TYPE = "KubeletMinorVersionUpgradeable"


def gates_of(version: str) -> dict[str, str]:
    """The admin-gates data the release's CVO applies (its minor's branch of the CVO)."""
    if not is_version(version):
        return {}
    return dict((ADMIN_GATES.get(Version(version).minor_line) or {}).get("data") or {})


def gates_config_map(version: str, now: Any) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": GATES_NAME, "namespace": GATES_NAMESPACE, "creationTimestamp": now,
                         "annotations": {"kubernetes.io/description": "Define update gates for the administrator to acknowledge "
                                                                      "in the admin-acks ConfigMap in the openshift-config namespace.",
                                         "include.release.openshift.io/self-managed-high-availability": "true"}},
            "data": gates_of(version)}


def acks_config_map(now: Any) -> dict:
    """0000_00_cluster-version-operator_01_adminack_configmap.yaml: created once, then the
    administrator's (release.openshift.io/create-only)."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": ACKS_NAME, "namespace": ACKS_NAMESPACE, "creationTimestamp": now,
                         "annotations": {"include.release.openshift.io/self-managed-high-availability": "true",
                                         "release.openshift.io/create-only": "true"}}}


def _effective_minor(version: str) -> str:
    parts = version.split(".")
    return parts[1] if len(parts) >= 2 else ""


def admin_ack_check(current: str, gates: Mapping[str, Any] | None, acks: Mapping[str, Any] | None) -> dict | None:
    """clusterAdminAcksCompletedUpgradeable.Check: None when it passes, else the condition
    (type, status False, reason, message). `current`: the history's current version."""
    if not current:
        return None
    if gates is None:
        return _failed(ADMIN_ACK_TYPE, "UnableToAccessAdminGatesConfigMap", f"{GATES_NAME} configmap not found.")
    if acks is None:
        return _failed(ADMIN_ACK_TYPE, "UnableToAccessAdminAcksConfigMap", f"{ACKS_NAME} configmap not found.")
    acked = acks.get("data") or {}
    reasons: dict[str, list[str]] = {}
    for key, value in (gates.get("data") or {}).items():
        m = _GATE.search(key)
        if m is None:
            reasons.setdefault("AdminAckConfigMapGateNameError", []).append(
                f'{GATES_NAME} configmap gate name {key} has invalid format; must comply with "^ack-[4-5][.]([0-9]{{1,}})-[^-]".')
            continue
        if _effective_minor(m.group(0).split("-")[1]) != _effective_minor(current):
            continue
        if not value:
            reasons.setdefault("AdminAckConfigMapGateValueError", []).append(
                f"{GATES_NAME} configmap gate {key} must contain a non-empty value.")
            continue
        if acked.get(key) != "true":
            reasons.setdefault("AdminAckRequired", []).append(value)
    if not reasons:
        return None
    messages = sorted(" ".join(sorted(v)) for v in reasons.values())
    if len(reasons) == 1:
        return _failed(ADMIN_ACK_TYPE, next(iter(reasons)), messages[0])
    return _failed(ADMIN_ACK_TYPE, "MultipleReasons", " ".join(messages))


def operators_check(operators: Mapping[str, Mapping[str, Any]]) -> dict | None:
    """clusterOperatorsUpgradeable.Check (operators in name order, as the lister lists them)."""
    blocking = []
    for name in sorted(operators):
        c = C.find((operators[name].get("status") or {}).get("conditions"), "Upgradeable")
        if c is not None and c.get("status") == "False":
            blocking.append((name, c))
    if not blocking:
        return None
    if len(blocking) == 1:
        name, c = blocking[0]
        return _failed(OPERATORS_TYPE, c.get("reason") or "",
                       f"Cluster operator {name} should not be upgraded between minor versions: {c.get('message') or ''}")
    lines = "\n* ".join(f"Cluster operator {n} should not be upgraded between minor versions: {c.get('reason') or ''}: {c.get('message') or ''}"
                        for n, c in blocking)
    return _failed(OPERATORS_TYPE, "ClusterOperatorsNotUpgradeable",
                   f"Multiple cluster operators should not be upgraded between minor versions:\n* {lines}")


def _failed(type_: str, reason: str, message: str) -> dict:
    return {"type": type_, "status": "False", "reason": reason, "message": message}


def set_upgradeable(conds: list, checks: list[dict | None], now: Any) -> list:
    """setUpgradeableConditions: the failing checks' conditions into `conds`, Upgradeable
    False (one reason, or MultipleReasons); all passing: no Upgradeable condition and no
    check conditions. A condition that stays keeps its lastTransitionTime."""
    failed = [c for c in checks if c is not None]
    keep = {c["type"] for c in failed} if len(failed) > 1 else set()
    for t in (ADMIN_ACK_TYPE, OPERATORS_TYPE):
        if t not in keep:
            conds = C.remove(conds, t)
    if not failed:
        return C.remove(conds, "Upgradeable")
    if len(failed) == 1:
        return C.set_condition(conds, "Upgradeable", "False", failed[0]["reason"], failed[0]["message"], now)
    for c in failed:
        conds = C.set_condition(conds, c["type"], "False", c["reason"], c["message"], now)
    reasons = ",".join(c["reason"] for c in failed)
    msgs = "\n* ".join(c["message"] for c in failed)
    return C.set_condition(conds, "Upgradeable", "False", "MultipleReasons",
                           f"Cluster should not be upgraded between minor versions for multiple reasons: {reasons}\n* {msgs}", now)


# --- the kube-apiserver operator's kubelet version skew -------------------------------------------------------


def _min_skew(openshift_minor: int) -> int:
    return -2 if openshift_minor % 2 == 0 else -1


def _nodes_text(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    if len(names) == 2:
        return " and ".join(names)
    return ", ".join(names[:-1] + ["and " + names[-1]])


def kubelet_skew(openshift_version: str, nodes: list[Mapping[str, Any]], api_server: str = "") -> tuple[str, str, str] | None:
    """KubeletVersionSkewController.sync: (status, reason, message) of the operator condition
    KubeletMinorVersionUpgradeable, for the kube-apiserver operator of `openshift_version`
    whose operand is `api_server` (default: the release's Kubernetes version); None when the
    versions are not releases."""
    if not api_server and kube_minor(openshift_version) is not None:
        api_server = kube_version(openshift_version)
    if not is_version(openshift_version) or not is_version(api_server):
        return None
    api_minor = Version(api_server).minor
    ocp_minor = Version(openshift_version).minor
    lowest, next_lowest = _min_skew(ocp_minor), _min_skew(ocp_minor + 1)
    groups: dict[str, list[tuple[str, str]]] = {k: [] for k in ("errors", "unsupported_behind", "limit", "ok", "synced", "ahead")}
    for node in sorted(nodes, key=name_of):
        raw = ((node.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion") or ""
        minor = minor_of_kubelet(raw)
        if minor is None:
            groups["errors"].append((name_of(node), semver_error(raw.removeprefix("v"))))
            continue
        version = raw.removeprefix("v")
        skew = minor - api_minor
        if skew == 0:
            groups["synced"].append((name_of(node), version))
        elif skew < lowest:
            groups["unsupported_behind"].append((name_of(node), version))
        elif skew - 1 < next_lowest:
            groups["limit"].append((name_of(node), version))
        elif skew < 0:
            groups["ok"].append((name_of(node), version))
        else:
            groups["ahead"].append((name_of(node), version))

    def say(group, one, few, many):
        names = [n for n, _ in group]
        if len(group) == 1:
            return one.format(version=group[0][1], nodes=names[0])
        if len(group) <= 3:
            return few.format(nodes=_nodes_text(names))
        return many.format(count=len(group))

    g = groups
    if g["unsupported_behind"]:
        return ("False", "KubeletMinorVersionUnsupported", say(
            g["unsupported_behind"],
            f"Unsupported kubelet minor version ({{version}}) on node {{nodes}} is too far behind the target API server version ({api_server}).",
            f"Unsupported kubelet minor versions on nodes {{nodes}} are too far behind the target API server version ({api_server}).",
            f"Unsupported kubelet minor versions on {{count}} nodes are too far behind the target API server version ({api_server})."))
    if g["ahead"]:
        return ("Unknown", "KubeletMinorVersionAhead", say(
            g["ahead"],
            f"Unsupported kubelet minor version ({{version}}) on node {{nodes}} is ahead of the target API server version ({api_server}).",
            f"Unsupported kubelet minor versions on nodes {{nodes}} are ahead of the target API server version ({api_server}).",
            f"Unsupported kubelet minor versions on {{count}} nodes are ahead of the target API server version ({api_server})."))
    if g["errors"]:
        return ("Unknown", "KubeletVersionUnknown", say(
            g["errors"],
            "Unable to determine the kubelet version on node {nodes}: {version}",
            "Unable to determine the kubelet version on nodes {nodes}.",
            "Unable to determine the kubelet version on {count} nodes."))
    if g["limit"]:
        return ("False", "KubeletMinorVersionUnsupportedNextUpgrade", say(
            g["limit"],
            "Kubelet minor version ({version}) on node {nodes} will not be supported in the next OpenShift minor version upgrade.",
            "Kubelet minor versions on nodes {nodes} will not be supported in the next OpenShift minor version upgrade.",
            "Kubelet minor versions on {count} nodes will not be supported in the next OpenShift minor version upgrade."))
    if g["ok"]:
        return ("True", "KubeletMinorVersionSupportedNextUpgrade", say(
            g["ok"],
            "Kubelet minor version ({version}) on node {nodes} is behind the expected API server version; nevertheless, it will "
            "continue to be supported in the next OpenShift minor version upgrade.",
            "Kubelet minor versions on nodes {nodes} are behind the expected API server version; nevertheless, they will continue "
            "to be supported in the next OpenShift minor version upgrade.",
            "Kubelet minor versions on {count} nodes are behind the expected API server version; nevertheless, they will continue "
            "to be supported in the next OpenShift minor version upgrade."))
    return ("True", "KubeletMinorVersionsSynced", "Kubelet and API server minor versions are synced.")


def kube_apiserver_upgradeable(openshift_version: str, nodes: list[Mapping[str, Any]]) -> tuple[str, str, str] | None:
    """The kube-apiserver ClusterOperator's Upgradeable (status, reason, message): library-go's
    UnionCondition of its one *Upgradeable operator condition (default True)."""
    skew = kubelet_skew(openshift_version, nodes)
    if skew is None:
        return None
    status, reason, message = skew
    text = f"{SKEW_TYPE}: {message}"
    if status == "True":
        return ("True", "AsExpected", text)
    return (status, f"KubeletMinorVersion_{reason}", text)


def machine_config_upgradeable(pools: list[Mapping[str, Any]]) -> tuple[str, str, str]:
    """syncUpgradeableStatus: a Degraded pool makes the machine-config operator Upgradeable=False."""
    for pool in pools:
        if C.is_true((pool.get("status") or {}).get("conditions"), "Degraded"):
            return ("False", "DegradedPool", "One or more machine config pools are degraded, please see `oc get mcp` for "
                                             "further details and resolve before upgrading")
    return ("True", "AsExpected", "")


def acked_config_map(versions: list[str], now: Any = 0) -> dict:
    """An admin-acks ConfigMap that acknowledges every gate of the given releases (what an
    administrator who read the knowledge articles has written)."""
    doc = acks_config_map(now)
    doc["data"] = {key: "true" for v in versions for key in gates_of(v)}
    return doc
