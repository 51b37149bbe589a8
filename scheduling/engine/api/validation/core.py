"""The core API group (v1): Pod, Node, Namespace, Service, ReplicationController,
PersistentVolume and PersistentVolumeClaim (pkg/apis/core/validation).
"""

from __future__ import annotations

import ipaddress
import json

from scheduling.engine.api import quantity
from scheduling.engine.api.validation.field import (
    Errors,
    GoValue,
    as_int,
    as_str,
    child_path,
    dict_at,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    duplicate,
    forbidden,
    get_at,
    go_quote,
    go_resource_list,
    index_path,
    invalid,
    is_valid_port_name,
    is_valid_port_num,
    key_path,
    list_at,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_supported,
    required_value,
    str_at,
)
from scheduling.engine.api.validation.common import (
    SUPPORTED_PROTOCOLS,
    is_hugepages,
    parse_resource,
    selector_mismatch,
    set_as_selector,
    template_restart_and_deadline,
    validate_label_selector,
    validate_labels,
    validate_node_selector,
    validate_nonnegative,
    validate_object_meta,
    validate_pod_spec,
    validate_pod_template_spec,
    validate_quantity_value,
    validate_taints_into,
)


# ==========================================================================
# 8. Kinds
# ==========================================================================


def validate_pod(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    validate_pod_spec(dict_at(doc, "spec"), "spec", errs)


def validate_node(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), False, name_is_dns_subdomain, errs)
    taints = list_at(dict_at(doc, "spec"), "taints")
    if taints:
        # Upstream quirk kept on purpose: ValidateNode builds the taints path from
        # "metadata", so the API server reports spec.taints errors as
        # metadata.taints[i] (observed: 'Node "x" is invalid: metadata.taints[1]:
        # Duplicate value: core.Taint{...}').
        validate_taints_into(taints, "metadata.taints", errs)
    status = dict_at(doc, "status")
    for section in ("capacity", "allocatable"):
        hugepage_sizes: set[str] = set()
        for name, raw in dict_at(status, section).items():
            res_path = f"status.{section}.{name}"  # Child(name), not Key(name)
            q = parse_resource(raw, res_path, errs)
            if q is None:
                continue
            validate_quantity_value(name, q, res_path, errs)
            if is_hugepages(name) and q.int_value() > 0:
                hugepage_sizes.add(name)
            if len(hugepage_sizes) > 1:
                errs.append(
                    invalid(
                        res_path, GoValue(q.go_repr()), "may not have pre-allocated hugepages for multiple page sizes"
                    )
                )
    pod_cidr = str_at(dict_at(doc, "spec"), "podCIDR")
    if pod_cidr and not _is_cidr(pod_cidr):
        errs.append(invalid("spec.podCIDR", pod_cidr, "not a valid CIDR"))


def _is_cidr(text: str) -> bool:
    if "/" not in text:
        return False
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


def validate_namespace(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), False, name_is_dns_label, errs)


_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")  # sets.List() order
_KUBELET_PORT = 10250


def validate_service(doc: dict, errs: Errors) -> None:
    """``ValidateService`` (defaults applied: type ClusterIP, sessionAffinity None,
    protocol TCP, targetPort = port)."""
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns1035_label, errs)
    spec = dict_at(doc, "spec")
    ports = list_at(spec, "ports")
    cluster_ip = str_at(spec, "clusterIP")
    headless = cluster_ip == "None"
    service_type = str_at(spec, "type") or "ClusterIP"
    if not ports and not headless and service_type != "ExternalName":
        errs.append(required_value("spec.ports"))
    if service_type == "LoadBalancer":
        for i, port in enumerate(ports):
            if as_int(get_at(port, "port", 0)) == _KUBELET_PORT:
                errs.append(
                    invalid(
                        index_path("spec.ports", i),
                        _KUBELET_PORT,
                        f"may not expose port {_KUBELET_PORT} externally since it is used by kubelet",
                    )
                )
        if headless:
            errs.append(invalid("spec.clusterIP", cluster_ip, "may not be set to 'None' for LoadBalancer services"))
    elif service_type == "NodePort" and headless:
        errs.append(invalid("spec.clusterIP", cluster_ip, "may not be set to 'None' for NodePort services"))
    elif service_type == "ExternalName":
        if cluster_ip:
            errs.append(forbidden("spec.clusterIP", "must be empty for ExternalName services"))
        external_name = str_at(spec, "externalName")
        if external_name:
            for msg in dns1123_subdomain_errors(external_name):
                errs.append(invalid("spec.externalName", external_name, msg))
        else:
            errs.append(required_value("spec.externalName"))

    port_names: set[str] = set()
    for i, port in enumerate(ports):
        port_path = index_path("spec.ports", i)
        name = str_at(port, "name")
        if len(ports) > 1 and not name:
            errs.append(required_value(child_path(port_path, "name")))
        elif name:
            for msg in dns1123_label_errors(name):
                errs.append(invalid(child_path(port_path, "name"), name, msg))
            if name in port_names:
                errs.append(duplicate(child_path(port_path, "name"), name))
            else:
                port_names.add(name)
        number = as_int(get_at(port, "port", 0))
        for msg in is_valid_port_num(number):
            errs.append(invalid(child_path(port_path, "port"), number, msg))
        protocol = str_at(port, "protocol")
        if protocol and protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child_path(port_path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
        target = get_at(port, "targetPort")
        if target in (None, 0, ""):
            target = number
        if isinstance(target, str):
            for msg in is_valid_port_name(target):
                errs.append(invalid(child_path(port_path, "targetPort"), target, msg))
        else:
            for msg in is_valid_port_num(as_int(target)):
                errs.append(invalid(child_path(port_path, "targetPort"), as_int(target), msg))

    if isinstance(get_at(spec, "selector"), dict):
        validate_labels(dict_at(spec, "selector"), "spec.selector", errs)
    affinity = str_at(spec, "sessionAffinity")
    if affinity and affinity not in ("ClientIP", "None"):
        errs.append(not_supported("spec.sessionAffinity", affinity, ("ClientIP", "None")))
    if cluster_ip and not headless:
        try:
            ipaddress.ip_address(cluster_ip)
        except ValueError:
            errs.append(invalid("spec.clusterIP", cluster_ip, "must be empty, 'None', or a valid IP address"))
    if str_at(spec, "type") and service_type not in _SERVICE_TYPES:
        errs.append(not_supported("spec.type", service_type, _SERVICE_TYPES))
    if service_type == "ClusterIP":
        for i, port in enumerate(ports):
            if as_int(get_at(port, "nodePort", 0)) != 0:
                node_port_path = child_path(index_path("spec.ports", i), "nodePort")
                errs.append(forbidden(node_port_path, "may not be used when `type` is 'ClusterIP'"))
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        node_port = as_int(get_at(port, "nodePort", 0))
        if node_port == 0:
            continue
        key = (str_at(port, "protocol") or "TCP", node_port)
        if key in node_ports:
            errs.append(duplicate(child_path(index_path("spec.ports", i), "nodePort"), node_port))
        node_ports.add(key)
    seen_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        protocol, number = str_at(port, "protocol") or "TCP", as_int(get_at(port, "port", 0))
        if (protocol, number) in seen_ports:
            errs.append(
                duplicate(
                    index_path("spec.ports", i),
                    GoValue(
                        f'core.ServicePort{{Name:"", Protocol:{go_quote(protocol)}, Port:{number}, '
                        f'TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:""}}, NodePort:0}}'
                    ),
                )
            )
        seen_ports.add((protocol, number))


def validate_replication_controller(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    template = get_at(spec, "template")
    template_labels = get_at(dict_at(template, "metadata"), "labels") if isinstance(template, dict) else None
    selector = dict_at(spec, "selector")
    if not selector and isinstance(template_labels, dict):
        selector = template_labels  # v1 defaulting: selector := template labels
    validate_nonnegative(get_at(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    as_selector = set_as_selector(selector)
    if as_selector.empty():
        errs.append(required_value("spec.selector"))
    validate_nonnegative(get_at(spec, "replicas"), "spec.replicas", errs)
    if not isinstance(template, dict):
        errs.append(required_value("spec.template"))
        return
    if not as_selector.empty() and not as_selector.matches(template_labels or {}):
        errs.append(selector_mismatch(template))
    validate_pod_template_spec(template, "spec.template", errs)
    template_restart_and_deadline(template, "spec.template", errs)


_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce")  # sets.List() order
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
# PV volume sources in the order ValidatePersistentVolume checks them, with the
# path it names when a second one is given (note "cephFS").
_PV_SOURCES = (
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephFS"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", None),  # never "more than 1 volume type" upstream
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
)


def validate_persistent_volume(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), False, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    modes = list_at(spec, "accessModes")
    if not modes:
        errs.append(required_value("spec.accessModes"))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(not_supported("spec.accessModes", as_str(mode), _ACCESS_MODES))
    capacity = dict_at(spec, "capacity")
    if not capacity:
        errs.append(required_value("spec.capacity"))
    parsed: dict[str, quantity.Quantity] = {}
    for name, raw in capacity.items():
        q = parse_resource(raw, key_path("spec.capacity", name), errs)
        if q is not None:
            parsed[name] = q
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(not_supported("spec.capacity", go_resource_list(parsed), ("storage",)))
    for name, q in parsed.items():
        path = key_path("spec.capacity", name)
        if q.int_value() < 0:
            errs.append(invalid(path, q.int_value(), "must be a valid resource quantity"))
        if q.value <= 0:
            errs.append(invalid(path, q.string(), "must be greater than zero"))
    policy = str_at(spec, "persistentVolumeReclaimPolicy")
    if policy and policy not in _RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES))
    node_affinity = get_at(spec, "nodeAffinity")
    if isinstance(node_affinity, dict):
        required = get_at(node_affinity, "required")
        if isinstance(required, dict):
            validate_node_selector(required, "spec.nodeAffinity.required", errs)
        else:
            errs.append(required_value("spec.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for key, forbidden_path in _PV_SOURCES:
        source = get_at(spec, key)
        if not isinstance(source, dict):
            continue
        if count > 0 and forbidden_path is not None:
            errs.append(forbidden(f"spec.{forbidden_path}", "may not specify more than 1 volume type"))
            continue
        count += 1
        if key == "hostPath":
            host_path = str_at(source, "path")
            if not host_path:
                errs.append(required_value("spec.hostPath.path"))
            elif ".." in host_path.replace("\\", "/").split("/"):
                errs.append(invalid("spec.hostPath.path", host_path, "must not contain '..'"))
        elif key == "nfs":
            if not str_at(source, "server"):
                errs.append(required_value("spec.nfs.server"))
            nfs_path = str_at(source, "path")
            if not nfs_path:
                errs.append(required_value("spec.nfs.path"))
            if not nfs_path.startswith("/"):
                errs.append(invalid("spec.nfs.path", nfs_path, "must be an absolute path"))
        elif key == "local":
            if not str_at(source, "path"):
                errs.append(required_value("spec.local.path"))
            if not isinstance(node_affinity, dict):
                errs.append(required_value("metadata.annotations", "Local volume requires node affinity"))
    if count == 0:
        errs.append(required_value("spec", "must specify a volume type"))
    host_path = get_at(spec, "hostPath")
    if isinstance(host_path, dict) and str_at(host_path, "path").rstrip("/") == "" and str_at(host_path, "path"):
        if policy == "Recycle":
            detail = "may not be 'recycle' for a hostPath mount of '/'"
            errs.append(forbidden("spec.persistentVolumeReclaimPolicy", detail))
    storage_class = str_at(spec, "storageClassName")
    if storage_class:
        for msg in dns1123_subdomain_errors(storage_class):
            errs.append(invalid("spec.storageClassName", storage_class, msg))


def validate_persistent_volume_claim(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    modes = list_at(spec, "accessModes")
    if not modes:
        errs.append(required_value("spec.accessModes", "at least 1 access mode is required"))
    selector = get_at(spec, "selector")
    if isinstance(selector, dict):
        validate_label_selector(selector, "spec.selector", errs)
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(not_supported("spec.accessModes", as_str(mode), _ACCESS_MODES))
    requests = dict_at(dict_at(spec, "resources"), "requests")
    # sic: upstream names this path spec.resources[storage]
    storage_path = "spec.resources[storage]"
    if "storage" not in requests:
        errs.append(required_value(storage_path))
    else:
        q = parse_resource(requests["storage"], "spec.resources.requests[storage]", errs)
        if q is not None:
            validate_quantity_value("storage", q, storage_path, errs)
            if q.value <= 0:
                errs.append(invalid(storage_path, q.string(), "must be greater than zero"))
    storage_class = str_at(spec, "storageClassName")
    if storage_class:
        for msg in dns1123_subdomain_errors(storage_class):
            errs.append(invalid("spec.storageClassName", storage_class, msg))


# --- updates (ValidatePodUpdate, 1.11) --------------------------------------------------------

MAX_INT32 = 2**31 - 1
POD_UPDATE_FORBIDDEN = (
    "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, "
    "`spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)"
)


def validate_pod_update(new: dict, old: dict, errs: Errors) -> None:
    """``ValidatePodUpdate`` (pkg/apis/core/validation, Kubernetes 1.11): what a user's
    update of a pod may change (images, a shorter activeDeadlineSeconds, added tolerations
    and tolerationSeconds), in the Go order, each check stopping where Go returns.

    ``ValidateObjectMetaUpdate`` and the pod annotation rules are not simulated (the
    store keeps name, namespace and uid). The Forbidden message ends, as upstream, with
    ``diff.ObjectDiff`` of the changed and the stored spec: the common prefix of their
    JSON, then ``A:`` the rest of the update and ``B:`` the rest of the stored spec.
    Departure: the JSON is the v1 document's (its field names, the fields it sets, in the
    v1 structs' order), where Go marshals the internal ``core.PodSpec`` (Go field names,
    every field, nulls included).
    """
    spec, old_spec = dict_at(new, "spec"), dict_at(old, "spec")
    for field_name in ("containers", "initContainers"):
        containers, old_containers = list_at(spec, field_name), list_at(old_spec, field_name)
        path = f"spec.{field_name}"
        if len(containers) != len(old_containers):
            errs.append(forbidden(path, "pod updates may not add or remove containers"))
            return
        for i, container in enumerate(containers):
            if not str_at(container, "image"):
                errs.append(required_value(f"{index_path(path, i)}.image", ""))
    deadline, old_deadline = spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if deadline is not None:
        value = as_int(deadline)
        if value is not None and (value < 0 or value > MAX_INT32):
            errs.append(invalid("spec.activeDeadlineSeconds", value, f"must be between 0 and {MAX_INT32}, inclusive"))
            return
        if old_deadline is not None and value is not None and as_int(old_deadline) < value:
            errs.append(invalid("spec.activeDeadlineSeconds", value, "must be less than or equal to previous value"))
            return
    elif old_deadline is not None:
        errs.append(invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value"))
    munged = dict(spec)
    for field_name in ("containers", "initContainers"):
        if field_name in spec or field_name in old_spec:
            old_containers = list_at(old_spec, field_name)
            munged[field_name] = [
                {**c, "image": old_containers[i].get("image")} if isinstance(c, dict) else c
                for i, c in enumerate(list_at(spec, field_name))
            ]
    for field_name in ("activeDeadlineSeconds", "tolerations"):  # the stored ones, in the update's place
        if field_name in old_spec:
            munged[field_name] = old_spec[field_name]
        else:
            munged.pop(field_name, None)
    _only_added_tolerations(list_at(spec, "tolerations"), list_at(old_spec, "tolerations"), errs)
    if _semantic(munged) != _semantic(old_spec):
        errs.append(forbidden("spec", f"{POD_UPDATE_FORBIDDEN}\n{object_diff(munged, old_spec)}"))


def _only_added_tolerations(tolerations: list, old_tolerations: list, errs: Errors) -> None:
    """``validateOnlyAddedTolerations``: every stored toleration is still there, only its
    tolerationSeconds may differ (then ``ValidateTolerations`` of the new list, which
    ``ValidatePod`` has already reported for a pod: not repeated here)."""
    def without_seconds(t: object) -> object:
        return {k: v for k, v in t.items() if k != "tolerationSeconds"} if isinstance(t, dict) else t

    new = [_semantic(without_seconds(t)) for t in tolerations]
    for old in old_tolerations:
        if _semantic(without_seconds(old)) not in new:
            errs.append(forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"))
            return


_RESOURCE_KEYS = frozenset({"limits", "requests", "capacity"})


def _semantic(value: object, key: str = "") -> object:
    """What ``apiequality.Semantic.DeepEqual`` compares: quantities by value, zero and
    absent fields alike (both decode to Go's zero value), empty and missing lists and maps
    alike."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if key in _RESOURCE_KEYS and isinstance(v, (str, int, float)):
                try:
                    out[k] = quantity.stored_milli_value(v)
                    continue
                except (ValueError, ArithmeticError):
                    pass
            s = _semantic(v, k)
            if s not in (None, "", False, (), frozenset()):
                out[k] = s
        return frozenset(out.items()) if out else frozenset()
    if isinstance(value, list):
        return tuple(_semantic(v) for v in value)
    return value


# Field order of the structs json.Marshal walks (k8s.io/api core/v1 types.go); every other
# object, and every map (Go sorts map keys), is written with sorted keys.
_POD_SPEC_FIELDS = (
    "volumes", "initContainers", "containers", "restartPolicy", "terminationGracePeriodSeconds",
    "activeDeadlineSeconds", "dnsPolicy", "nodeSelector", "serviceAccountName", "serviceAccount",
    "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace",
    "securityContext", "imagePullSecrets", "hostname", "subdomain", "affinity", "schedulerName", "tolerations",
    "hostAliases", "priorityClassName", "priority", "dnsConfig", "readinessGates",
)
_CONTAINER_FIELDS = (
    "name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "volumeMounts",
    "volumeDevices", "livenessProbe", "readinessProbe", "lifecycle", "terminationMessagePath",
    "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty",
)
_TOLERATION_FIELDS = ("key", "operator", "value", "effect", "tolerationSeconds")
_STRUCT_FIELDS = {"containers": _CONTAINER_FIELDS, "initContainers": _CONTAINER_FIELDS, "tolerations": _TOLERATION_FIELDS}


def _go_ordered(value: object, fields: tuple = ()) -> object:
    """`value` with its keys in the order Go marshals them: a known struct's fields in
    declaration order (then any others, sorted), everything else sorted."""
    if isinstance(value, list):
        return [_go_ordered(v, fields) for v in value]
    if not isinstance(value, dict):
        return value
    rank = {name: i for i, name in enumerate(fields)}
    keys = sorted(value, key=lambda k: (rank.get(k, len(rank)), str(k)))
    return {k: _go_ordered(value[k], _STRUCT_FIELDS.get(k, ()) if fields is _POD_SPEC_FIELDS else ()) for k in keys}


def _go_json(value: object) -> str:
    """``json.Marshal`` of a decoded pod spec: compact, fields in Go's order, HTML
    characters escaped."""
    text = json.dumps(_go_ordered(value, _POD_SPEC_FIELDS), separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def object_diff(a: object, b: object) -> str:
    """``diff.ObjectDiff`` (apimachinery pkg/util/diff, 1.11): both marshalled to JSON,
    the common prefix, then ``A: `` the rest of a and ``B: `` the rest of b."""
    ja, jb = _go_json(a), _go_json(b)
    i = 0
    while i < len(ja) and i < len(jb) and ja[i] == jb[i]:
        i += 1
    return f"{ja[:i]}\n\nA: {ja[i:]}\n\nB: {jb[i:]}\n\n"
