"""The DaemonSet controller (1.11, ScheduleDaemonSetPods off: the controller sets
spec.nodeName itself, no Scheduled event).

nodeShouldRunDaemonPod with the pod the controller would create (template + the DaemonSet
tolerations of engine.api.admission): PodToleratesNodeTaints and GeneralPredicates; node
selector/affinity, host name or host port mismatch -> no pod; untolerated taints -> no new
pod, and an existing one is deleted only when a NoExecute taint is not tolerated;
insufficient resources -> no new pod (the FailedPlacement event is not simulated). One pod
per eligible node (`<name>-<5 chars>`), extra ones deleted (oldest kept).
"""

from __future__ import annotations

import operator
from collections import Counter
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from scheduling.engine.api import admission as adm
from scheduling.engine.api.objects import Node, Pod
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controllers.controller_utils import (
    CONTROLLER_REVISION_HASH,
    WorkloadContext,
    claim_pods,
    create_pod,
    creation_time,
    delete_pod,
    failed_create,
    generate_name,
    is_active,
    is_controlled_by,
    is_running,
    new_pod,
    object_namespace,
    selector_of,
    status_patch,
    template_hash,
)
from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.scheduler.predicates import (
    general,
    host_name,
    host_ports,
    label_presence,
    node_selector,
    taints as taint_predicates,
)
from scheduling.engine.scheduler.predicates.resources import resource_request
from scheduling.engine.store import document_copy, is_terminating, meta, name_of

DAEMONSET_TEMPLATE_GENERATION = "pod-template-generation"


INTENTIONAL_REASONS = frozenset({
    node_selector.ERR_NODE_SELECTOR_NOT_MATCH,
    host_name.ERR_POD_NOT_MATCH_HOST_NAME,
    label_presence.ERR_NODE_LABEL_PRESENCE_VIOLATED,
    host_ports.ERR_POD_NOT_FITS_HOST_PORTS,
})


def daemon_pod_doc(ds: Mapping[str, Any], node: str) -> dict:
    """NewPod: the template with spec.nodeName and the DaemonSet tolerations."""
    template = (ds.get("spec") or {}).get("template") or {}
    spec = document_copy(dict(template.get("spec") or {}))
    spec["nodeName"] = node
    spec["tolerations"] = adm.daemon_pod_tolerations(spec)
    return {"kind": "Pod", "metadata": {"name": f"{name_of(ds)}-simulated", "namespace": object_namespace(ds),
                                        "labels": dict((template.get("metadata") or {}).get("labels") or {})},
            "spec": spec}


def node_should_run_daemon_pod(ds: Mapping[str, Any], node_doc: Mapping[str, Any], pods_on_node: Iterable[Mapping[str, Any]],
                               state: ClusterState | None = None,
                               pod_resources: Callable[[Mapping[str, Any]], Pod] = Pod.from_doc,
                               daemon_pod: Pod | None = None, node_object: Node | None = None) -> tuple[bool, bool, bool]:
    """nodeShouldRunDaemonPod (1.11): (wantToRun, shouldSchedule, shouldContinueRunning).
    A caller may remember what is read: `pod_resources` reads the pods on the node (what
    their containers ask is all that is used of them);
    `daemon_pod` is the pod the DaemonSet would create there, `node_object` the Node."""
    template_node = ((ds.get("spec") or {}).get("template") or {}).get("spec", {}).get("nodeName")
    node_name = meta(node_doc).get("name") or ""
    if template_node and template_node != node_name:
        return False, False, False
    pod = daemon_pod if daemon_pod is not None else Pod.from_doc(daemon_pod_doc(ds, node_name))
    node = node_object if node_object is not None else Node.from_doc(node_doc)
    info = NodeInfo(node)
    for p in pods_on_node:
        info.add_pod(pod_resources(p))
    state = state if state is not None else ClusterState(nodes=[node])
    ctx = CycleContext(pod, state, {node.name: info})
    reasons = taint_predicates.pod_tolerates_node_taints(pod, ctx, info) + general.general_predicates(pod, ctx, info)
    want, schedule, keep = True, True, True
    for reason in reasons:
        if reason in INTENTIONAL_REASONS:
            return False, False, False
        if reason == taint_predicates.ERR_TAINTS_TOLERATIONS_NOT_MATCH:
            if taint_predicates.pod_tolerates_node_no_execute_taints(pod, ctx, info):
                return False, False, False
            want, schedule = False, False
        elif reason.startswith("Insufficient "):
            schedule = False
        else:
            want, schedule, keep = False, False, False
    return want, schedule, keep


# What reconcile_daemon_set remembers of a node between runs: the node's part of the status
# counts (desired, current, misscheduled, ready), what nodeShouldRunDaemonPod read (see
# _node) and its answer, the daemon pod (made from the DaemonSet), the Node document and
# the Node made from it.
_NodeMemo = tuple[tuple[int, int, int, int], tuple, tuple[bool, bool, bool], Pod, Mapping[str, Any], Node]


class DaemonMemo:
    """What reconcile_daemon_set found on each node (a caller keeps it from one run to the
    next), and the status counts summed over the nodes."""

    def __init__(self) -> None:
        self.nodes: dict[str, _NodeMemo] = {}
        self.counts = [0, 0, 0, 0]
        # node -> (_node_reads of its document, the DaemonSet's template, its pods by key) when
        # its last look made no action: the same again makes the same answer and no action
        self.quiet: dict[str, tuple] = {}

    def pop(self, node: str) -> _NodeMemo | None:
        found = self.nodes.pop(node, None)
        if found is not None:
            self.counts = [a - b for a, b in zip(self.counts, found[0])]
        return found

    def set(self, node: str, found: _NodeMemo) -> None:
        self.pop(node)
        self.nodes[node] = found
        self.counts = [a + b for a, b in zip(self.counts, found[0])]


def reconcile_daemon_set(ctx: WorkloadContext, ds: Mapping[str, Any], nodes: Collection[str] | None = None,
                         memo: DaemonMemo | None = None) -> list:
    """The DaemonSet's actions. `memo` (kept by the caller from one run to the next): what
    was found for each node. `nodes`: only these nodes (names) or their pods changed since
    `memo` was filled, so only they are looked at (None: every node)."""
    selector = selector_of(ds)
    namespace = object_namespace(ds)
    if nodes is not None and memo is not None and not (selector is not None and ctx.orphans(namespace)):
        return _reconcile_nodes(ctx, ds, nodes, memo)
    previous = dict(memo.nodes) if memo is not None else {}
    if memo is not None:
        memo.nodes, memo.counts, memo.quiet = {}, [0, 0, 0, 0], {}
    owned, actions = claim_pods(ctx, ds, selector)
    by_node: dict[str, list[dict]] = {}
    for pod in owned:
        by_node.setdefault((pod.get("spec") or {}).get("nodeName") or "", []).append(pod)
    others: dict[str, list[dict]] = {}
    for pod in ctx.store.list("Pod"):
        node = (pod.get("spec") or {}).get("nodeName")
        if node and not is_terminating(pod) and is_active(pod) and not is_controlled_by(pod, ds):
            others.setdefault(node, []).append(pod)
    counts = [0, 0, 0, 0]
    for node_doc in ctx.store.list("Node"):
        node = meta(node_doc).get("name") or ""
        found = _node(ctx, ds, node_doc, by_node.get(node, []), others.get(node, ()), actions, previous.get(node))
        if memo is not None:
            memo.set(node, found)
        for i, n in enumerate(found[0]):
            counts[i] += n
    return actions + _status(ds, counts)


def _reconcile_nodes(ctx: WorkloadContext, ds: Mapping[str, Any], nodes: Collection[str], memo: DaemonMemo) -> list:
    """reconcile_daemon_set for the `nodes` that changed (no orphan pods to adopt): their
    pods from the store's index of pods by node, the other nodes' counts from `memo`."""
    store = ctx.store
    actions: list = []
    previous = {node: memo.pop(node) for node in nodes}
    kind, name, uid, namespace = ds.get("kind"), name_of(ds), meta(ds).get("uid"), object_namespace(ds)
    template = (ds.get("spec") or {}).get("template")
    for node_doc in store.in_order("Node", (("", n) for n in nodes)):
        node = meta(node_doc).get("name") or ""
        pods = {key: store.get("Pod", *key) for key in store.pods_on_node(node)}
        reads = _node_reads(node_doc)
        before, quiet = previous.get(node), memo.quiet.pop(node, None)
        if (before is not None and quiet is not None and quiet[1] is template and all(map(operator.is_, quiet[0], reads))
                and quiet[2] == pods):
            memo.set(node, before)  # (only what _node does not read of the Node changed)
            memo.quiet[node] = quiet
            continue
        owned: list[dict] = []
        others: list[dict] = []
        for key in sorted(pods, key=lambda key: store.order("Pod", *key)):
            pod = pods[key]
            f = ctx.facts(key, pod)
            if (f.controller_kind == kind and f.controller_name == name and key[0] == namespace
                    and not (f.controller_uid and uid and f.controller_uid != uid)):
                owned.append(pod)
            elif not f.terminating and f.active:
                others.append(pod)
        size = len(actions)
        memo.set(node, _node(ctx, ds, node_doc, owned, others, actions, before))
        if len(actions) == size:
            memo.quiet[node] = (reads, template, pods)
    return actions + _status(ds, memo.counts)


def _node_reads(node_doc: Mapping[str, Any]) -> tuple:
    """The parts of a Node document _node reads (its name, labels, taints, allocatable
    resources: see there), as the very objects (a change of the document shares the parts
    it did not change)."""
    m, status = node_doc.get("metadata") or {}, node_doc.get("status") or {}
    return (m.get("name"), m.get("labels"), (node_doc.get("spec") or {}).get("taints"), status.get("allocatable"),
            status.get("capacity"))


def _create_or_delete_daemon_pods(ctx: WorkloadContext, ds: Mapping[str, Any], node: str, pods: list[dict],
                                  running: list[dict], schedule: bool, keep: bool, actions: list) -> None:
    """The daemon pod's fate on one node, as syncNodes does it (actions appended): create it
    where it should be scheduled and has no pod; where it should keep running, delete the
    failed pods and all but the oldest of the others; elsewhere delete the running ones."""
    template = (ds.get("spec") or {}).get("template") or {}
    if schedule and not pods:
        prefix = f"{name_of(ds)}-"
        name = generate_name(ctx, ds, prefix)
        labels = {CONTROLLER_REVISION_HASH: template_hash(template), DAEMONSET_TEMPLATE_GENERATION: str(meta(ds).get("generation") or 1)}
        overrides = {"tolerations": adm.daemon_pod_tolerations(template.get("spec") or {})}
        try:
            doc = new_pod(ctx, ds, template, name, labels, node=node, generate_name_prefix=prefix, spec_overrides=overrides)
        except AdmissionError as exc:
            actions += failed_create(ctx, ds, exc)
        else:
            actions += create_pod(ctx, ds, doc, f"Created pod: {name}")
    elif keep:
        alive = []
        for p in running:
            if (p.get("status") or {}).get("phase") == "Failed":
                actions += delete_pod(ctx, ds, p, f"Deleted pod: {name_of(p)}")
            else:
                alive.append(p)
        alive.sort(key=lambda p: (creation_time(p) is None, creation_time(p) or 0.0))
        for p in alive[1:]:
            actions += delete_pod(ctx, ds, p, f"Deleted pod: {name_of(p)}")
    elif not keep and running:
        for p in running:
            actions += delete_pod(ctx, ds, p, f"Deleted pod: {name_of(p)}")


def _node(ctx: WorkloadContext, ds: Mapping[str, Any], node_doc: Mapping[str, Any], pods: list[dict],
          others: Sequence[Mapping[str, Any]], actions: list, previous: _NodeMemo | None) -> _NodeMemo:
    """One node: its actions (appended) and what to remember of it. nodeShouldRunDaemonPod
    is asked again only when what it reads changed since `previous` (documents are never
    changed in place: the same object is the same content)."""
    node = meta(node_doc).get("name") or ""
    node_object = previous[5] if previous is not None and previous[4] is node_doc else Node.from_doc(node_doc)
    template_read = (ds.get("spec") or {}).get("template")  # all it reads of the DaemonSet (and its name)
    daemon = previous[3] if previous is not None and previous[1][0] is template_read else Pod.from_doc(daemon_pod_doc(ds, node))
    # What nodeShouldRunDaemonPod reads: the DaemonSet's pod template; of the Node its name, labels, taints
    # and allocatable resources (the taints predicate and GeneralPredicates); of the other
    # pods their containers (requests and host ports) and their number, or, when the daemon
    # pod asks for no resources and no host port (PodFitsResources then only checks the
    # number of pods against the node's, PodFitsHostPorts has nothing to check), whether
    # there is room for one more pod.
    request = resource_request(daemon)
    if daemon.host_ports or request.milli_cpu or request.memory or request.ephemeral_storage or request.scalar:
        read: tuple = ("containers", *((p.get("spec") or {}).get("containers") for p in others))
    else:
        read = ("full", len(others) + 1 > node_object.allocatable_resource.allowed_pods)
    # A daemon pod that tolerates every taint (an empty key with Exists and no effect: what
    # the taint predicates check it against) does not read the Node's taints.
    taints = None if any(t.operator == "Exists" and not t.key and not t.effect for t in daemon.tolerations) else node_object.taints
    inputs = (template_read, (node_object.name, node_object.labels, taints, node_object.allocatable), read)
    if previous is not None and (_same(previous[1], inputs) or previous[2] == (True, True, True) and _fewer(previous[1], inputs)):
        # the same inputs; or the node fit it with more pods: with fewer it still does (those
        # predicates only fail with more)
        decision = previous[2]
    else:
        decision = node_should_run_daemon_pod(ds, node_doc, others, pod_resources=ctx.pod_resources, daemon_pod=daemon,
                                              node_object=node_object)
    want, schedule, keep = decision
    running = [p for p in pods if not is_terminating(p)]
    desired = current = misscheduled = ready = 0
    if want:
        desired = 1
        if running:
            current = 1
            if any(is_running(p) for p in running):
                ready = 1
    elif running:
        misscheduled = 1
    _create_or_delete_daemon_pods(ctx, ds, node, pods, running, schedule, keep, actions)
    return (desired, current, misscheduled, ready), inputs, decision, daemon, node_doc, node_object


def _same(before: tuple, now: tuple) -> bool:
    """Whether two (DaemonSet, what is read of the Node, what is read of the other pods) are
    the same: the same pod template of the DaemonSet, equal Node readings, the very same containers
    (or room for one more pod, or not, both times)."""
    if before[0] is not now[0] or before[1] != now[1] or before[2][0] != now[2][0]:
        return False
    if now[2][0] == "full":
        return before[2][1] == now[2][1]
    return len(before[2]) == len(now[2]) and all(map(operator.is_, before[2][1:], now[2][1:]))


def _fewer(before: tuple, now: tuple) -> bool:
    """Whether `now` has the DaemonSet and Node of `before` and some of its pods' containers."""
    if before[0] is not now[0] or before[1] != now[1] or before[2][0] != "containers" or now[2][0] != "containers":
        return False
    if len(now[2]) > len(before[2]):
        return False
    had = Counter(map(id, before[2][1:]))
    had.subtract(map(id, now[2][1:]))
    return min(had.values(), default=0) >= 0


def _status(ds: Mapping[str, Any], counts: list[int]) -> list:
    desired, current, misscheduled, ready = counts
    return status_patch(ds, {"desiredNumberScheduled": desired, "currentNumberScheduled": current,
                             "numberMisscheduled": misscheduled, "numberReady": ready, "numberAvailable": ready})
