"""`oc describe` for the simulated Kubernetes kinds that kubectl has a describer of its own for,
besides Node, Pod, Namespace, Deployment and PriorityClass (kubernetes/kubectl pkg/describe/
describe.go): describeService (the endpoints read from the pods the EndpointSlice controller
would list: formatEndpointSlices), describeReplicationController, describeReplicaSet,
describeStatefulSet, describeDaemonSet (each with getPodStatusForController's pod counts and
DescribePodTemplate), describePodDisruptionBudgetV1, describePersistentVolume (its volume
source), describePersistentVolumeClaim (the pods using it), describeStorageClass and
ConfigMapDescriber. Each describer is `(store, doc, now) -> text`; engine.oc.describe.DESCRIBERS
names them. Every one ends with the Events section (DescribeEvents)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.api import selectors
from scheduling.engine.api.quantity import QuantityError, canonical
from scheduling.engine.store import Store

from .describe import PrefixWriter as _W, describe_events as _events, map_lines as _map_lines
from .describe_kinds import describe_pod_template
from .output import human_duration, rfc1123z, seconds

Doc = Mapping[str, Any]
NONE = "<none>"
MAX_ANNOTATION_LEN = 140  # describe.go maxAnnotationLen


def _meta(d: Doc) -> Mapping[str, Any]:
    return d.get("metadata") or {}


def _go(value: Any) -> str:
    """fmt's %v of a scalar field (its Go zero value when absent)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def _format_labels(values: Mapping[str, Any] | None) -> str:
    """labels.FormatLabels: sorted `k=v` joined by commas, `<none>` when empty."""
    return ",".join(f"{k}={v}" for k, v in sorted((values or {}).items())) or NONE


def _selector(spec: Mapping[str, Any]) -> selectors.Selector:
    """metav1.LabelSelectorAsSelector of spec.selector (nil: nothing)."""
    raw = spec.get("selector")
    if raw is None:
        return selectors.NOTHING
    try:
        return selectors.label_selector_as_selector(sorted((k, str(v)) for k, v in (raw.get("matchLabels") or {}).items()),
                                                    selectors.expressions_of(raw.get("matchExpressions")))
    except selectors.SelectorError:
        return selectors.NOTHING


def _format_selector(spec: Mapping[str, Any]) -> str:
    """metav1.FormatLabelSelector of spec.selector."""
    raw = spec.get("selector")
    if raw is None:
        return NONE
    return selectors.format_label_selector(raw.get("matchLabels"), selectors.expressions_of(raw.get("matchExpressions")))


def _quantity(value: Any) -> str:
    """resource.Quantity's String()."""
    if value is None:
        return "0"
    try:
        return canonical(str(value))
    except (QuantityError, ValueError):
        return str(value)


def _terminating(w: _W, m: Mapping[str, Any], phase: Any, now: float) -> None:
    deleted = seconds(m.get("deletionTimestamp"))
    if m.get("deletionTimestamp") is not None:
        w.write(0, f"Status:\tTerminating (lasts {human_duration(now - (now if deleted is None else deleted))})\n")
    else:
        w.write(0, f"Status:\t{phase or ''}\n")


def _events_of(w: _W, store: Store, kind: str, doc: Doc, now: float) -> None:
    m = _meta(doc)
    _events(w, store, kind, m.get("namespace") or "", m.get("name") or "", now)


def _pods_of(store: Store, namespace: str) -> list[Doc]:
    return [p for p in store.list("Pod") if (_meta(p).get("namespace") or "default") == namespace]


def pod_status_for_controller(store: Store, owner: Doc, selector: selectors.Selector) -> tuple[int, int, int, int]:
    """getPodStatusForController: (running, waiting, succeeded, failed) of the pods the
    selector lists (an empty selector, nil's String(), lists every pod of the namespace)
    whose controller is the owner."""
    m = _meta(owner)
    uid, name = m.get("uid"), m.get("name")
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in _pods_of(store, m.get("namespace") or "default"):
        if selector.requirements and not selector.matches(_meta(pod).get("labels") or {}):
            continue
        ref = next((r for r in _meta(pod).get("ownerReferences") or () if r.get("controller")), None)
        # by UID as upstream; a reference written without one (a controller's pod made in
        # the same step as its owner, a hand-written file) by name
        if ref is None or (ref.get("uid") != uid if uid and ref.get("uid") else ref.get("name") != name):
            continue
        phase = (pod.get("status") or {}).get("phase")
        if phase in counts:
            counts[phase] += 1
    return counts["Running"], counts["Pending"], counts["Succeeded"], counts["Failed"]


def _pods_status(w: _W, counts: tuple[int, int, int, int]) -> None:
    w.write(0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n" % counts)


def _conditions(w: _W, conditions: Sequence[Mapping[str, Any]]) -> None:
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type') or ''} \t{c.get('status') or ''}\t{c.get('reason') or ''}\n")


def _controlled_by(m: Mapping[str, Any]) -> str:
    ref = next((r for r in m.get("ownerReferences") or () if r.get("controller")), None)
    return f"{ref.get('kind')}/{ref.get('name')}" if ref else ""


# --- services -----------------------------------------------------------------------------------------------


def _ready(pod: Doc) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in (pod.get("status") or {}).get("conditions") or ())


def _target_port(pod: Doc, port: Mapping[str, Any]) -> int | None:
    """podutil.FindPort: a number is the port; a name is the container port of that name."""
    target = port.get("targetPort", port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    for c in (pod.get("spec") or {}).get("containers") or ():
        for p in c.get("ports") or ():
            if p.get("name") == target and (p.get("protocol") or "TCP") == (port.get("protocol") or "TCP"):
                return p.get("containerPort")
    return None


def _host_port(address: str, port: int) -> str:
    """net.JoinHostPort."""
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def service_endpoints(store: Store, service: Doc, port: Mapping[str, Any]) -> str:
    """formatEndpointSlices over the endpoints the EndpointSlice controller makes of the pods
    the service's selector matches (those with an IP and not finished), the ready ones
    printed, three at most then `+ N more...`; `<none>` for a service without a selector
    (the controller makes no slice for it), empty when its slice lists no ready pod."""
    spec = service.get("spec") or {}
    chosen = spec.get("selector")
    if not chosen:
        return NONE
    matching = sorted((p for p in _pods_of(store, _meta(service).get("namespace") or "default")
                       if all((_meta(p).get("labels") or {}).get(k) == v for k, v in chosen.items())
                       and (p.get("status") or {}).get("podIP")
                       and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")),
                      key=lambda p: _meta(p).get("name") or "")
    publish = bool(spec.get("publishNotReadyAddresses"))
    ready = []
    for pod in matching:
        number = _target_port(pod, port)
        if number is not None and (publish or (_ready(pod) and _meta(pod).get("deletionTimestamp") is None)):
            ready.append(_host_port(pod["status"]["podIP"], number))
    if len(ready) > 3:
        return ",".join(ready[:3]) + f" + {len(ready) - 3} more..."
    return ",".join(ready)


def _ingress(ingress: Sequence[Mapping[str, Any]]) -> str:
    """buildIngressString."""
    out = []
    for i in ingress:
        if i.get("ip"):
            out.append(i["ip"] + (f" ({i['ipMode']})" if i.get("ipMode") else ""))
        else:
            out.append(i.get("hostname") or "")
    return ", ".join(out)


def describe_service(store: Store, service: Doc, now: float) -> str:
    """describeService."""
    w = _W()
    m, spec, status = _meta(service), service.get("spec") or {}, service.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Selector:\t{_format_labels(spec.get('selector'))}\n")
    w.write(0, f"Type:\t{spec.get('type') or ''}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    w.write(0, f"IP Families:\t{','.join(spec.get('ipFamilies') or ()) or NONE}\n")
    w.write(0, f"IP:\t{spec.get('clusterIP') or ''}\n")
    w.write(0, f"IPs:\t{','.join(spec.get('clusterIPs') or ()) or NONE}\n")
    if spec.get("externalIPs"):
        w.write(0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("loadBalancerIP"):
        w.write(0, f"Desired LoadBalancer IP:\t{spec['loadBalancerIP']}\n")
    if spec.get("externalName"):
        w.write(0, f"External Name:\t{spec['externalName']}\n")
    ingress = (status.get("loadBalancer") or {}).get("ingress") or []
    if ingress:
        w.write(0, f"LoadBalancer Ingress:\t{_ingress(ingress)}\n")
    for port in spec.get("ports") or ():
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol") or ""
        w.write(0, f"Port:\t{name}\t{port.get('port') or 0}/{protocol}\n")
        target = port.get("targetPort")
        w.write(0, f"TargetPort:\t{0 if target is None else target}/{protocol}\n")
        if port.get("appProtocol") is not None:
            w.write(0, f"AppProtocol:\t{port['appProtocol']}\n")
        if port.get("nodePort"):
            w.write(0, f"NodePort:\t{name}\t{port['nodePort']}/{protocol}\n")
        w.write(0, f"Endpoints:\t{service_endpoints(store, service, port)}\n")
    w.write(0, f"Session Affinity:\t{spec.get('sessionAffinity') or ''}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy") is not None:
        w.write(0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    if spec.get("healthCheckNodePort"):
        w.write(0, f"HealthCheck NodePort:\t{spec['healthCheckNodePort']}\n")
    if spec.get("loadBalancerSourceRanges"):
        w.write(0, f"LoadBalancer Source Ranges:\t{','.join(spec['loadBalancerSourceRanges'])}\n")
    if spec.get("trafficDistribution") is not None:
        w.write(0, f"Traffic Distribution:\t{spec['trafficDistribution']}\n")
    _events_of(w, store, "Service", service, now)
    return w.render()


# --- workload controllers -------------------------------------------------------------------------------------


def describe_replication_controller(store: Store, rc: Doc, now: float) -> str:
    """describeReplicationController."""
    w = _W()
    m, spec, status = _meta(rc), rc.get("spec") or {}, rc.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"Selector:\t{_format_labels(spec.get('selector'))}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Replicas:\t{int(status.get('replicas') or 0)} current / {int(spec.get('replicas', 1) or 0)} desired\n")
    chosen = selectors.selector_from_set(spec.get("selector")) if spec.get("selector") else selectors.EVERYTHING
    _pods_status(w, pod_status_for_controller(store, rc, chosen))
    describe_pod_template(w, spec.get("template"))
    _conditions(w, status.get("conditions") or ())
    _events_of(w, store, "ReplicationController", rc, now)
    return w.render()


def describe_replica_set(store: Store, rs: Doc, now: float) -> str:
    """describeReplicaSet."""
    w = _W()
    m, spec, status = _meta(rs), rs.get("spec") or {}, rs.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"Selector:\t{_format_selector(spec)}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    if _controlled_by(m):
        w.write(0, f"Controlled By:\t{_controlled_by(m)}\n")
    w.write(0, f"Replicas:\t{int(status.get('replicas') or 0)} current / {int(spec.get('replicas', 1) or 0)} desired\n")
    _pods_status(w, pod_status_for_controller(store, rs, _selector(spec)))
    describe_pod_template(w, spec.get("template") or {})
    _conditions(w, status.get("conditions") or ())
    _events_of(w, store, "ReplicaSet", rs, now)
    return w.render()


def _volume_claim_templates(w: _W, templates: Sequence[Mapping[str, Any]]) -> None:
    """describeVolumeClaimTemplates."""
    if not templates:
        w.write(0, "Volume Claims:\t<none>\n")
        return
    w.write(0, "Volume Claims:\n")
    for pvc in templates:
        m, spec = _meta(pvc), pvc.get("spec") or {}
        w.write(1, f"Name:\t{m.get('name') or ''}\n")
        w.write(1, f"StorageClass:\t{_claim_class(pvc)}\n")
        _map_lines(w, "  Labels", m.get("labels"))
        _map_lines(w, "  Annotations", m.get("annotations"))
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        w.write(1, f"Capacity:\t{_quantity(storage) if storage is not None else '<default>'}\n")
        w.write(1, f"Access Modes:\t[{' '.join(spec.get('accessModes') or ())}]\n")


def describe_stateful_set(store: Store, sts: Doc, now: float) -> str:
    """describeStatefulSet."""
    w = _W()
    m, spec, status = _meta(sts), sts.get("spec") or {}, sts.get("status") or {}
    chosen = _selector(spec)
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(m.get('creationTimestamp'))}\n")
    w.write(0, f"Selector:\t{chosen}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    if spec.get("serviceName"):
        w.write(0, f"Service Name:\t{spec['serviceName']}\n")
    if spec.get("podManagementPolicy"):
        w.write(0, f"Pod Management Policy:\t{spec['podManagementPolicy']}\n")
    w.write(0, f"Replicas:\t{int(spec.get('replicas', 1) or 0)} desired | {int(status.get('replicas') or 0)} total\n")
    strategy = spec.get("updateStrategy") or {}
    w.write(0, f"Update Strategy:\t{strategy.get('type') or ''}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None and rolling.get("partition") is not None:
        w.write(1, f"Partition:\t{rolling['partition']}\n")
        if rolling.get("maxUnavailable") is not None:
            w.write(1, f"MaxUnavailable:\t{rolling['maxUnavailable']}\n")
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        w.write(0, "Persistent Volume Claim Retention Policy:\n")
        w.write(1, f"WhenDeleted:\t{retention.get('whenDeleted') or ''}\n")
        w.write(1, f"WhenScaled:\t{retention.get('whenScaled') or ''}\n")
    _pods_status(w, pod_status_for_controller(store, sts, chosen))
    describe_pod_template(w, spec.get("template") or {})
    _volume_claim_templates(w, spec.get("volumeClaimTemplates") or ())
    _events_of(w, store, "StatefulSet", sts, now)
    return w.render()


def describe_daemon_set(store: Store, ds: Doc, now: float) -> str:
    """describeDaemonSet."""
    w = _W()
    m, spec, status = _meta(ds), ds.get("spec") or {}, ds.get("status") or {}
    chosen = _selector(spec)
    template = spec.get("template") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"Selector:\t{chosen}\n")
    w.write(0, f"Node-Selector:\t{_format_labels((template.get('spec') or {}).get('nodeSelector'))}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    for title, key in (("Desired Number of Nodes Scheduled", "desiredNumberScheduled"),
                       ("Current Number of Nodes Scheduled", "currentNumberScheduled"),
                       ("Number of Nodes Scheduled with Up-to-date Pods", "updatedNumberScheduled"),
                       ("Number of Nodes Scheduled with Available Pods", "numberAvailable"),
                       ("Number of Nodes Misscheduled", "numberMisscheduled")):
        w.write(0, f"{title}: {int(status.get(key) or 0)}\n")
    _pods_status(w, pod_status_for_controller(store, ds, chosen))
    describe_pod_template(w, template)
    _events_of(w, store, "DaemonSet", ds, now)
    return w.render()


def describe_pod_disruption_budget(store: Store, pdb: Doc, now: float) -> str:
    """describePodDisruptionBudgetV1."""
    w = _W()
    m, spec, status = _meta(pdb), pdb.get("spec") or {}, pdb.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    if spec.get("minAvailable") is not None:
        w.write(0, f"Min available:\t{spec['minAvailable']}\n")
    elif spec.get("maxUnavailable") is not None:
        w.write(0, f"Max unavailable:\t{spec['maxUnavailable']}\n")
    w.write(0, f"Selector:\t{_format_selector(spec) if spec.get('selector') is not None else '<unset>'}\n")
    w.write(0, "Status:\n")
    for title, key in (("Allowed disruptions", "disruptionsAllowed"), ("Current", "currentHealthy"),
                       ("Desired", "desiredHealthy"), ("Total", "expectedPods")):
        w.write(2, f"{title}:\t{int(status.get(key) or 0)}\n")
    _events_of(w, store, "PodDisruptionBudget", pdb, now)
    return w.render()


# --- storage ------------------------------------------------------------------------------------------------


def _access_modes(modes: Sequence[str] | None) -> str:
    """storageutil.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once."""
    modes = list(modes or ())
    return ",".join(short for mode, short in (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                                              ("ReadWriteOncePod", "RWOP")) if mode in modes)


def _volume_class(doc: Doc) -> str:
    """storageutil.GetPersistentVolumeClass: the beta annotation first, then the field."""
    annotation = (_meta(doc).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    if annotation is not None:
        return annotation
    return (doc.get("spec") or {}).get("storageClassName") or ""


_claim_class = _volume_class  # GetPersistentVolumeClaimClass reads the same annotation, then the field


def _none_or(value: Any) -> str:
    return NONE if value is None else _go(value)


def _secret_ref(ref: Any) -> str:
    """%v of a *SecretReference / *LocalObjectReference: `<nil>` or `&{name ns}`."""
    if ref is None:
        return "<nil>"
    return "&{" + f"{ref.get('name') or ''} {ref.get('namespace') or ''}" + "}"


def _go_list(values: Sequence[Any] | None) -> str:
    return "[" + " ".join(str(v) for v in values or ()) + "]"


# (spec field, the source's Type line, [(label, function of the source)]), in describePersistentVolume's order
_SOURCES: tuple[tuple[str, str, tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...]], ...] = (
    ("hostPath", "HostPath (bare host directory volume)",
     (("Path:", lambda s: _go(s.get("path"))), ("HostPathType:", lambda s: _none_or(s.get("type"))))),
    ("gcePersistentDisk", "GCEPersistentDisk (a Persistent Disk resource in Google Compute Engine)",
     (("PDName:", lambda s: _go(s.get("pdName"))), ("FSType:", lambda s: _go(s.get("fsType"))),
      ("Partition:", lambda s: str(s.get("partition") or 0)), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("awsElasticBlockStore", "AWSElasticBlockStore (a Persistent Disk resource in AWS)",
     (("VolumeID:", lambda s: _go(s.get("volumeID"))), ("FSType:", lambda s: _go(s.get("fsType"))),
      ("Partition:", lambda s: str(s.get("partition") or 0)), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("nfs", "NFS (an NFS mount that lasts the lifetime of a pod)",
     (("Server:", lambda s: _go(s.get("server"))), ("Path:", lambda s: _go(s.get("path"))),
      ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("iscsi", "ISCSI (an ISCSI Disk resource that is attached to a kubelet's host machine and then exposed to the pod)",
     (("TargetPortal:", lambda s: _go(s.get("targetPortal"))), ("IQN:", lambda s: _go(s.get("iqn"))),
      ("Lun:", lambda s: str(s.get("lun") or 0)), ("ISCSIInterface", lambda s: _go(s.get("iscsiInterface"))),
      ("FSType:", lambda s: _go(s.get("fsType"))), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))),
      ("Portals:", lambda s: _go_list(s.get("portals"))),
      ("DiscoveryCHAPAuth:", lambda s: _go(bool(s.get("chapAuthDiscovery")))),
      ("SessionCHAPAuth:", lambda s: _go(bool(s.get("chapAuthSession")))),
      ("SecretRef:", lambda s: _secret_ref(s.get("secretRef"))), ("InitiatorName:", lambda s: _none_or(s.get("initiatorName"))))),
    ("glusterfs", "Glusterfs (a Glusterfs mount on the host that shares a pod's lifetime)",
     (("EndpointsName:", lambda s: _go(s.get("endpoints"))),
      ("EndpointsNamespace:", lambda s: "<unset>" if s.get("endpointsNamespace") is None else str(s["endpointsNamespace"])),
      ("Path:", lambda s: _go(s.get("path"))), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("rbd", "RBD (a Rados Block Device mount on the host that shares a pod's lifetime)",
     (("CephMonitors:", lambda s: _go_list(s.get("monitors"))), ("RBDImage:", lambda s: _go(s.get("image"))),
      ("FSType:", lambda s: _go(s.get("fsType"))), ("RBDPool:", lambda s: _go(s.get("pool"))),
      ("RadosUser:", lambda s: _go(s.get("user"))), ("Keyring:", lambda s: _go(s.get("keyring"))),
      ("SecretRef:", lambda s: _secret_ref(s.get("secretRef"))), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("quobyte", "Quobyte (a Quobyte mount on the host that shares a pod's lifetime)",
     (("Registry:", lambda s: _go(s.get("registry"))), ("Volume:", lambda s: _go(s.get("volume"))),
      ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("vsphereVolume", "vSphereVolume (a Persistent Disk resource in vSphere)",
     (("VolumePath:", lambda s: _go(s.get("volumePath"))), ("FSType:", lambda s: _go(s.get("fsType"))),
      ("StoragePolicyName:", lambda s: _go(s.get("storagePolicyName"))))),
    ("cinder", "Cinder (a Persistent Disk resource in OpenStack)",
     (("VolumeID:", lambda s: _go(s.get("volumeID"))), ("FSType:", lambda s: _go(s.get("fsType"))),
      ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))), ("SecretRef:", lambda s: _secret_ref(s.get("secretRef"))))),
    ("local", "LocalVolume (a persistent volume backed by local storage on a node)",
     (("Path:", lambda s: _go(s.get("path"))),)),
    ("fc", "FC (a Fibre Channel disk)",
     (("TargetWWNs:", lambda s: ", ".join(s.get("targetWWNs") or ())), ("LUN:", lambda s: _none_or(s.get("lun"))),
      ("FSType:", lambda s: _go(s.get("fsType"))), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
    ("csi", "CSI (a Container Storage Interface (CSI) volume source)",
     (("Driver:", lambda s: _go(s.get("driver"))), ("FSType:", lambda s: _go(s.get("fsType"))),
      ("VolumeHandle:", lambda s: _go(s.get("volumeHandle"))), ("ReadOnly:", lambda s: _go(bool(s.get("readOnly")))))),
)


def _volume_source(w: _W, spec: Mapping[str, Any]) -> None:
    """describePersistentVolume's switch on the source (the kinds the simulator's documents
    use; another prints `<unknown>`, as kubectl prints a source it does not know)."""
    for field, title, rows in _SOURCES:
        source = spec.get(field)
        if source is None:
            continue
        w.write(2, f"Type:\t{title}\n")
        for label, value in rows:
            w.write(2, f"{label}\t{value(source)}\n")
        if field == "csi":
            _csi_attributes(w, source.get("volumeAttributes") or {})
        return
    w.write(1, "<unknown>\n")


def _csi_attributes(w: _W, attributes: Mapping[str, Any]) -> None:
    """printCSIPersistentVolumeAttributesMultiline."""
    w.write(2, "VolumeAttributes:\t")
    if not attributes:
        w.text.append("<none>\n")
        return
    for i, key in enumerate(sorted(attributes)):
        if i:  # kubectl writes the indent and the tab each at LEVEL_2, and the line too
            w.write(2, "")
            w.write(2, "\t")
        line = f"{key}={attributes[key]}"
        w.write(2, (line[:MAX_ANNOTATION_LEN] + "..." if len(line) > MAX_ANNOTATION_LEN else line) + "\n")


def _node_affinity(w: _W, affinity: Mapping[str, Any] | None) -> None:
    """printVolumeNodeAffinity with printNodeSelectorTermsMultilineWithIndent."""
    required = (affinity or {}).get("required")
    if required is None:
        w.write(0, "Node Affinity:\t<none>\n")
        return
    w.write(0, "Node Affinity:\t\n")
    terms = required.get("nodeSelectorTerms") or []
    if not terms:
        w.write(1, "Required Terms:\t<none>\n")
        return
    w.write(1, "Required Terms:\t\n")
    for i, term in enumerate(terms):
        expressions = term.get("matchExpressions") or []
        w.write(2, f"Term {i}:\t")
        if not expressions:
            w.text.append("<none>\n")
        for j, req in enumerate(expressions):
            if j:
                w.write(2, "\t")
            text = f"{req.get('key') or ''} {str(req.get('operator') or '').lower()}"
            if req.get("values"):
                text += f" [{', '.join(req['values'])}]"
            w.text.append(text + "\n")


def describe_persistent_volume(store: Store, pv: Doc, now: float) -> str:
    """describePersistentVolume."""
    w = _W()
    m, spec, status = _meta(pv), pv.get("spec") or {}, pv.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Finalizers:\t{_go_list(m.get('finalizers'))}\n")
    w.write(0, f"StorageClass:\t{_volume_class(pv)}\n")
    _terminating(w, m, status.get("phase"), now)
    claim = spec.get("claimRef")
    w.write(0, f"Claim:\t{(claim.get('namespace') or '') + '/' + (claim.get('name') or '') if claim else ''}\n")
    w.write(0, f"Reclaim Policy:\t{spec.get('persistentVolumeReclaimPolicy') or ''}\n")
    w.write(0, f"Access Modes:\t{_access_modes(spec.get('accessModes'))}\n")
    if spec.get("volumeMode") is not None:
        w.write(0, f"VolumeMode:\t{spec['volumeMode']}\n")
    w.write(0, f"Capacity:\t{_quantity((spec.get('capacity') or {}).get('storage'))}\n")
    _node_affinity(w, spec.get("nodeAffinity"))
    w.write(0, f"Message:\t{status.get('message') or ''}\n")
    w.write(0, "Source:\n")
    _volume_source(w, spec)
    _events_of(w, store, "PersistentVolume", pv, now)
    return w.render()


def _pods_using(store: Store, pvc: Doc) -> list[str]:
    """getPodsForPVC: the pods of the namespace with a volume of the claim, then the pods that
    own it; printPodsMultiline sorts them by name."""
    m = _meta(pvc)
    pods = _pods_of(store, m.get("namespace") or "default")
    using = [p for p in pods for v in (p.get("spec") or {}).get("volumes") or ()
             if (v.get("persistentVolumeClaim") or {}).get("claimName") == m.get("name")]
    for ref in m.get("ownerReferences") or ():
        if ref.get("kind") == "Pod":
            owner = next((p for p in pods if _meta(p).get("uid") == ref.get("uid")), None)
            if owner is not None and owner not in using:
                using.append(owner)
    return sorted(_meta(p).get("name") or "" for p in using)


def describe_persistent_volume_claim(store: Store, pvc: Doc, now: float) -> str:
    """describePersistentVolumeClaim with printPersistentVolumeClaim (a full claim)."""
    w = _W()
    m, spec, status = _meta(pvc), pvc.get("spec") or {}, pvc.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"StorageClass:\t{_claim_class(pvc)}\n")
    _terminating(w, m, status.get("phase"), now)
    w.write(0, f"Volume:\t{spec.get('volumeName') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Finalizers:\t{_go_list(m.get('finalizers'))}\n")
    capacity = access = ""
    if spec.get("volumeName"):
        access = _access_modes(status.get("accessModes"))
        capacity = _quantity((status.get("capacity") or {}).get("storage"))
    w.write(0, f"Capacity:\t{capacity}\n")
    w.write(0, f"Access Modes:\t{access}\n")
    if spec.get("volumeMode") is not None:
        w.write(0, f"VolumeMode:\t{spec['volumeMode']}\n")
    source = spec.get("dataSource")
    if source is not None:
        w.write(0, "DataSource:\n")
        if source.get("apiGroup") is not None:
            w.write(1, f"APIGroup:\t{source['apiGroup']}\n")
        w.write(1, f"Kind:\t{source.get('kind') or ''}\n")
        w.write(1, f"Name:\t{source.get('name') or ''}\n")
    pods = _pods_using(store, pvc)
    w.write(0, "Used By:\t" + ("\n\t".join(pods) if pods else NONE) + "\n")
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{c.get('type') or ''} \t{c.get('status') or ''} \t{rfc1123z(c.get('lastProbeTime'))} \t"
                       f"{rfc1123z(c.get('lastTransitionTime'))} \t{c.get('reason') or ''} \t{c.get('message') or ''}\n")
    _events_of(w, store, "PersistentVolumeClaim", pvc, now)
    return w.render()


def _default_class_text(m: Mapping[str, Any]) -> str:
    """storageutil.IsDefaultAnnotationText: the GA annotation, then the beta one."""
    annotations = m.get("annotations") or {}
    for key in ("storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"):
        if annotations.get(key) == "true":
            return "Yes"
    return "No"


def describe_storage_class(store: Store, sc: Doc, now: float) -> str:
    """describeStorageClass."""
    w = _W()
    m = _meta(sc)
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"IsDefaultClass:\t{_default_class_text(m)}\n")
    w.write(0, f"Annotations:\t{_format_labels(m.get('annotations'))}\n")
    w.write(0, f"Provisioner:\t{sc.get('provisioner') or ''}\n")
    w.write(0, f"Parameters:\t{_format_labels(sc.get('parameters'))}\n")
    expansion = sc.get("allowVolumeExpansion")
    w.write(0, f"AllowVolumeExpansion:\t{'<unset>' if expansion is None else ('True' if expansion else 'False')}\n")
    options = sc.get("mountOptions") or []
    if not options:
        w.write(0, "MountOptions:\t<none>\n")
    else:
        w.write(0, "MountOptions:\n")
        for option in options:
            w.write(1, f"{option}\n")
    if sc.get("reclaimPolicy") is not None:
        w.write(0, f"ReclaimPolicy:\t{sc['reclaimPolicy']}\n")
    if sc.get("volumeBindingMode") is not None:
        w.write(0, f"VolumeBindingMode:\t{sc['volumeBindingMode']}\n")
    topologies = sc.get("allowedTopologies")
    if topologies is not None:
        _allowed_topologies(w, topologies)
    _events_of(w, store, "StorageClass", sc, now)
    return w.render()


def _allowed_topologies(w: _W, topologies: Sequence[Mapping[str, Any]]) -> None:
    """printAllowedTopologies with printTopologySelectorTermsMultilineWithIndent."""
    if not topologies:
        w.write(0, "AllowedTopologies:\t<none>\n")
        return
    w.write(0, "AllowedTopologies:\t\n")
    for i, term in enumerate(topologies):
        expressions = term.get("matchLabelExpressions") or []
        w.write(1, f"Term {i}:\t")
        if not expressions:
            w.text.append("<none>\n")
        for j, req in enumerate(expressions):
            if j:
                w.write(1, "\t")
            w.text.append(f"{req.get('key') or ''} in [{', '.join(req.get('values') or ())}]\n")


def describe_config_map(store: Store, cm: Doc, now: float) -> str:
    """ConfigMapDescriber: the data, sorted by key, then the binary data's sizes."""
    w = _W()
    m = _meta(cm)
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, "\nData\n====\n")
    data = cm.get("data") or {}
    for key in sorted(data):
        w.write(0, f"{key}:\n----\n")
        w.write(0, f"{data[key]}\n")
        w.write(0, "\n")
    w.write(0, "\nBinaryData\n====\n")
    binary = cm.get("binaryData") or {}
    for key in sorted(binary):
        w.write(0, f"{key}: {_decoded_length(binary[key])} bytes\n")
    w.write(0, "\n")
    _events_of(w, store, "ConfigMap", cm, now)
    return w.render()


def _decoded_length(value: Any) -> int:
    """The length of a binaryData value (base64 in the document)."""
    text = str(value or "").strip()
    return len(text) * 3 // 4 - text[-2:].count("=") if text else 0
