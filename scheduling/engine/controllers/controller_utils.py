"""What the workload controllers share (pkg/controller/controller_utils.go and friends):
ownership (controllerRef, adoption), the pods a workload creates (from its template,
admitted like an API create, with a generated name), the ActivePods order, the
pod-template-hash.

Generated names (`<prefix><5 chars>`, the random suffix alphabet of utilrand,
"bcdfghjklmnpqrstvwxz2456789") are drawn from a generator derived from the cluster seed,
the owner and how many names the owner generated before (kept in the workloads
controller's state under `names/<Kind>/<namespace>/<name>`), never from the time or a
shared stream: the same scenario gives the same names however its clock is stepped.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api import admission as adm
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.node_selection_admission import controller_user
from scheduling.engine.api.objects import LabelSelector, Pod, PriorityClass
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controller import rng_for
from scheduling.engine.store import (
    Store,
    controller_ref,
    document_copy,
    is_terminating,
    labels_of,
    meta,
    name_of,
    sim_time,
    time_value,
)

# The workload controllers' bounds per sync (replica_set.go BurstReplicas,
# controller_utils.go SlowStartInitialBatchSize): at most this many pods created or deleted
# by one sync, created in batches of 1, 2, 4, ... that stop at the first batch with a failure.
BURST_REPLICAS = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
# The cluster's limit on pods, modelled as a ResourceQuota the API server enforces on
# every pod create (settings["limits"]["pods"]; None: no limit): its name in the message.
LIMITS_QUOTA = "cluster-limits"

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # utilrand: no vowels, no confusable digits
RANDOM_LENGTH = 5
MAX_NAME_LENGTH = 63
POD_TEMPLATE_HASH = "pod-template-hash"
CONTROLLER_REVISION_HASH = "controller-revision-hash"
NAMES_PREFIX = "names/"

SOURCES = {
    "ReplicaSet": "replicaset-controller",
    "ReplicationController": "replication-controller",
    "Deployment": "deployment-controller",
    "StatefulSet": "statefulset-controller",
    "DaemonSet": "daemonset-controller",
    "PodDisruptionBudget": "controllermanager",
}


# --- shared helpers -----------------------------------------------------------------------------------


def object_namespace(doc: Mapping[str, Any]) -> str:
    """The namespace of a namespaced object ("default" when unset)."""
    return meta(doc).get("namespace") or "default"


def owner_reference(owner: Mapping[str, Any]) -> dict:
    ref = {
        "apiVersion": owner.get("apiVersion") or "v1",
        "kind": owner.get("kind") or "",
        "name": name_of(owner),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    uid = meta(owner).get("uid")
    if uid:
        ref["uid"] = uid
    return ref


def is_controlled_by(doc: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    ref = controller_ref(doc)
    if ref is None or ref.get("kind") != owner.get("kind") or ref.get("name") != name_of(owner):
        return False
    if object_namespace(doc) != object_namespace(owner):
        return False
    uid, owner_uid = ref.get("uid"), meta(owner).get("uid")
    return not (uid and owner_uid and uid != owner_uid)


def selector_of(doc: Mapping[str, Any]) -> LabelSelector | None:
    """The workload's selector (a map for an RC); None or empty selects nothing."""
    spec = doc.get("spec") or {}
    raw = spec.get("selector")
    if doc.get("kind") == "ReplicationController":
        if raw is None:
            raw = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        selector = LabelSelector.from_map(raw)
    else:
        selector = LabelSelector.from_doc(raw)
    if selector is None or selector.is_empty:
        return None
    return selector


def is_active(pod: Mapping[str, Any]) -> bool:
    """controller.IsPodActive: not finished and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not is_terminating(pod)


def is_running(pod: Mapping[str, Any]) -> bool:
    """Running and Ready (the simulated kubelet makes a running pod ready at once)."""
    return bool((pod.get("spec") or {}).get("nodeName")) and (pod.get("status") or {}).get("phase") == "Running"


def termination_grace_seconds(pod: Mapping[str, Any]) -> int:
    value = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return 30 if value is None else int(value)


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def template_hash(template: Mapping[str, Any]) -> str:
    """The pod-template-hash: fnv32a of the template (without the hash label), encoded."""
    template = without_hash(template)
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    return safe_encode(str(fnv32a(data)))


def without_hash(template: Mapping[str, Any]) -> dict:
    t = document_copy(dict(template))
    labels = (t.get("metadata") or {}).get("labels")
    if labels and POD_TEMPLATE_HASH in labels:
        labels = dict(labels)
        del labels[POD_TEMPLATE_HASH]
        t["metadata"] = {**t["metadata"], "labels": labels}
        if not labels:
            del t["metadata"]["labels"]
    return t


def generate_name(ctx: "WorkloadContext", owner: Mapping[str, Any], prefix: str) -> str:
    """SimpleNameGenerator: prefix (cut to 58) + 5 random characters. The n-th name an
    owner generates is drawn from ctx.rng(owner kind, namespace, name, n), n counted in the
    workloads controller's state, so a replacement pod has the same name however the
    clock is stepped; a name already taken in the namespace is drawn again (n + 1)."""
    base = prefix[: MAX_NAME_LENGTH - RANDOM_LENGTH]
    key = names_key(owner)
    taken = ctx.taken_in(object_namespace(owner))
    while True:
        n = ctx.counters.get(key, 0)
        ctx.counters[key] = n + 1
        ctx.drawn.add(key)
        rng = rng_for(ctx.seed, "generateName", owner.get("kind") or "", object_namespace(owner), name_of(owner), n)
        name = base + "".join(rng.choice(ALPHANUMS) for _ in range(RANDOM_LENGTH))
        if name not in taken:
            taken.add(name)
            return name


class TakenNames:
    """The pod names in use in a namespace during a run: the store's (its index, read as
    it is: the store does not change during a run) and the ones drawn in this run."""

    __slots__ = ("stored", "drawn")

    def __init__(self, stored: Mapping[str, None]) -> None:
        self.stored = stored
        self.drawn: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.stored or name in self.drawn

    def add(self, name: str) -> None:
        self.drawn.add(name)


def names_key(owner: Mapping[str, Any]) -> str:
    """The workloads controller's state key counting the names `owner` generated."""
    return f"{NAMES_PREFIX}{owner.get('kind') or ''}/{object_namespace(owner)}/{name_of(owner)}"


@dataclass
class WorkloadContext:
    """What the workload controllers share during one run. `counters`: the names each
    owner generated so far (the workloads controller's state, updated as names are drawn).

    The pods are looked up in the store's indexes (the store does not change during a
    run: the controllers return actions): `taken_in` (the pod names in use in a
    namespace), `owned` (by controller reference) and `orphans`, in store order, as
    (position, pod). `memo`: what was read of each pod (`facts`, `pod_resources`), by pod,
    with the document it was read from; a caller may keep it from one run to the next
    (documents are never changed in place: an entry holds while its document is the
    pod's)."""

    store: Store
    now: float
    seed: int = 0
    admission: Mapping[str, bool] | None = None
    admission_context: Any = None  # engine.api.node_selection_admission.NodeSelectionContext (None: those plugins off)
    classes: list[PriorityClass] = field(default_factory=list)
    taken: dict[str, "TakenNames"] = field(default_factory=dict)  # namespace -> pod names in use (filled as asked)
    counters: dict[str, int] = field(default_factory=dict)
    drawn: set[str] = field(default_factory=set)  # the counters generate_name moved in this run
    memo: dict = field(default_factory=dict)
    groups: PodGroups | None = None  # the pods counted, when the caller keeps them (None: count them)
    pod_limit: int | None = None  # the cluster's limit on pods (exceeded quota past it; None: no limit)
    created: int = 0  # the pods this run created (new_pod admitted them)

    @classmethod
    def build(cls, store: Store, now: float, seed: int = 0, admission: Mapping[str, bool] | None = None,
              state: Mapping[str, Any] | None = None, admission_context: Any = None,
              memo: dict | None = None, groups: PodGroups | None = None, pod_limit: int | None = None) -> "WorkloadContext":
        ctx = cls(store, now, seed, admission, admission_context)
        ctx.pod_limit = pod_limit
        ctx.classes = [PriorityClass.from_doc(d) for d in store.list("PriorityClass")]
        hit = None if memo is None else memo.get(_COUNTERS)
        if hit is not None and hit[0] == (state or {}):  # the state as when they were read last
            counters = hit[1]
        else:
            counters = {k: int(v) for k, v in (state or {}).items() if k.startswith(NAMES_PREFIX)}
            if memo is not None:
                memo[_COUNTERS] = (dict(state or {}), counters)
        ctx.counters = dict(counters)
        if memo is not None:
            ctx.memo = memo
        ctx.groups = groups
        return ctx

    def facts(self, key: tuple[str, str], pod: Mapping[str, Any]) -> "PodFacts":
        """pod_facts(pod) (its key: (namespace, name)), remembered in `memo`."""
        hit = self.memo.get(("facts", *key))
        if hit is not None and hit[0] is pod:
            return hit[1]
        facts = pod_facts(pod)
        self.memo[("facts", *key)] = (pod, facts)
        return facts

    def pod_resources(self, pod: Mapping[str, Any]) -> Pod:
        """A Pod object for what the pod's containers ask (requests, host ports), remembered
        in `memo` until its containers change: its other fields may be an older version's."""
        key = ("pod", object_namespace(pod), name_of(pod))
        containers = (pod.get("spec") or {}).get("containers")
        hit = self.memo.get(key)
        if hit is not None and hit[0] is containers:
            return hit[1]
        obj = Pod.from_doc(pod)
        self.memo[key] = (containers, obj)
        return obj

    def controlled(self, owner: Mapping[str, Any]) -> list[tuple[dict, "PodFacts"]]:
        """The pods `owner` controls (is_controlled_by) with their facts, in no particular
        order: what claim_pods finds when there is no orphan to adopt."""
        store = self.store
        namespace, kind, name = object_namespace(owner), owner.get("kind") or "", name_of(owner)
        uid = meta(owner).get("uid")
        out = []
        for key in store.pods_of(namespace, kind, name):
            pod = store.get("Pod", *key)
            f = self.facts(key, pod)
            if f.controller_kind == kind and f.controller_name == name and not (f.controller_uid and uid and f.controller_uid != uid):
                out.append((pod, f))
        return out

    def taken_in(self, namespace: str) -> "TakenNames":
        taken = self.taken.get(namespace)
        if taken is None:
            taken = self.taken[namespace] = TakenNames(self.store.names("Pod", namespace))
        return taken

    def _positioned(self, keys: Iterable[tuple[str, str]]) -> list[tuple[int, dict]]:
        store = self.store
        return sorted(((store.order("Pod", *key), store.get("Pod", *key)) for key in keys), key=_position)

    def owned(self, namespace: str, kind: str, name: str) -> list[tuple[int, dict]]:
        """The pods whose controller reference names kind/name, as (position, pod)."""
        return self._positioned(self.store.pods_of(namespace, kind, name))

    def orphans(self, namespace: str) -> list[tuple[int, dict]]:
        """The pods of `namespace` without a controller reference, as (position, pod)."""
        return self._positioned(self.store.orphan_pods(namespace))


def _position(item: tuple[int, dict]) -> int:
    return item[0]


class PodFacts(NamedTuple):
    """What the workload controllers and the disruption controller read of a pod (all but
    its node: a DaemonSet looks at the pods of a node)."""

    controller_kind: str | None
    controller_name: str | None
    controller_uid: Any
    labels: Mapping[str, str]
    phase: Any
    active: bool  # is_active
    running: bool  # is_running
    terminating: bool


def pod_facts(pod: Mapping[str, Any]) -> PodFacts:
    ref = controller_ref(pod)
    return PodFacts(None if ref is None else ref.get("kind"), None if ref is None else ref.get("name"),
                    None if ref is None else ref.get("uid"), labels_of(pod), (pod.get("status") or {}).get("phase"),
                    is_active(pod), is_running(pod), is_terminating(pod))


class PodGroups:
    """The pods counted by what the ReplicaSet and disruption controllers read of them (a
    caller keeps it as pods come, change and go: `count(namespace, facts, +1 or -1)`):

    * `owned[(namespace, controller kind, controller name)]`: Counter of (controller uid,
      active, running, labels) -> pods;
    * `labelled[namespace][labels]`: (the labels, Counter of ((controller kind, controller
      name) or None, terminating, running) -> pods).

    Labels are keyed as frozensets of their items."""

    def __init__(self) -> None:
        self.owned: dict[tuple[str, str, str], Counter] = {}
        self.labelled: dict[str, dict[frozenset, tuple[Mapping[str, str], Counter]]] = {}

    def count(self, namespace: str, f: PodFacts, delta: int) -> None:
        labels = frozenset(f.labels.items())
        if f.controller_kind is not None:
            key = (namespace, f.controller_kind, f.controller_name or "")
            _bump(self.owned, key, (f.controller_uid, f.active, f.running, labels), delta)
        by_labels = self.labelled.setdefault(namespace, {})
        entry = by_labels.get(labels)
        if entry is None:
            entry = by_labels[labels] = (f.labels, Counter())
        owner = None if f.controller_kind is None else (f.controller_kind, f.controller_name)
        entry[1][(owner, f.terminating, f.running)] += delta
        if entry[1][(owner, f.terminating, f.running)] == 0:
            del entry[1][(owner, f.terminating, f.running)]
            if not entry[1]:
                del by_labels[labels]


def _bump(table: dict, key: tuple, group: tuple, delta: int) -> None:
    counter = table.get(key)
    if counter is None:
        counter = table[key] = Counter()
    counter[group] += delta
    if counter[group] == 0:
        del counter[group]
        if not counter:
            del table[key]


_COUNTERS = ("counters",)  # WorkloadContext.memo: (the state, the name counters read from it)


def forget_pod(memo: dict, namespace: str, name: str) -> None:
    """Drop what a WorkloadContext memo has of a pod (gone)."""
    memo.pop(("facts", namespace, name), None)
    memo.pop(("pod", namespace, name), None)


def exceeded_pod_quota(resource: str, name: str, used: int, limit: int) -> str:
    """The ResourceQuota admission plugin's refusal of one more pod (resource_quota
    controller.go: `exceeded quota: %s, requested: %s, used: %s, limited: %s`)."""
    return (f'{resource} "{name}" is forbidden: exceeded quota: {LIMITS_QUOTA}, requested: pods=1, '
            f"used: pods={used}, limited: pods={limit}")


def slow_start_batch(count: int, create: Any, initial: int = SLOW_START_INITIAL_BATCH_SIZE) -> tuple[int, bool]:
    """replica_set.go slowStartBatch: call `create()` `count` times in batches of `initial`,
    then twice as many each time; a batch with a failure is finished and no further batch is
    started. `create()` returns whether the pod was created. (successes, whether one failed)."""
    remaining, successes = count, 0
    batch = min(remaining, initial)
    while batch > 0:
        ok = sum(1 for _ in range(batch) if create())
        successes += ok
        if ok < batch:
            return successes, True
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, False


def new_pod(ctx: WorkloadContext, owner: Mapping[str, Any], template: Mapping[str, Any], name: str,
            extra_labels: Mapping[str, str] | None = None, node: str = "", generate_name_prefix: str | None = None,
            spec_overrides: Mapping[str, Any] | None = None) -> dict:
    """`_admitted_pod`, then the cluster's pod quota (ctx.pod_limit; the quota plugin runs
    after the other admission plugins): AdmissionError with its message past the limit.
    The pod is counted as created by this run."""
    doc = _admitted_pod(ctx, owner, template, name, extra_labels, node, generate_name_prefix, spec_overrides)
    if ctx.pod_limit is not None:
        used = ctx.store.count("Pod") + ctx.created
        if used + 1 > ctx.pod_limit:
            raise AdmissionError(exceeded_pod_quota("pods", name, used, ctx.pod_limit))
    ctx.created += 1
    return doc


def _admitted_pod(ctx: WorkloadContext, owner: Mapping[str, Any], template: Mapping[str, Any], name: str,
                  extra_labels: Mapping[str, str] | None, node: str, generate_name_prefix: str | None,
                  spec_overrides: Mapping[str, Any] | None) -> dict:
    """A pod document from a workload's template, admitted like an API create (to be
    created as it is, not changed: it may share parts with `ctx.memo`).

    Defaulting and admission read neither the pod's name nor its creation time (only an
    admission error names the pod): a pod made again from the same template for the same
    owner is the last one admitted with its name and time put in, from `ctx.memo` (for
    pods without a node or spec overrides: a ReplicaSet's)."""
    cache_key = ("admitted", id(template)) if not node and not spec_overrides else None
    inputs = (template, owner_reference(owner), dict(extra_labels or {}), generate_name_prefix)
    if cache_key is not None:
        hit = ctx.memo.get(cache_key)
        if hit is not None and hit[0][0] is template and hit[0][1:] == inputs[1:]:
            # (what is below the metadata is the memo's: the store copies a document it creates)
            return {**hit[1], "metadata": {**hit[1]["metadata"], "name": name, "creationTimestamp": time_value(ctx.now)}}
    tmeta = template.get("metadata") or {}
    pod_meta: dict = {"name": name, "namespace": object_namespace(owner)}
    if generate_name_prefix is not None:
        pod_meta["generateName"] = generate_name_prefix
    labels = {**(tmeta.get("labels") or {}), **(extra_labels or {})}
    if labels:
        pod_meta["labels"] = labels
    if tmeta.get("annotations"):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    pod_meta["ownerReferences"] = [owner_reference(owner)]
    pod_meta["creationTimestamp"] = time_value(ctx.now)
    spec = document_copy(dict(template.get("spec") or {}))
    spec.update(document_copy(dict(spec_overrides or {})))
    if node:
        spec["nodeName"] = node
    doc = apply_defaults({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec})
    context = ctx.admission_context
    if context is not None:  # created as the owner's controller
        context = context.as_user(controller_user(owner.get("kind") or ""))
    doc = adm.admit(doc, ctx.classes, ctx.admission, context)
    if cache_key is not None and doc.get("metadata", {}).get("name") == name:
        ctx.memo[cache_key] = (inputs, document_copy(doc))
    return doc


def create_pod(ctx: WorkloadContext, owner: Mapping[str, Any], doc: dict, message: str) -> list:
    return [
        A.CreateObject(doc),
        A.RecordEvent(ctx.now, "Normal", "SuccessfulCreate", owner.get("kind") or "", object_namespace(owner), name_of(owner), message,
                      SOURCES.get(owner.get("kind") or "", "")),
    ]


def delete_pod(ctx: WorkloadContext, owner: Mapping[str, Any], pod: Mapping[str, Any], message: str) -> list:
    return [
        A.SetPodDeletion(object_namespace(pod), name_of(pod), ctx.now, termination_grace_seconds(pod), "SuccessfulDelete"),
        A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", owner.get("kind") or "", object_namespace(owner), name_of(owner), message,
                      SOURCES.get(owner.get("kind") or "", "")),
    ]


def failed_create(ctx: WorkloadContext, owner: Mapping[str, Any], exc: Exception) -> list:
    """A create the API refused: its event, and the ReplicaFailure condition when the owner
    has none (calculateStatus sets it only then: a later refusal does not rewrite it)."""
    message = f"Error creating: {exc}"
    conditions = [c for c in (owner.get("status") or {}).get("conditions") or () if c.get("type") == "ReplicaFailure"]
    if conditions and conditions[0].get("message") == message:
        return []
    event = A.RecordEvent(ctx.now, "Warning", "FailedCreate", owner.get("kind") or "", object_namespace(owner), name_of(owner), message,
                          SOURCES.get(owner.get("kind") or "", ""))
    if conditions:
        return [event]
    cond = {"type": "ReplicaFailure", "status": "True", "lastTransitionTime": time_value(ctx.now),
            "reason": "FailedCreate", "message": message}
    return [
        A.PatchStatus(owner.get("kind") or "", object_namespace(owner), name_of(owner), {"conditions": [cond]}),
        event,
    ]


def status_patch(doc: Mapping[str, Any], fields: Mapping[str, Any]) -> list:
    status = doc.get("status") or {}
    if all(status.get(k) == v for k, v in fields.items()):
        return []
    return [A.PatchStatus(doc.get("kind") or "", object_namespace(doc), name_of(doc), dict(fields))]


def claim_pods(ctx: WorkloadContext, owner: Mapping[str, Any], selector: LabelSelector | None) -> tuple[list[dict], list]:
    """ClaimPods: the pods `owner` controls, adopting orphans its selector matches."""
    owned: list[dict] = []
    actions: list = []
    namespace = object_namespace(owner)
    candidates = ctx.owned(namespace, owner.get("kind") or "", name_of(owner))
    if selector is not None:  # the pods in store order, as a scan of the namespace meets them
        orphans = ctx.orphans(namespace)
        if orphans:
            candidates = sorted(candidates + orphans, key=_position)
    for _, pod in candidates:
        if is_controlled_by(pod, owner):
            owned.append(pod)
        elif controller_ref(pod) is None and selector is not None and not is_terminating(pod) and selector.matches(labels_of(pod)):
            actions.append(A.SetControllerRef("Pod", object_namespace(pod), name_of(pod), owner_reference(owner)))
            owned.append(pod)
    return owned, actions


def creation_time(pod: Mapping[str, Any]) -> float | None:
    return sim_time(meta(pod).get("creationTimestamp"))


def active_pods_order(pods: Sequence[Mapping[str, Any]]) -> list[dict]:
    """controller.ActivePods: the pods to delete first come first."""
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}

    def key(pod):
        assigned = 1 if (pod.get("spec") or {}).get("nodeName") else 0
        phase = phase_rank.get((pod.get("status") or {}).get("phase") or "", 0)
        ready = 1 if is_running(pod) else 0
        created = creation_time(pod)
        # empty creation time < newer < older
        age = (0, 0.0) if created is None else (1, -created)
        return (assigned, phase, ready, age)

    return sorted(pods, key=key)

