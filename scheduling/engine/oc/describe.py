"""`oc describe node|pod` (and, through engine.oc.describe_kinds and describe_more, the other kinds:
DESCRIBERS) (kubectl pkg/describe: describePod, describeNode, DescribeEvents)
with the Events section (`Warning  FailedScheduling  2m49s (x5 over 4m12s)
default-scheduler  0/3 nodes are available: ...`). Events come from `store.events`:
engine RecordEvents, or objects that also carry `count`, `first_time`, `last_time`
(stored clusters count repeats)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.api.quantity import QuantityError, format_quantity, parse_quantity
from scheduling.engine.store import Store

from scheduling.engine.api.kinds import resolve

from . import describe_generic, namespaces
from .core import SELECTOR, OcError, OcResult, meta, not_found, parse_flags, resource_or_error
from .output import age, go_tabwriter, human_duration, rfc1123z, seconds
from .printers import node_roles
from .selectors import parse_selector
from .session import SESSION

FLAGS = (SELECTOR, )
# Node and Pod have kubectl's own describers (the other kinds': DESCRIBERS); the OpenShift kinds its generic one
DESCRIBABLE = ("Node", "Pod") + describe_generic.GENERIC_KINDS
# kubectl's IsStandardContainerResourceName (hugepages-* apart) and pods: not "extended"
STANDARD_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


class _W:
    """kubectl's PrefixWriter: LEVEL_n indents by 2n spaces; cells separated by tabs."""

    def __init__(self) -> None:
        self.text: list[str] = []

    def write(self, level: int, line: str) -> None:
        self.text.append("  " * level + line)

    def render(self) -> str:
        return go_tabwriter("".join(self.text), 0, 2)


def _map_lines(w: _W, title: str, values: Mapping[str, Any] | None, skip: Iterable[str] = ()) -> None:
    """printLabelsMultiline / printAnnotationsMultiline: sorted, one per line."""
    items = sorted((k, v) for k, v in (values or {}).items() if k not in skip)
    if not items:
        w.write(0, f"{title}:\t<none>\n")
        return
    for i, (k, v) in enumerate(items):
        w.write(0, f"{title if i == 0 else ''}{':' if i == 0 else ''}\t{k}={v}\n")


def _list_lines(w: _W, title: str, values: Sequence[str]) -> None:
    if not values:
        w.write(0, f"{title}:\t<none>\n")
        return
    for i, v in enumerate(values):
        w.write(0, f"{title + ':' if i == 0 else ''}\t{v}\n")


def taint_text(t: Mapping[str, Any]) -> str:
    text = t.get("key") or ""
    if t.get("value"):
        text += f"={t['value']}"
    return f"{text}:{t.get('effect') or ''}"


def toleration_text(t: Mapping[str, Any]) -> str:
    """printTolerationsMultilineWithIndent."""
    text = t.get("key") or ""
    if t.get("value"):
        text += f"={t['value']}"
    if t.get("effect"):
        text += f":{t['effect']}"
    if t.get("operator") == "Exists" and not t.get("value"):
        # `- operator: Exists` alone tolerates everything: "op=Exists"; with a key or an effect
        # (":NoSchedule op=Exists") the word is set apart
        text += " op=Exists" if t.get("key") or t.get("effect") else "op=Exists"
    if t.get("tolerationSeconds") is not None:
        text += f" for {t['tolerationSeconds']}s"
    return text


# --- events ----------------------------------------------------------------------------------------------


def _events_for(store: Store, kind: str, namespace: str, name: str, uid: str = "") -> list[tuple[Any, int, float, float]]:
    """(event, count, first, last) for the object, repeats folded, oldest first."""
    folded: dict[tuple, list] = {}
    for e in store.events:
        if (e.kind, e.namespace, e.name) != (kind, namespace, name):
            continue
        count = int(getattr(e, "count", 1) or 1)
        first = float(getattr(e, "first_time", e.time))
        last = float(getattr(e, "last_time", e.time))
        key = (e.type, e.reason, e.source, e.message)
        if key in folded:
            entry = folded[key]
            entry[1] += count
            entry[2] = min(entry[2], first)
            entry[3] = max(entry[3], last)
        else:
            folded[key] = [e, count, first, last]
    return sorted((tuple(v) for v in folded.values()), key=lambda v: v[3])


def _events(w: _W, store: Store, kind: str, namespace: str, name: str, now: float) -> None:
    """DescribeEvents."""
    events = _events_for(store, kind, namespace, name)
    if not events:
        w.write(0, "Events:\t<none>\n")
        return
    w.write(0, "Events:\n")
    w.write(1, "Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for e, count, first, last in events:
        interval = human_duration(now - first)
        if count > 1:
            interval = f"{human_duration(now - last)} (x{count} over {human_duration(now - first)})"
        message = " ".join(e.message.strip().split("\n"))
        w.write(1, f"{e.type}\t{e.reason}\t{interval}\t{e.source or ''}\t{message}\n")


# --- pods ---------------------------------------------------------------------------------------------------


def _qos(pod: Mapping[str, Any]) -> str:
    containers = (pod.get("spec") or {}).get("containers") or []
    requests = [((c.get("resources") or {}).get("requests") or {}) for c in containers]
    limits = [((c.get("resources") or {}).get("limits") or {}) for c in containers]
    if not any(requests) and not any(limits):
        return "BestEffort"
    guaranteed = all(
        lim.get("cpu") and lim.get("memory") and (not req.get("cpu") or req.get("cpu") == lim.get("cpu"))
        and (not req.get("memory") or req.get("memory") == lim.get("memory"))
        for req, lim in zip(requests, limits)
    )
    return "Guaranteed" if guaranteed else "Burstable"


def _containers(w: "_W", containers: Sequence[Mapping[str, Any]], container_statuses: Sequence[Mapping[str, Any]]) -> None:
    """The Containers section: image, ports, state, resources, one block per container."""
    statuses = {c.get("name"): c for c in container_statuses}
    for c in containers:
        w.write(1, f"{c.get('name')}:\n")
        w.write(2, f"Image:\t{c.get('image') or ''}\n")
        ports = c.get("ports") or []
        for title, key in (("Port", "containerPort"), ("Host Port", "hostPort")):
            text = ", ".join(f"{p.get(key) or 0}/{p.get('protocol') or 'TCP'}" + (f" ({p['name']})" if p.get("name") else "")
                             for p in ports)
            if "," in text:
                w.write(2, f"{title}s:\t{text}\n")
            else:
                w.write(2, f"{title}:\t{text or '<none>'}\n")
        for key, title in (("command", "Command"), ("args", "Args")):  # describeContainerCommand
            if c.get(key):
                w.write(2, f"{title}:\n")
                for item in c[key]:
                    for line in str(item).split("\n"):
                        w.write(3, f"{line}\n")
        cs = statuses.get(c.get("name"))
        if cs is not None:  # describeContainerState
            _container_state(w, "State", cs.get("state") or {})
            if ((cs.get("lastState") or {}).get("terminated")) is not None:
                _container_state(w, "Last State", cs["lastState"])
            w.write(2, f"Ready:\t{'True' if cs.get('ready') else 'False'}\n")
            w.write(2, f"Restart Count:\t{cs.get('restartCount') or 0}\n")
        resources = c.get("resources") or {}
        for title in ("limits", "requests"):
            values = resources.get(title) or {}
            if values:
                w.write(2, f"{title.capitalize()}:\n")
                for k in sorted(values):
                    w.write(3, f"{k}:\t{values[k]}\n")
        w.write(2, "Environment:\t<none>\n")
        w.write(2, "Mounts:\t<none>\n")


def _container_state(w: "_W", title: str, state: Mapping[str, Any]) -> None:
    """describeStatus: Running with its start, Waiting with its reason, Terminated with its
    reason, message, exit code, start and finish."""
    if state.get("running") is not None:
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z((state['running'] or {}).get('startedAt'))}\n")
    elif state.get("terminated") is not None:
        t = state["terminated"] or {}
        w.write(2, f"{title}:\tTerminated\n")
        if t.get("reason"):
            w.write(3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(3, f"Message:\t{t['message']}\n")
        w.write(3, f"Exit Code:\t{int(t.get('exitCode') or 0)}\n")
        if int(t.get("signal") or 0) > 0:
            w.write(3, f"Signal:\t{int(t['signal'])}\n")
        w.write(3, f"Started:\t{rfc1123z(t.get('startedAt'))}\n")
        w.write(3, f"Finished:\t{rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")
        reason = (state.get("waiting") or {}).get("reason")
        if reason:
            w.write(3, f"Reason:\t{reason}\n")


def _volumes(w: "_W", volumes: Sequence[Mapping[str, Any]]) -> None:
    """The Volumes section, as kubectl describes emptyDir and persistentVolumeClaim volumes."""
    if not volumes:
        w.write(0, "Volumes:\t<none>\n")
    else:
        w.write(0, "Volumes:\n")
        for v in volumes:
            w.write(1, f"{v.get('name')}:\n")
            if "emptyDir" in v:
                w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
                w.write(2, f"Medium:\t{(v.get('emptyDir') or {}).get('medium') or ''}\n")
                w.write(2, f"SizeLimit:\t{(v.get('emptyDir') or {}).get('sizeLimit') or '<unset>'}\n")
            elif "persistentVolumeClaim" in v:
                claim = v.get("persistentVolumeClaim") or {}
                w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n")
                w.write(2, f"ClaimName:\t{claim.get('claimName')}\n")
                w.write(2, f"ReadOnly:\t{'true' if claim.get('readOnly') else 'false'}\n")
            else:
                w.write(2, f"Type:\t{next((k for k in v if k != 'name'), '<unknown>')}\n")


def describe_pod(store: Store, pod: Mapping[str, Any], now: float) -> str:
    m, spec, status = meta(pod), pod.get("spec") or {}, pod.get("status") or {}
    w = _W()
    w.write(0, f"Name:\t{m.get('name')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or 'default'}\n")
    if spec.get("priority") is not None or spec.get("priorityClassName"):
        w.write(0, f"Priority:\t{spec.get('priority') or 0}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    w.write(0, f"Service Account:\t{spec.get('serviceAccountName') or 'default'}\n")
    node = spec.get("nodeName")
    w.write(0, f"Node:\t{node + '/' + (status.get('hostIP') or '') if node else '<none>'}\n")
    if status.get("startTime") is not None:
        w.write(0, f"Start Time:\t{rfc1123z(status['startTime'])}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    if m.get("deletionTimestamp") is not None:
        w.write(0, f"Status:\tTerminating (lasts {human_duration(now - (seconds(m['deletionTimestamp']) or now))})\n")
        w.write(0, f"Termination Grace Period:\t{m.get('deletionGracePeriodSeconds')}s\n")
    else:
        w.write(0, f"Status:\t{status.get('phase') or 'Pending'}\n")
    if status.get("reason"):
        w.write(0, f"Reason:\t{status['reason']}\n")
    if status.get("message"):
        w.write(0, f"Message:\t{status['message']}\n")
    w.write(0, f"IP:\t{status.get('podIP') or ''}\n")
    ips = [ip.get("ip") for ip in status.get("podIPs") or () if ip.get("ip")]
    _list_lines(w, "IPs", [f"IP:  {ip}" for ip in ips]) if ips else w.write(0, "IPs:\t<none>\n")
    ref = next((r for r in m.get("ownerReferences") or () if r.get("controller")), None)
    if ref:
        w.write(0, f"Controlled By:\t{ref.get('kind')}/{ref.get('name')}\n")
    if status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{status['nominatedNodeName']}\n")
    w.write(0, "Containers:\n")
    _containers(w, spec.get("containers") or [], status.get("containerStatuses") or ())
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\n")
        for cond in conditions:
            w.write(1, f"{cond.get('type')} \t{cond.get('status')} \n")
    _volumes(w, spec.get("volumes") or [])
    w.write(0, f"QoS Class:\t{_qos(pod)}\n")
    _map_lines(w, "Node-Selectors", spec.get("nodeSelector"))
    _list_lines(w, "Tolerations", [toleration_text(t) for t in sorted(spec.get("tolerations") or (), key=lambda t: t.get("key") or "")])
    _events(w, store, "Pod", m.get("namespace") or "default", m.get("name") or "", now)
    return w.render()


# --- nodes --------------------------------------------------------------------------------------------------


def _q(value: Any) -> Fraction:
    try:
        return parse_quantity(value) if value is not None else Fraction(0)
    except (QuantityError, ValueError, TypeError):
        return Fraction(0)


def _pct(part: Fraction, whole: Fraction) -> int:
    return int(part * 100 / whole) if whole else 0


def _aggregate(pod: Mapping[str, Any], field: str) -> dict[str, Fraction]:
    """resourcehelper's AggregateContainerRequests / Limits: the containers' sum, plus the
    sidecars (restartable init containers) beside them, at least as much as any init
    container needs while it runs (with the sidecars started before it), plus the pod's
    overhead."""
    spec = pod.get("spec") or {}

    def of(c: Mapping[str, Any]) -> dict[str, Fraction]:
        return {k: _q(v) for k, v in ((c.get("resources") or {}).get(field) or {}).items()}

    def add(into: dict[str, Fraction], more: Mapping[str, Fraction]) -> None:
        for k, v in more.items():
            into[k] = into.get(k, Fraction(0)) + v

    total: dict[str, Fraction] = {}
    for c in spec.get("containers") or []:
        add(total, of(c))
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in spec.get("initContainers") or []:
        needed = of(c)
        if c.get("restartPolicy") == "Always":
            add(total, needed)
            add(sidecars, needed)
            needed = dict(sidecars)
        else:
            needed = dict(needed)
            add(needed, sidecars)
        for k, v in needed.items():
            init_max[k] = max(init_max.get(k, Fraction(0)), v)
    for k, v in init_max.items():
        total[k] = max(total.get(k, Fraction(0)), v)
    add(total, {k: _q(v) for k, v in (spec.get("overhead") or {}).items()})
    return total


def _pod_totals(pod: Mapping[str, Any]) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    """resourcehelper.PodRequestsAndLimits (sidecar and init containers counted as the
    scheduler counts them)."""
    requests = _aggregate(pod, "requests")
    limits = _aggregate(pod, "limits")
    for k, v in limits.items():
        requests.setdefault(k, v)  # requests default to limits
    return requests, limits


def _amount(value: Fraction, resource: str) -> str:
    if value == 0:
        return "0"
    return format_quantity(value, binary=resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"))


def _pods_and_allocated_resources(w: "_W", store: Store, name: str, status: Mapping[str, Any], now: float) -> None:
    """The Non-terminated Pods table (each pod's requests and limits against the node's
    allocatable) and the Allocated resources totals, as kubectl describe node prints them."""
    pods = sorted((p for p in store.list("Pod") if (p.get("spec") or {}).get("nodeName") == name
                   and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")),
                  key=lambda p: (meta(p).get("namespace") or "default", meta(p).get("name") or ""))
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    cpu_total, mem_total = _q(allocatable.get("cpu")), _q(allocatable.get("memory"))
    w.write(0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
    totals_req: dict[str, Fraction] = {}
    totals_lim: dict[str, Fraction] = {}
    for p in pods:
        req, lim = _pod_totals(p)
        for k, v in req.items():
            totals_req[k] = totals_req.get(k, Fraction(0)) + v
        for k, v in lim.items():
            totals_lim[k] = totals_lim.get(k, Fraction(0)) + v
        cells = []
        for amounts, key, total in ((req, "cpu", cpu_total), (lim, "cpu", cpu_total), (req, "memory", mem_total),
                                    (lim, "memory", mem_total)):
            v = amounts.get(key, Fraction(0))
            cells.append(f"{_amount(v, key)} ({_pct(v, total)}%)")
        w.write(1, f"{meta(p).get('namespace') or 'default'}\t{meta(p).get('name')}\t\t{cells[0]}\t{cells[1]}\t{cells[2]}\t"
                   f"{cells[3]}\t{age(meta(p).get('creationTimestamp'), now)}\n")
    w.write(0, "Allocated resources:\n")
    w.write(1, "(Total limits may be over 100 percent, i.e., overcommitted.)\n")
    w.write(1, "Resource\tRequests\tLimits\n")
    w.write(1, "--------\t--------\t------\n")
    for key, total in (("cpu", cpu_total), ("memory", mem_total), ("ephemeral-storage", _q(allocatable.get("ephemeral-storage")))):
        r, li = totals_req.get(key, Fraction(0)), totals_lim.get(key, Fraction(0))
        w.write(1, f"{key}\t{_amount(r, key)} ({_pct(r, total)}%)\t{_amount(li, key)} ({_pct(li, total)}%)\n")
    hugepages = sorted(k for k in allocatable if k.startswith("hugepages-"))
    extended = sorted(k for k in allocatable if not k.startswith("hugepages-") and k not in STANDARD_RESOURCES)
    for key in hugepages:
        r, li, total = totals_req.get(key, Fraction(0)), totals_lim.get(key, Fraction(0)), _q(allocatable.get(key))
        w.write(1, f"{key}\t{_amount(r, key)} ({_pct(r, total)}%)\t{_amount(li, key)} ({_pct(li, total)}%)\n")
    for key in extended:
        w.write(1, f"{key}\t{_amount(totals_req.get(key, Fraction(0)), key)}\t{_amount(totals_lim.get(key, Fraction(0)), key)}\n")


def describe_node(store: Store, node: Mapping[str, Any], now: float) -> str:
    m, spec, status = meta(node), node.get("spec") or {}, node.get("status") or {}
    name = m.get("name") or ""
    w = _W()
    w.write(0, f"Name:\t{name}\n")
    w.write(0, f"Roles:\t{node_roles(node)}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"CreationTimestamp:\t{rfc1123z(m.get('creationTimestamp'))}\n")
    _list_lines(w, "Taints", [taint_text(t) for t in spec.get("taints") or ()])
    w.write(0, f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}\n")
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{c.get('type') or ''} \t{c.get('status') or ''} \t{rfc1123z(c.get('lastHeartbeatTime'))} \t"
                       f"{rfc1123z(c.get('lastTransitionTime'))} \t{c.get('reason') or ''} \t{c.get('message') or ''}\n")
    w.write(0, "Addresses:\n")
    for a in status.get("addresses") or []:
        w.write(1, f"{a.get('type') or ''}:\t{a.get('address') or ''}\n")  # Go's zero value for one not given
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        values = status.get(key) or {}
        if values:
            w.write(0, f"{title}:\n")
            for k in sorted(values):
                w.write(1, f"{k}:\t{values[k]}\n")
    info = status.get("nodeInfo") or {}
    w.write(0, "System Info:\n")
    for label, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"), ("Boot ID", "bootID"),
                       ("Kernel Version", "kernelVersion"), ("OS Image", "osImage"), ("Operating System", "operatingSystem"),
                       ("Architecture", "architecture"), ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion")):
        w.write(1, f"{label}:\t{info.get(key) or ''}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{spec['podCIDR']}\n")
    if spec.get("podCIDRs"):
        w.write(0, f"PodCIDRs:\t{','.join(spec['podCIDRs'])}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{spec['providerID']}\n")
    _pods_and_allocated_resources(w, store, name, status, now)
    _events(w, store, "Node", "", name, now)
    return w.render()


# The other kinds' describers, as dotted paths (they build on this module's helpers).
DESCRIBERS = {
    "Namespace": "scheduling.engine.oc.describe_kinds:describe_namespace",
    "Deployment": "scheduling.engine.oc.describe_kinds:describe_deployment",
    "PriorityClass": "scheduling.engine.oc.describe_kinds:describe_priority_class",
    **{kind: "scheduling.engine.oc.describe_more:" + name for kind, name in (
        ("Service", "describe_service"), ("ReplicationController", "describe_replication_controller"),
        ("ReplicaSet", "describe_replica_set"), ("StatefulSet", "describe_stateful_set"),
        ("DaemonSet", "describe_daemon_set"), ("PodDisruptionBudget", "describe_pod_disruption_budget"),
        ("PersistentVolume", "describe_persistent_volume"), ("PersistentVolumeClaim", "describe_persistent_volume_claim"),
        ("StorageClass", "describe_storage_class"), ("ConfigMap", "describe_config_map"))},
    "Job": "scheduling.engine.oc.describe_kinds:describe_job",
    "CronJob": "scheduling.engine.oc.describe_kinds:describe_cron_job",
}


def run(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    live = SESSION in (files or {})  # a running cluster: its namespaces include the system ones
    positional, flags = parse_flags(args, FLAGS)
    if not positional:
        # a plain fmt.Errorf in kubectl's describe (no usage line), its message ending in a newline
        raise OcError("You must specify the type of resource to describe. Use \"oc api-resources\" for a complete list of "
                      "supported resources.\n")
    namespace = flags.namespace or "default"
    if "/" in positional[0]:
        pairs = [(resource_or_error(w.partition("/")[0]), w.partition("/")[2]) for w in positional]
    else:
        r = resource_or_error(positional[0])
        pairs = [(r, n) for n in positional[1:]] or [(r, None)]
    out: list[str] = []
    errors: list[OcError] = []
    for r, name in pairs:
        if r.kind not in DESCRIBABLE and r.kind not in DESCRIBERS:
            raise OcError(f"the simulator does not describe {r.plural} yet")
        ns = namespace if r.namespaced else ""
        if name is None:
            match = parse_selector(flags.selector) if flags.selector else (lambda labels: True)
            listed = namespaces.all_namespaces(store) if live and r.kind == "Namespace" else store.list(r.kind)
            docs = sorted((d for d in listed if (not r.namespaced or (meta(d).get("namespace") or "default") == ns)
                           and match(meta(d).get("labels") or {})), key=lambda d: meta(d).get("name") or "")
            if not docs:
                return OcResult(stderr=f"No resources found in {ns} namespace.\n" if r.namespaced else "No resources found\n")
        else:
            doc = namespaces.get(store, name) if live and r.kind == "Namespace" else store.get(r.kind, ns, name)
            if doc is None:
                errors.append(not_found(r, name))
                continue
            docs = [doc]
        for doc in docs:
            if r.kind in describe_generic.GENERIC_KINDS:
                out.append(describe_generic.describe(store, doc, now, _W(), _map_lines, _events))
            else:
                describer = {"Pod": describe_pod, "Node": describe_node}.get(r.kind) or resolve(DESCRIBERS[r.kind])
                out.append(describer(store, doc, now))
    # several objects: separated by a blank line, as kubectl separates them
    result = OcResult("\n\n".join(o.rstrip("\n") for o in out) + "\n" if out else "")
    if errors:
        result.stderr = "".join(e.message + "\n" for e in errors)
        result.exit_code = 1
    return result


# for the describers of engine.oc.describe_kinds
PrefixWriter = _W
describe_events = _events
map_lines = _map_lines

run.uses_files = True
run.help_text = """Show details of a specific resource or group of resources.

Examples:
  # Describe a node
  kubectl describe nodes kubernetes-node-emt8.c.myproject.internal

  # Describe a pod
  kubectl describe pods/nginx

Usage:
  kubectl describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]
"""
