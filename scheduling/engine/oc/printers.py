"""`oc get` tables for the Kubernetes kinds, column for column as kubectl's printers
(kubernetes pkg/printers/internalversion/printers.go) print them. Each printer is
`table(docs, now, wide) -> (headers, rows)`; wide adds the Priority 1 columns.
Registered in engine.api.kinds.TABLE."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.api import selectors

from .output import age, human_duration, seconds

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


def _is_restartable(container: Mapping[str, Any] | None) -> bool:
    """podutil.IsRestartableInitContainer: a sidecar (an init container with restartPolicy Always)."""
    return bool(container) and container.get("restartPolicy") == "Always"


def _condition_true(d: Doc, kind: str) -> bool | None:
    for c in _status(d).get("conditions") or ():
        if c.get("type") == kind:
            return c.get("status") == "True"
    return None


def _finished_at(status: Mapping[str, Any]) -> float | None:
    terminated = (status.get("lastState") or {}).get("terminated")
    return seconds(terminated.get("finishedAt")) if terminated else None


def pod_row(d: Doc, now: float) -> tuple[str, str, str]:
    """printPod's READY, STATUS and RESTARTS (kubernetes pkg/printers/internalversion
    printers.go): init containers (`Init:1/2`, `Init:CrashLoopBackOff`, `Init:ExitCode:1`),
    sidecars (restartable init containers) counted among the containers, the last restart's
    age (`3 (10s ago)`), `Completed` turned back into Running/NotReady while a container
    still runs, Terminating and Unknown for a deleted pod.

    A pod the simulated kubelet runs carries no containerStatuses (it keeps the pod's phase
    and conditions only); its containers are taken as the kubelet would report them: all
    ready when the Ready condition is True (or the pod is Running without conditions)."""
    spec, status = _spec(d), _status(d)
    containers = spec.get("containers") or []
    init_specs = spec.get("initContainers") or []
    total = len(containers) + sum(1 for c in init_specs if _is_restartable(c))
    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
    for c in status.get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    if status.get("containerStatuses") is None and status.get("initContainerStatuses") is None:
        ready_condition = _condition_true(d, "Ready")
        running = phase == "Running" and (ready_condition or (ready_condition is None and not status.get("conditions")))
        ready = total if running else 0
        if _m(d).get("deletionTimestamp") is not None:
            reason = "Unknown" if status.get("reason") == "NodeLost" else (
                reason if phase in ("Succeeded", "Failed") else "Terminating")
        return f"{ready}/{total}", reason, "0"
    by_name = {c.get("name"): c for c in init_specs}
    restarts = sidecar_restarts = ready = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None
    initializing = False
    init_statuses = status.get("initContainerStatuses") or []
    for i, c in enumerate(init_statuses):
        restarts += int(c.get("restartCount") or 0)
        finished = _finished_at(c)
        if finished is not None and (last_restart is None or finished > last_restart):
            last_restart = finished
        sidecar = _is_restartable(by_name.get(c.get("name")))
        if sidecar:
            sidecar_restarts += int(c.get("restartCount") or 0)
            if finished is not None and (last_sidecar_restart is None or finished > last_sidecar_restart):
                last_sidecar_restart = finished
        state = c.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and int(terminated.get("exitCode") or 0) == 0:
            continue
        if sidecar and c.get("started"):
            if c.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            if not terminated.get("reason"):
                signal = int(terminated.get("signal") or 0)
                reason = f"Init:Signal:{signal}" if signal else f"Init:ExitCode:{int(terminated.get('exitCode') or 0)}"
            else:
                reason = "Init:" + terminated["reason"]
        elif waiting is not None and waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + waiting["reason"]
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break
    if not initializing or _condition_true(d, "Initialized"):
        restarts, last_restart = sidecar_restarts, last_sidecar_restart
        has_running = False
        for c in reversed(status.get("containerStatuses") or []):
            restarts += int(c.get("restartCount") or 0)
            finished = _finished_at(c)
            if finished is not None and (last_restart is None or finished > last_restart):
                last_restart = finished
            state = c.get("state") or {}
            waiting, terminated = state.get("waiting"), state.get("terminated")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None and terminated.get("reason"):
                reason = terminated["reason"]
            elif terminated is not None:
                signal = int(terminated.get("signal") or 0)
                reason = f"Signal:{signal}" if signal else f"ExitCode:{int(terminated.get('exitCode') or 0)}"
            elif c.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(d, "Ready") else "NotReady"
    if _m(d).get("deletionTimestamp") is not None and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif _m(d).get("deletionTimestamp") is not None and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    restarts_text = str(restarts)
    if restarts and last_restart is not None:
        restarts_text = f"{restarts} ({human_duration(now - last_restart)} ago)"
    return f"{ready}/{total}", reason, restarts_text


def pod_status_reason(d: Doc) -> str:
    """printPod's STATUS."""
    return pod_row(d, 0.0)[1]


def pod_ready(d: Doc) -> str:
    """printPod's READY."""
    return pod_row(d, 0.0)[0]


def _readiness_gates(d: Doc) -> str:
    gates = _spec(d).get("readinessGates") or []
    if not gates:
        return NONE
    conditions = _status(d).get("conditions") or []
    true = 0
    for gate in gates:
        for c in conditions:
            if c.get("type") == gate.get("conditionType"):
                true += c.get("status") == "True"
                break
    return f"{true}/{len(gates)}"


def pods(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    headers = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    if wide:
        headers += ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    rows = []
    for d in docs:
        ready, reason, restarts = pod_row(d, now)
        row = [_m(d).get("name") or "", ready, reason, restarts, _age(d, now)]
        if wide:
            ips = _status(d).get("podIPs") or []
            ip = (ips[0].get("ip") if ips else "") or _status(d).get("podIP") or NONE
            row += [ip, _spec(d).get("nodeName") or NONE, _status(d).get("nominatedNodeName") or NONE, _readiness_gates(d)]
        rows.append(row)
    return headers, rows


# --- the rest ---------------------------------------------------------------------------------------------------


def namespaces(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printNamespace: the phase as the object has it."""
    return ["NAME", "STATUS", "AGE"], [[_m(d).get("name") or "", _status(d).get("phase") or "", _age(d, now)] for d in docs]


def _format_labels(labels: Mapping[str, Any] | None) -> str:
    """labels.FormatLabels: sorted k=v, `<none>` when empty."""
    return ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items())) or NONE


LOAD_BALANCER_WIDTH = 16


def _load_balancer(status: Mapping[str, Any], wide: bool) -> str:
    """loadBalancerStatusStringer: the ingress IPs (or hostnames), sorted, unique; clipped to
    16 bytes unless wide."""
    found = sorted({i.get("ip") or i.get("hostname") for i in ((status.get("loadBalancer") or {}).get("ingress") or ())
                    if i.get("ip") or i.get("hostname")})
    text = ",".join(found)
    if not wide and len(text) > LOAD_BALANCER_WIDTH:
        text = text[:LOAD_BALANCER_WIDTH - 3] + "..."
    return text


def _external_ip(d: Doc, wide: bool) -> str:
    """getServiceExternalIP."""
    spec = _spec(d)
    kind = spec.get("type") or ""
    external = list(spec.get("externalIPs") or ())
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or NONE
    if kind == "LoadBalancer":
        lb = _load_balancer(_status(d), wide)
        if external:
            return ",".join(([*lb.split(",")] if lb else []) + external)
        return lb or "<pending>"
    if kind == "ExternalName":
        return spec.get("externalName") or ""
    return "<unknown>"


def _ports(ports: Sequence[Mapping[str, Any]] | None) -> str:
    """makePortString."""
    pieces = []
    for p in ports or ():
        text = f"{p.get('port')}/{p.get('protocol') or ''}"
        if int(p.get("nodePort") or 0) > 0:
            text = f"{p.get('port')}:{p.get('nodePort')}/{p.get('protocol') or ''}"
        pieces.append(text)
    return ",".join(pieces)


def services(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printService: the service as the object has it (type, clusterIPs[0], ports)."""
    headers = ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"] + (["SELECTOR"] if wide else [])
    rows = []
    for d in docs:
        spec = _spec(d)
        cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        row = [_m(d).get("name") or "", spec.get("type") or "", cluster_ips[0] if cluster_ips else NONE, _external_ip(d, wide),
               _ports(spec.get("ports")) or NONE, _age(d, now)]
        if wide:
            row.append(_format_labels(spec.get("selector")))
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


def _volume_class(d: Doc) -> str:
    """helper.GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation
    first for a volume, the spec field first for a claim."""
    annotation = (_m(d).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    field = _spec(d).get("storageClassName")
    if d.get("kind") == "PersistentVolumeClaim":
        return field if field is not None else (annotation or "")
    return annotation if annotation is not None else (field or "")


def _unset(value: Any) -> str:
    return "<unset>" if value is None else str(value)


def persistent_volumes(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printPersistentVolume: the volume as the object has it (no reclaim policy or volume
    mode invented: `<unset>`)."""
    headers = ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
               "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"] + (["VOLUMEMODE"] if wide else [])
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        claim = spec.get("claimRef")
        claim_text = f"{claim.get('namespace') or ''}/{claim.get('name') or ''}" if claim else ""
        phase = "Terminating" if _m(d).get("deletionTimestamp") is not None else (status.get("phase") or "")
        row = [_m(d).get("name") or "", str((spec.get("capacity") or {}).get("storage") or "0"), _modes(spec.get("accessModes")),
               spec.get("persistentVolumeReclaimPolicy") or "", phase, claim_text, _volume_class(d),
               _unset(spec.get("volumeAttributesClassName")), status.get("reason") or "", _age(d, now)]
        if wide:
            row.append(_unset(spec.get("volumeMode")))
        rows.append(row)
    return headers, rows


def claims(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printPersistentVolumeClaim: capacity and access modes once the claim names its volume."""
    headers = ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"]
    if wide:
        headers.append("VOLUMEMODE")
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        phase = "Terminating" if _m(d).get("deletionTimestamp") is not None else (status.get("phase") or "")
        named = bool(spec.get("volumeName"))
        row = [_m(d).get("name") or "", phase, spec.get("volumeName") or "",
               str((status.get("capacity") or {}).get("storage") or "0") if named else "",
               _modes(status.get("accessModes")) if named else "", _volume_class(d),
               _unset(spec.get("volumeAttributesClassName")), _age(d, now)]
        if wide:
            row.append(_unset(spec.get("volumeMode")))
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
    """printPriorityClass: PREEMPTIONPOLICY only with -o wide, blank when the object has none."""
    headers = ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE"] + (["PREEMPTIONPOLICY"] if wide else [])
    rows = []
    for d in docs:
        row = [_m(d).get("name") or "", _int(d.get("value")), "true" if d.get("globalDefault") else "false", _age(d, now)]
        if wide:
            row.append(d.get("preemptionPolicy") or "")
        rows.append(row)
    return headers, rows


def generic(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """A custom resource without printer columns: NAME AGE."""
    return ["NAME", "AGE"], [[_m(d).get("name") or "", _age(d, now)] for d in docs]


# --- batch/v1 -----------------------------------------------------------------------------------------------------


def _condition_is_true(d: Doc, ctype: str) -> bool:
    """hasJobCondition: the condition is there and True."""
    return any(c.get("type") == ctype and c.get("status") == "True" for c in _status(d).get("conditions") or ())


def job_status(d: Doc) -> str:
    """printJob's STATUS: Complete, Failed, Terminating, Suspended, FailureTarget,
    SuccessCriteriaMet, else Running."""
    for ctype in ("Complete", "Failed"):
        if _condition_is_true(d, ctype):
            return ctype
    if _m(d).get("deletionTimestamp"):
        return "Terminating"
    for ctype in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if _condition_is_true(d, ctype):
            return ctype
    return "Running"


def job_completions(d: Doc) -> str:
    """printJob's COMPLETIONS: succeeded/completions; without completions `n/1`, or
    `n/1 of <parallelism>` when more than one pod runs at a time."""
    spec, succeeded = _spec(d), _int(_status(d).get("succeeded"))
    if spec.get("completions") is not None:
        return f"{succeeded}/{_int(spec.get('completions'))}"
    parallelism = int(spec.get("parallelism") or 0)
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def job_duration(d: Doc, now: float) -> str:
    """printJob's DURATION: from startTime to completionTime (or now); empty before it started."""
    start, end = seconds(_status(d).get("startTime")), seconds(_status(d).get("completionTime"))
    if start is None:
        return ""
    return human_duration((now if end is None else end) - start)


def jobs(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printJob: NAME STATUS COMPLETIONS DURATION AGE (wide: CONTAINERS IMAGES SELECTOR)."""
    headers = ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"] + (["CONTAINERS", "IMAGES", "SELECTOR"] if wide else [])
    rows = []
    for d in docs:
        row = [_m(d).get("name") or "", job_status(d), job_completions(d), job_duration(d, now), _age(d, now)]
        if wide:
            names, images = _containers_images(((_spec(d).get("template") or {}).get("spec") or {}))
            row += [names, images, _selector_text(_spec(d).get("selector"))]
        rows.append(row)
    return headers, rows


def _bool_ptr(value: Any) -> str:
    """printBoolPtr."""
    return "<unset>" if value is None else ("True" if value else "False")


def cron_jobs(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """printCronJob: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE (wide:
    CONTAINERS IMAGES SELECTOR, of the job template)."""
    headers = ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]
    headers += ["CONTAINERS", "IMAGES", "SELECTOR"] if wide else []
    rows = []
    for d in docs:
        spec, status = _spec(d), _status(d)
        last = status.get("lastScheduleTime")
        row = [_m(d).get("name") or "", spec.get("schedule") or "",
               NONE if spec.get("timeZone") is None else spec["timeZone"], _bool_ptr(spec.get("suspend")), str(len(status.get("active") or ())),
               NONE if last is None else age(last, now), _age(d, now)]
        if wide:
            job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
            names, images = _containers_images(((job_spec.get("template") or {}).get("spec") or {}))
            row += [names, images, _selector_text(job_spec.get("selector"))]
        rows.append(row)
    return headers, rows
