"""`oc get` tables for the Kubernetes kinds, column for column as kubectl's printers
(kubernetes pkg/printers/internalversion/printers.go) print them. Each printer is
`table(docs, now, wide) -> (headers, rows)`; wide adds the Priority 1 columns.
Registered in engine.api.kinds.TABLE."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.api import selectors

from .output import age

Doc = Mapping[str, Any]
Table = tuple[list[str], list[list[str]]]
NONE = "<none>"


def _m(d: Doc) -> Mapping[str, Any]:
    return d.get("metadata") or {}


def _spec(d: Doc) -> Mapping[str, Any]:
    return d.get("spec") or {}


def _status(d: Doc) -> Mapping[str, Any]:
    return d.get("status") or {}


def _age(d: Doc, now: float) -> str:
    return age(_m(d).get("creationTimestamp"), now)


def _int(v: Any) -> str:
    try:
        return str(int(v or 0))
    except (TypeError, ValueError):
        return "0"


def _selector_text(selector: Mapping[str, Any] | None) -> str:
    """metav1.FormatLabelSelector (engine.api.selectors): `a=b,c in (x,y)`; `<none>` when
    empty. A plain map (a ReplicationController's selector) prints as labels.Set.String."""
    if not selector:
        return NONE
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        parts = [f"{k}={v}" for k, v in sorted(selector.items())]
        return ",".join(parts) if parts else NONE
    return selectors.format_label_selector(selector.get("matchLabels"), selectors.expressions_of(selector.get("matchExpressions")))


def _containers_images(template_spec: Mapping[str, Any]) -> tuple[str, str]:
    containers = template_spec.get("containers") or []
    return (",".join(c.get("name") or "" for c in containers), ",".join(c.get("image") or "" for c in containers))


# --- nodes ------------------------------------------------------------------------------------------------------


def node_status(d: Doc) -> str:
    conditions = {c.get("type"): c.get("status") for c in _status(d).get("conditions") or ()}
    ready = conditions.get("Ready")
    text = "Ready" if ready == "True" else "NotReady" if ready == "False" else "Unknown"
    if _spec(d).get("unschedulable"):
        text += ",SchedulingDisabled"
    return text


def node_roles(d: Doc) -> str:
    roles = set()
    for k, v in (_m(d).get("labels") or {}).items():
        if k.startswith("node-role.kubernetes.io/"):
            role = k[len("node-role.kubernetes.io/"):]
            if role:
                roles.add(role)
        elif k == "kubernetes.io/role" and v:
            roles.add(v)
    return ",".join(sorted(roles)) if roles else NONE


def nodes(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    if wide:
        headers += ["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    rows = []
    for d in docs:
        info = _status(d).get("nodeInfo") or {}
        row = [_m(d).get("name") or "", node_status(d), node_roles(d), _age(d, now), info.get("kubeletVersion") or ""]
        if wide:
            addresses = _status(d).get("addresses") or []
            internal = next((a.get("address") for a in addresses if a.get("type") == "InternalIP"), None) or NONE
            external = next((a.get("address") for a in addresses if a.get("type") == "ExternalIP"), None) or NONE
            row += [internal, external, info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
                    info.get("containerRuntimeVersion") or "<unknown>"]
        rows.append(row)
    return headers, rows


# --- pods -------------------------------------------------------------------------------------------------------


def pod_status_reason(d: Doc) -> str:
    """printPod's STATUS: the phase, or status.reason, a container's waiting/terminated
    reason, Terminating / Unknown for a deleted pod."""
    status = _status(d)
    reason = status.get("reason") or status.get("phase") or "Pending"
    for c in status.get("containerStatuses") or ():
        state = c.get("state") or {}
        if (state.get("waiting") or {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif (state.get("terminated") or {}).get("reason"):
            reason = state["terminated"]["reason"]
    if _m(d).get("deletionTimestamp") is not None:
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    return reason


def pod_ready(d: Doc) -> str:
    containers = _spec(d).get("containers") or []
    statuses = _status(d).get("containerStatuses")
    if statuses is None:
        # The simulated kubelet keeps the pod's Ready condition, not per-container statuses.
        ready_condition = any(c.get("type") == "Ready" and c.get("status") == "True" for c in _status(d).get("conditions") or ())
        running = _status(d).get("phase") == "Running" and (ready_condition or not _status(d).get("conditions"))
        return f"{len(containers) if running else 0}/{len(containers)}"
    ready = sum(1 for c in statuses if c.get("ready"))
    return f"{ready}/{len(containers)}"


def pods(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    if wide:
        headers += ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    rows = []
    for d in docs:
        restarts = sum(int(c.get("restartCount") or 0) for c in _status(d).get("containerStatuses") or ())
        row = [_m(d).get("name") or "", pod_ready(d), pod_status_reason(d), str(restarts), _age(d, now)]
        if wide:
            gates = _spec(d).get("readinessGates") or []
            row += [_status(d).get("podIP") or NONE, _spec(d).get("nodeName") or NONE,
                    _status(d).get("nominatedNodeName") or NONE, NONE if not gates else f"0/{len(gates)}"]
        rows.append(row)
    return headers, rows


# --- the rest ---------------------------------------------------------------------------------------------------


def namespaces(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    return ["NAME", "STATUS", "AGE"], [[_m(d).get("name") or "", _status(d).get("phase") or "Active", _age(d, now)] for d in docs]


def services(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"] + (["SELECTOR"] if wide else [])
    rows = []
    for d in docs:
        spec = _spec(d)
        kind = spec.get("type") or "ClusterIP"
        ports = []
        for p in spec.get("ports") or ():
            text = f"{p.get('port')}/{p.get('protocol') or 'TCP'}"
            if p.get("nodePort") and kind in ("NodePort", "LoadBalancer"):
                text = f"{p.get('port')}:{p.get('nodePort')}/{p.get('protocol') or 'TCP'}"
            ports.append(text)
        external = ",".join(spec.get("externalIPs") or ()) or ("<pending>" if kind == "LoadBalancer" else NONE)
        if kind == "ExternalName":
            external = spec.get("externalName") or NONE
        row = [_m(d).get("name") or "", kind, spec.get("clusterIP") or NONE, external, ",".join(ports) or NONE, _age(d, now)]
        if wide:
            row.append(_selector_text(spec.get("selector")))
        rows.append(row)
    return headers, rows


def replica_sets(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """ReplicaSets and ReplicationControllers: NAME DESIRED CURRENT READY AGE."""
    headers = ["NAME", "DESIRED", "CURRENT", "READY", "AGE"] + (["CONTAINERS", "IMAGES", "SELECTOR"] if wide else [])
    rows = []
    for d in docs:
        spec = _spec(d)
        row = [_m(d).get("name") or "", _int(spec.get("replicas", 1)), _int(_status(d).get("replicas")),
               _int(_status(d).get("readyReplicas")), _age(d, now)]
        if wide:
            names, images = _containers_images(((spec.get("template") or {}).get("spec") or {}))
            row += [names, images, _selector_text(spec.get("selector"))]
        rows.append(row)
    return headers, rows


def deployments(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"] + (["CONTAINERS", "IMAGES", "SELECTOR"] if wide else [])
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        row = [_m(d).get("name") or "", f"{_int(status.get('readyReplicas'))}/{_int(spec.get('replicas', 1))}",
               _int(status.get("updatedReplicas")), _int(status.get("availableReplicas")), _age(d, now)]
        if wide:
            names, images = _containers_images(((spec.get("template") or {}).get("spec") or {}))
            row += [names, images, _selector_text(spec.get("selector"))]
        rows.append(row)
    return headers, rows


def stateful_sets(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "READY", "AGE"] + (["CONTAINERS", "IMAGES"] if wide else [])
    rows = []
    for d in docs:
        spec = _spec(d)
        row = [_m(d).get("name") or "", f"{_int(_status(d).get('readyReplicas'))}/{_int(spec.get('replicas', 1))}", _age(d, now)]
        if wide:
            row += list(_containers_images(((spec.get("template") or {}).get("spec") or {})))
        rows.append(row)
    return headers, rows


def daemon_sets(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]
    if wide:
        headers += ["CONTAINERS", "IMAGES", "SELECTOR"]
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        template = ((spec.get("template") or {}).get("spec") or {})
        selector = ",".join(f"{k}={v}" for k, v in sorted((template.get("nodeSelector") or {}).items())) or NONE
        row = [_m(d).get("name") or "", _int(status.get("desiredNumberScheduled")), _int(status.get("currentNumberScheduled")),
               _int(status.get("numberReady")), _int(status.get("updatedNumberScheduled")), _int(status.get("numberAvailable")),
               selector, _age(d, now)]
        if wide:
            row += [*_containers_images(template), _selector_text(spec.get("selector"))]
        rows.append(row)
    return headers, rows


def pdbs(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]
    rows = []
    for d in docs:
        spec = _spec(d)
        min_available = str(spec["minAvailable"]) if spec.get("minAvailable") is not None else "N/A"
        max_unavailable = str(spec["maxUnavailable"]) if spec.get("maxUnavailable") is not None else "N/A"
        rows.append([_m(d).get("name") or "", min_available, max_unavailable, _int(_status(d).get("disruptionsAllowed")), _age(d, now)])
    return headers, rows


_MODES = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}


def _modes(modes: Sequence[str] | None) -> str:
    return ",".join(_MODES.get(m, m) for m in modes or ())


def persistent_volumes(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
               "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"] + (["VOLUMEMODE"] if wide else [])
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        claim = spec.get("claimRef") or {}
        claim_text = f"{claim.get('namespace')}/{claim.get('name')}" if claim else ""
        row = [_m(d).get("name") or "", str((spec.get("capacity") or {}).get("storage") or ""), _modes(spec.get("accessModes")),
               spec.get("persistentVolumeReclaimPolicy") or "Retain", status.get("phase") or "", claim_text,
               spec.get("storageClassName") or "", spec.get("volumeAttributesClassName") or NONE, status.get("reason") or "",
               _age(d, now)]
        if wide:
            row.append(spec.get("volumeMode") or "Filesystem")
        rows.append(row)
    return headers, rows


def claims(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"]
    if wide:
        headers.append("VOLUMEMODE")
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        bound = status.get("phase") == "Bound"
        row = [_m(d).get("name") or "", status.get("phase") or "Pending", spec.get("volumeName") or "",
               str((status.get("capacity") or {}).get("storage") or "") if bound else "",
               _modes(status.get("accessModes")) if bound else "", spec.get("storageClassName") or "",
               spec.get("volumeAttributesClassName") or NONE, _age(d, now)]
        if wide:
            row.append(spec.get("volumeMode") or "Filesystem")
        rows.append(row)
    return headers, rows


def storage_classes(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]
    rows = []
    for d in docs:
        name = _m(d).get("name") or ""
        annotations = _m(d).get("annotations") or {}
        if annotations.get("storageclass.kubernetes.io/is-default-class") == "true" or \
                annotations.get("storageclass.beta.kubernetes.io/is-default-class") == "true":
            name += " (default)"
        rows.append([name, d.get("provisioner") or "", d.get("reclaimPolicy") or "Delete",
                     d.get("volumeBindingMode") or "Immediate", "true" if d.get("allowVolumeExpansion") else "false", _age(d, now)])
    return headers, rows


def priority_classes(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    rows = [[_m(d).get("name") or "", _int(d.get("value")), "true" if d.get("globalDefault") else "false", _age(d, now),
             d.get("preemptionPolicy") or "PreemptLowerPriority"] for d in docs]
    return headers, rows


def generic(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """A custom resource without printer columns: NAME AGE."""
    return ["NAME", "AGE"], [[_m(d).get("name") or "", _age(d, now)] for d in docs]
