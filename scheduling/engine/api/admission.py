"""Admission plugins over documents, each switchable by name (all on by default).

Each plugin is `fn(doc, priority_classes) -> doc` (a copy; other kinds pass through
unchanged), the shape of engine.simulate's ADMISSION_PLUGINS hook, in the order the API
server runs them:

* `PodTolerationRestriction` (plugin/pkg/admission/podtolerationrestriction, 1.11): a pod
  whose QoS class is not BestEffort gets `node.kubernetes.io/memory-pressure` Exists
  NoSchedule, merged with `MergeTolerations` (the OpenShift 4 taint-based evictions note on
  memory pressure). The namespace
  whitelists/defaults of that plugin are not simulated.
* `Priority` (engine.api.priority.priority_admission): spec.priority from priorityClassName.
* `DefaultTolerationSeconds` (plugin/pkg/admission/defaulttolerationseconds, 1.11): adds
  `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable` Exists NoExecute
  for 300 s, each unless the pod already has a toleration whose key is that key or empty
  AND whose effect is NoExecute or empty (operator and value are not looked at).
* `DaemonSetTolerations`: what the DaemonSet controller adds to the pods it creates
  (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations), applied to pods whose
  controller is a DaemonSet: not-ready and unreachable NoExecute without seconds;
  disk-pressure, memory-pressure and unschedulable NoSchedule; network-unavailable
  NoSchedule for host-network pods (the list of the OpenShift 4 documentation on DaemonSet
  tolerations).
* `ControlPlaneTaint` (a node admission): a node labelled node-role.kubernetes.io/master
  gets the `node-role.kubernetes.io/master:NoSchedule` taint unless it has that key and
  effect (the control plane taint is "added by default" in OpenShift 4; the installer
  registers masters with it).

Before them, when a NodeSelectionContext is given, the node-selection plugins of
engine.api.node_selection_admission: PodNodeConstraints, OriginPodNodeEnvironment (the
project node selector) and PodNodeSelector.

`admit_update(doc, old, enabled)` is the chain on UPDATE of a stored object (a user's
`oc replace`/`oc apply`, the editor, an import over an existing object). In 1.11 the plugins
that handle Update (`admission.NewHandler(admission.Create, admission.Update)`) and mutate an
update of a pod are PodTolerationRestriction (the memory-pressure toleration again; the
namespace defaults only on Create), Priority (an update without spec.priority keeps the
stored one) and DefaultTolerationSeconds (the 300 s not-ready/unreachable tolerations
again). The others do nothing on a pod update: PodNodeConstraints checks only Create of
pods, OriginPodNodeEnvironment handles only Create, PodNodeSelector handles Update but its
Admit returns at once for an initialized pod and its Validate (the namespace conflict and
whitelist check) is not simulated on update (ValidatePodUpdate already forbids changing
spec.nodeSelector); DaemonSetTolerations is the DaemonSet controller's, not an admission
plugin; ControlPlaneTaint (nodes) runs on create only.

`admit_documents(docs, enabled)` runs them over a list; `enabled` maps plugin names to
booleans (missing names are on). Priority always runs in engine.simulate (see there).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from scheduling.engine.api import node_selection_admission as node_selection
from scheduling.engine.api.objects import PriorityClass, pod_qos_class
from scheduling.engine.api.priority import priority_admission
from scheduling.engine.store import controller_ref, document_copy

TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_OUT_OF_DISK = "node.kubernetes.io/out-of-disk"
MASTER_ROLE_LABEL = "node-role.kubernetes.io/master"
MASTER_TAINT = {"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}

DEFAULT_NOT_READY_TOLERATION_SECONDS = 300
DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300

Plugin = Callable[[Mapping[str, Any], Sequence[PriorityClass]], dict]


# --- toleration helpers (k8s.io/kubernetes pkg/apis/core/v1/helper, pkg/util/tolerations) ----------


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Toleration.MatchToleration: same key, operator, value and effect."""
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value", "effect"))


def _semantic(t: Mapping[str, Any]) -> tuple:
    return tuple((t.get(k) or "") for k in ("key", "operator", "value", "effect")) + (t.get("tolerationSeconds"),)


def add_or_update_toleration(tolerations: list, toleration: Mapping[str, Any]) -> list:
    """AddOrUpdateTolerationInPodSpec: replace a toleration that MatchToleration()es
    (same key/operator/value/effect) in place, else append."""
    out: list = []
    updated = False
    for t in tolerations:
        if _same_toleration(t, toleration):
            if _semantic(t) == _semantic(toleration):
                return list(tolerations)
            out.append(dict(toleration))
            updated = True
            continue
        out.append(t)
    if not updated:
        out.append(dict(toleration))
    return out


def _is_superset(ss: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """isSuperset (pkg/util/tolerations, 1.11): does `ss` tolerate everything `t` does?"""
    if _semantic(ss) == _semantic(t):
        return True
    ss_key, t_key = ss.get("key") or "", t.get("key") or ""
    if t_key != ss_key and (ss_key != "" or ss.get("operator") != "Exists"):
        return False
    ss_effect, t_effect = ss.get("effect") or "", t.get("effect") or ""
    if t_effect != ss_effect and ss_effect != "":
        return False
    if ss_effect == "NoExecute" and ss.get("tolerationSeconds") is not None:
        if t.get("tolerationSeconds") is None or t["tolerationSeconds"] > ss["tolerationSeconds"]:
            return False
    op = ss.get("operator") or ""
    if op in ("Equal", ""):
        return t.get("operator") == "Equal" and (t.get("value") or "") == (ss.get("value") or "")
    if op == "Exists":
        return True
    return False


def merge_tolerations(first: Sequence[Mapping[str, Any]], second: Sequence[Mapping[str, Any]]) -> list:
    """MergeTolerations (1.11), remembered per the lists' contents: the pods of one
    template ask the same question thousands of times (`_merge_tolerations`)."""
    try:
        key = (tuple(tuple(t.items()) for t in first), tuple(tuple(t.items()) for t in second))
        merged = _MERGED.get(key)
    except TypeError:  # a value that is not hashable: not remembered
        return _merge_tolerations(first, second)
    if merged is None:
        if len(_MERGED) >= _MERGED_MAX:
            _MERGED.clear()
        merged = _MERGED[key] = tuple(tuple(t.items()) for t in _merge_tolerations(first, second))
    return [dict(items) for items in merged]


_MERGED: dict = {}  # (first, second) as items -> the merged list as items
_MERGED_MAX = 4096


def _merge_tolerations(first: Sequence[Mapping[str, Any]], second: Sequence[Mapping[str, Any]]) -> list:
    """MergeTolerations (1.11): both lists, dropping a toleration another one covers.

    Upstream keeps `t` (in order) unless a toleration already kept is a superset of it
    (isSuperset) or a *later* one, semantically different, is. Upstream compares every
    pair; here each question is answered from a `_SupersetIndex` (a forward pass over the
    kept ones, a backward pass over the ones after `t`), so n tolerations cost O(n)
    dictionary lookups with the same result."""
    everything = list(first) + list(second)
    facts = [_Facts(t) for t in everything]
    covered_later = [False] * len(everything)
    later = _SupersetIndex()
    for i in range(len(facts) - 1, -1, -1):
        covered_later[i] = later.covers(facts[i], exclude_same=True)
        later.add(facts[i])
    merged: list = []
    kept = _SupersetIndex()
    for i, t in enumerate(everything):
        if covered_later[i] or kept.covers(facts[i], exclude_same=False):
            continue
        merged.append(dict(t))
        kept.add(facts[i])
    return merged


class _Facts:
    """What isSuperset reads of one toleration, computed once."""

    __slots__ = ("sem", "seconds", "limited", "bucket", "candidates")

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.sem = sem = _semantic(t)
        key, op, value, effect, seconds = sem
        self.seconds = seconds
        self.limited = effect == "NoExecute" and seconds is not None
        if op == "Exists":
            self.bucket = ("Exists", key, effect)
        elif op in ("Equal", ""):
            self.bucket = ("Equal", key, effect, value)
        else:
            self.bucket = None  # another operator is a superset only of its semantic copies
        # The buckets whose members may be supersets of this toleration.
        keys = (key, "") if key else ("",)
        effects = (effect, "") if effect else ("",)
        candidates = [("Exists", k, e) for k in keys for e in effects]
        if t.get("operator") == "Equal":
            candidates += [("Equal", key, e, value) for e in effects]
        self.candidates = candidates


class _Bucket:
    """Tolerations of one (operator class, key, effect[, value]): how many tolerate
    without a time limit, and the tolerationSeconds of the NoExecute ones with a limit."""

    __slots__ = ("unlimited", "seconds", "max_seconds")

    def __init__(self) -> None:
        self.unlimited = 0
        self.seconds: dict = {}
        self.max_seconds = None

    def add(self, limited: bool, seconds) -> None:
        if not limited:
            self.unlimited += 1
            return
        self.seconds[seconds] = self.seconds.get(seconds, 0) + 1
        if self.max_seconds is None or seconds > self.max_seconds:
            self.max_seconds = seconds

    def covers(self, seconds, same_unlimited: int, same_limited: int) -> bool:
        """Does a member (other than `same_*` copies of t) tolerate t's tolerationSeconds?"""
        if self.unlimited - same_unlimited > 0:
            return True
        if seconds is None or self.max_seconds is None or self.max_seconds < seconds:
            return False
        if self.max_seconds > seconds:
            return True  # t's own copies have exactly t's seconds
        return self.seconds[seconds] - same_limited > 0


class _SupersetIndex:
    """Tolerations indexed so that "is any of them a superset of t" (isSuperset, with or
    without t's own semantic copies) is a handful of lookups."""

    def __init__(self) -> None:
        self.buckets: dict[tuple, _Bucket] = {}
        self.same: dict[tuple, int] = {}  # semantic tuple -> how many

    def add(self, f: _Facts) -> None:
        self.same[f.sem] = self.same.get(f.sem, 0) + 1
        if f.bucket is not None:
            bucket = self.buckets.get(f.bucket)
            if bucket is None:
                bucket = self.buckets[f.bucket] = _Bucket()
            bucket.add(f.limited, f.seconds)

    def covers(self, f: _Facts, exclude_same: bool) -> bool:
        copies = self.same.get(f.sem, 0)
        if copies and not exclude_same:
            return True  # a semantic copy is always a superset
        for bucket_key in f.candidates:
            bucket = self.buckets.get(bucket_key)
            if bucket is None:
                continue
            n = copies if exclude_same and bucket_key == f.bucket else 0
            if bucket.covers(f.seconds, 0 if f.limited else n, n if f.limited else 0):
                return True
        return False


# --- pod plugins ---------------------------------------------------------------------------------


def spec_copy(doc: Mapping[str, Any]) -> dict:
    """The copy a plugin returns: the document and its spec copied, everything under the
    spec shared (plugins only replace spec fields, never change what is in them; `admit`
    deep-copies its input once for the whole chain)."""
    out = dict(doc)
    if "spec" in out:
        out["spec"] = dict(out["spec"] or {})
    return out


def _pod_copy(doc: Mapping[str, Any]) -> dict | None:
    if doc.get("kind") != "Pod":
        return None
    return spec_copy(doc)


def pod_toleration_restriction(doc: Mapping[str, Any], classes: Sequence[PriorityClass] = ()) -> dict:
    out = _pod_copy(doc)
    if out is None:
        return spec_copy(doc)
    if pod_qos_class(out) == "BestEffort":
        return out
    spec = out.setdefault("spec", {})
    spec["tolerations"] = merge_tolerations(
        spec.get("tolerations") or [], [{"key": TAINT_NODE_MEMORY_PRESSURE, "operator": "Exists", "effect": "NoSchedule"}]
    )
    return out


def default_toleration_seconds(doc: Mapping[str, Any], classes: Sequence[PriorityClass] = ()) -> dict:
    out = _pod_copy(doc)
    if out is None:
        return spec_copy(doc)
    spec = out.setdefault("spec", {})
    tolerations = list(spec.get("tolerations") or [])
    not_ready = unreachable = False
    for t in tolerations:
        key, effect = t.get("key") or "", t.get("effect") or ""
        if key in (TAINT_NODE_NOT_READY, "") and effect in ("NoExecute", ""):
            not_ready = True
        if key in (TAINT_NODE_UNREACHABLE, "") and effect in ("NoExecute", ""):
            unreachable = True
    if not_ready and unreachable:
        return out
    if not not_ready:
        tolerations = add_or_update_toleration(
            tolerations,
            {"key": TAINT_NODE_NOT_READY, "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": DEFAULT_NOT_READY_TOLERATION_SECONDS},
        )
    if not unreachable:
        tolerations = add_or_update_toleration(
            tolerations,
            {"key": TAINT_NODE_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": DEFAULT_UNREACHABLE_TOLERATION_SECONDS},
        )
    spec["tolerations"] = tolerations
    return out


def daemon_pod_tolerations(spec: Mapping[str, Any]) -> list:
    """AddOrUpdateDaemonPodTolerations: the tolerations of a DaemonSet pod with this spec."""
    tolerations = list(spec.get("tolerations") or [])
    added = [
        {"key": TAINT_NODE_NOT_READY, "operator": "Exists", "effect": "NoExecute"},
        {"key": TAINT_NODE_UNREACHABLE, "operator": "Exists", "effect": "NoExecute"},
        {"key": TAINT_NODE_DISK_PRESSURE, "operator": "Exists", "effect": "NoSchedule"},
        {"key": TAINT_NODE_MEMORY_PRESSURE, "operator": "Exists", "effect": "NoSchedule"},
        {"key": TAINT_NODE_UNSCHEDULABLE, "operator": "Exists", "effect": "NoSchedule"},
    ]
    if spec.get("hostNetwork"):
        added.append({"key": TAINT_NODE_NETWORK_UNAVAILABLE, "operator": "Exists", "effect": "NoSchedule"})
    for t in added:
        tolerations = add_or_update_toleration(tolerations, t)
    return tolerations


def daemonset_tolerations(doc: Mapping[str, Any], classes: Sequence[PriorityClass] = ()) -> dict:
    out = _pod_copy(doc)
    if out is None:
        return spec_copy(doc)
    owner = controller_ref(out)
    if owner is None or owner.get("kind") != "DaemonSet":
        return out
    spec = out.setdefault("spec", {})
    spec["tolerations"] = daemon_pod_tolerations(spec)
    return out


# --- node plugin -----------------------------------------------------------------------------------


def control_plane_taint(doc: Mapping[str, Any], classes: Sequence[PriorityClass] = ()) -> dict:
    out = spec_copy(doc)
    if out.get("kind") != "Node":
        return out
    labels = (out.get("metadata") or {}).get("labels") or {}
    if MASTER_ROLE_LABEL not in labels:
        return out
    spec = out.setdefault("spec", {})
    taints = list(spec.get("taints") or [])
    if any(t.get("key") == MASTER_TAINT["key"] and t.get("effect") == MASTER_TAINT["effect"] for t in taints):
        return out
    spec["taints"] = taints + [dict(MASTER_TAINT)]
    return out


# --- the chain ---------------------------------------------------------------------------------------

# (name, plugin) in the order the API server runs them.
PLUGINS: tuple[tuple[str, Plugin], ...] = (
    ("PodTolerationRestriction", pod_toleration_restriction),
    ("Priority", priority_admission),
    ("DefaultTolerationSeconds", default_toleration_seconds),
    ("DaemonSetTolerations", daemonset_tolerations),
    ("ControlPlaneTaint", control_plane_taint),
)
# Plugins that read more than the object (namespaces, their configuration, the user):
# fn(doc, context), run first when a context is given (engine.api.node_selection_admission).
CONTEXT_PLUGINS = node_selection.PLUGINS
PLUGIN_NAMES = tuple(name for name, _ in CONTEXT_PLUGINS) + tuple(name for name, _ in PLUGINS)


def enabled_plugins(enabled: Mapping[str, bool] | None = None) -> list[Plugin]:
    """The plugins switched on (`enabled` maps names to booleans; missing names are on)."""
    enabled = enabled or {}
    unknown = sorted(set(enabled) - set(PLUGIN_NAMES))
    if unknown:
        raise ValueError(f"unknown admission plugin(s): {', '.join(unknown)}; known: {', '.join(PLUGIN_NAMES)}")
    return [fn for name, fn in PLUGINS if enabled.get(name, True)]


def admit(doc: Mapping[str, Any], classes: Sequence[PriorityClass] = (), enabled: Mapping[str, bool] | None = None,
          context: node_selection.NodeSelectionContext | None = None) -> dict:
    """One document through the enabled plugins (raises engine.api.priority.AdmissionError)."""
    out = document_copy(dict(doc))
    for name, context_plugin in CONTEXT_PLUGINS if context is not None else ():
        if (enabled or {}).get(name, True):
            out = context_plugin(out, context)
    for plugin in enabled_plugins(enabled):
        out = plugin(out, classes)
    return out


def _keep_priority(doc: dict, old: Mapping[str, Any]) -> dict:
    """Priority on Update (plugin/pkg/admission/priority admitPod, 1.11): "Ensure the
    existing priority is preserved on update"."""
    out = spec_copy(doc)
    spec = out.setdefault("spec", {})
    old_priority = (old.get("spec") or {}).get("priority")
    if spec.get("priority") is None and old_priority is not None:
        spec["priority"] = old_priority
    return out


def admit_update(doc: Mapping[str, Any], old: Mapping[str, Any], enabled: Mapping[str, bool] | None = None) -> dict:
    """One update of the stored `old` through the plugins that handle Update in 1.11 (see
    the module docstring), in the API server's order. Other kinds than Pod pass unchanged."""
    out = document_copy(dict(doc))
    if out.get("kind") != "Pod":
        return out
    enabled_plugins(enabled)  # unknown names are refused as on create
    on = enabled or {}
    if on.get("PodTolerationRestriction", True):
        out = pod_toleration_restriction(out)
    if on.get("Priority", True):
        out = _keep_priority(out, old)
    if on.get("DefaultTolerationSeconds", True):
        out = default_toleration_seconds(out)
    return out


def admit_update_node_selection(doc: Mapping[str, Any], enabled: Mapping[str, bool] | None = None,
                                context: node_selection.NodeSelectionContext | None = None) -> None:
    """An update of `doc` through the plugins that check updates: PodNodeConstraints (on
    Create and Update; pods on Create only). Raises engine.api.priority.AdmissionError."""
    if context is None or doc.get("kind") == "Pod":
        return
    if (enabled or {}).get(node_selection.POD_NODE_CONSTRAINTS, True):
        node_selection.pod_node_constraints(doc, context)


def admit_node_selection(doc: Mapping[str, Any], enabled: Mapping[str, bool] | None,
                         context: node_selection.NodeSelectionContext) -> dict:
    """A new pod through the node-selection plugins only (what decides where it may go)."""
    out = dict(doc)
    for name, context_plugin in CONTEXT_PLUGINS:
        if (enabled or {}).get(name, True):
            out = context_plugin(out, context)
    return out


def admit_documents(docs: Iterable[Mapping[str, Any]], enabled: Mapping[str, bool] | None = None,
                    context: node_selection.NodeSelectionContext | None = None) -> list[dict]:
    """Every document through the enabled plugins; the PriorityClasses come from `docs`."""
    docs = [dict(d) for d in docs]
    classes = [PriorityClass.from_doc(d) for d in docs if d.get("kind") == "PriorityClass"]
    return [admit(d, classes, enabled, context) for d in docs]
