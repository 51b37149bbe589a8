"""NodeResourcesFit and NodeResourcesBalancedAllocation
(pkg/scheduler/framework/plugins/noderesources).

A pod's request is resourcehelper.PodRequests: per resource the larger of the sum of its
containers and its largest init container, plus `spec.overhead`. A node's requested amount
is the same summed over its pods (NodeInfo.Requested), and NonZeroRequested counts an unset
cpu / memory request of any container as 100m / 200MB. The engine's NodeInfo keeps the sums
of regular containers; the init-container and overhead part is added here per node (only
for the pods that have any), cached by the node's generation.

Restartable init containers (sidecars) count as ordinary init containers: the engine's
Container has no `restartPolicy`.

Fit.Filter reasons, in this order: `Too many pods`, `Insufficient cpu`, `Insufficient
memory`, `Insufficient ephemeral-storage`, `Insufficient <name>` (scalar resources by name);
UnschedulableAndUnresolvable when the pod alone asks for more than the node's allocatable,
else Unschedulable. Scores: LeastAllocated (default), MostAllocated,
RequestedToCapacityRatio (`shape` of utilization 0-100 / score 0-10, scaled by 10);
BalancedAllocation: 100 * (1 - the standard deviation of the requested fractions), Skip for
a pod that requests none of its resources.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from scheduling.engine.framework.interface import (
    ArgsError,
    MAX_NODE_SCORE,
    OK,
    SKIPPED,
    Plugin,
    ScoreError,
    Status,
    UNRESOLVABLE,
    UNSCHEDULABLE,
)
from scheduling.engine.framework.plugins.helper import build_broken_linear_function
from scheduling.engine.api.objects import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    MEMORY,
    Pod,
    Resource,
)
from scheduling.engine.api.quantity import stored_milli_value, stored_value
from scheduling.engine.api.validation.field import is_qualified_name
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.priorities.normalize import node_cached
from scheduling.engine.scheduler.predicates.resources import is_extended_resource_name, is_scalar_resource_name

FIT_NAME = "NodeResourcesFit"
BALANCED_NAME = "NodeResourcesBalancedAllocation"

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SUPPORTED_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

ERR_TOO_MANY_PODS = "Too many pods"

PRE_FILTER_STATE_KEY = "PreFilter" + FIT_NAME
PRE_SCORE_STATE_KEY = "PreScore" + FIT_NAME
BALANCED_PRE_SCORE_STATE_KEY = "PreScore" + BALANCED_NAME


def default_resources() -> list[dict]:
    return [{"name": CPU, "weight": 1}, {"name": MEMORY, "weight": 1}]


# --- what a pod asks for ------------------------------------------------------------------------


class PodRequests:
    """A pod's requests as the framework counts them (computed once per pod)."""

    __slots__ = ("all", "fit", "non_zero_cpu", "non_zero_memory", "extra", "extra_cpu", "extra_memory")

    def __init__(self, pod: Pod):
        total = pod.container_request.copy()
        nz_cpu, nz_mem = pod.non_zero_request
        for c in pod.init_containers:
            total.set_max(Resource.from_list(c.requests))
            r = c.requests
            nz_cpu = max(nz_cpu, stored_milli_value(r[CPU]) if CPU in r else DEFAULT_MILLI_CPU_REQUEST)
            nz_mem = max(nz_mem, stored_value(r[MEMORY]) if MEMORY in r else DEFAULT_MEMORY_REQUEST)
        if pod.overhead:
            overhead = Resource.from_list(pod.overhead)
            total.add(overhead)
            nz_cpu += overhead.milli_cpu
            nz_mem += overhead.memory
        self.all = total  # every resource name (scoring looks up what the node has)
        fit = total.copy()
        fit.scalar = {k: v for k, v in total.scalar.items() if is_scalar_resource_name(k)}
        self.fit = fit  # framework.Resource: only scalar resource names are kept
        self.non_zero_cpu = nz_cpu
        self.non_zero_memory = nz_mem
        # What the pod adds to its node beyond its regular containers (NodeInfo keeps those).
        if pod.init_containers or pod.overhead:
            extra = total.copy()
            extra.sub(pod.container_request)
            self.extra = extra
            base_cpu, base_mem = pod.non_zero_request
            self.extra_cpu = nz_cpu - base_cpu
            self.extra_memory = nz_mem - base_mem
        else:
            self.extra = None
            self.extra_cpu = self.extra_memory = 0


_POD_KEY = "_framework_requests"


def pod_requests(pod: Pod) -> PodRequests:
    """PodRequests of `pod`, kept on the (immutable) pod object."""
    cached = pod.__dict__.get(_POD_KEY)
    if cached is None:
        cached = PodRequests(pod)
        pod.__dict__[_POD_KEY] = cached
    return cached


class NodeRequested:
    __slots__ = ("requested", "non_zero_cpu", "non_zero_memory")

    def __init__(self, requested: Resource, cpu: int, memory: int):
        self.requested = requested
        self.non_zero_cpu = cpu
        self.non_zero_memory = memory


def _build_node_requested(info: NodeInfo) -> NodeRequested:
    extra = None
    cpu = memory = 0
    for p in info.pods:
        if not p.init_containers and not p.overhead:
            continue
        r = pod_requests(p)
        if extra is None:
            extra = Resource()
        extra.add(r.extra)
        cpu += r.extra_cpu
        memory += r.extra_memory
    if extra is None:
        return NodeRequested(info.requested, info.non_zero_cpu, info.non_zero_memory)
    requested = info.requested.copy()
    requested.add(extra)
    return NodeRequested(requested, info.non_zero_cpu + cpu, info.non_zero_memory + memory)


def node_requested(info: NodeInfo) -> NodeRequested:
    """NodeInfo.Requested / NonZeroRequested of v1.35 for `info` (cached per generation)."""
    if not info.pods:
        return NodeRequested(info.requested, info.non_zero_cpu, info.non_zero_memory)
    return node_cached(info, "framework_requested", _build_node_requested)


# --- args -------------------------------------------------------------------------------------------


def _resources_of(spec) -> list[dict]:
    resources = [dict(r) for r in (spec or ())]
    for r in resources:
        if not r.get("weight"):
            r["weight"] = 1
    return resources


def _validate_resources(resources, path: str) -> list[str]:
    errs = []
    for i, r in enumerate(resources):
        w = r.get("weight")
        if not isinstance(w, int) or w <= 0 or w > 100:
            errs.append(f"{path}[{i}].weight: Invalid value: {w}: resource weight of {r.get('name')} not in valid range (0, 100]")
    return errs


def _validate_shape(shape, path: str) -> list[str]:
    if not shape:
        return [f"{path}: Required value: at least one point must be specified"]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(f"{path}[{i}].utilization: Invalid value: {shape[i].get('utilization', 0)}: "
                        "utilization values must be sorted in increasing order")
            break
    for i, point in enumerate(shape):
        u, s = point.get("utilization", 0), point.get("score", 0)
        if u < 0 or u > MAX_UTILIZATION:
            errs.append(f"{path}[{i}].utilization: Invalid value: {u}: not in valid range [0, {MAX_UTILIZATION}]")
        if s < 0 or s > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(f"{path}[{i}].score: Invalid value: {s}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")
    return errs


def _raise(errs: list[str]) -> None:
    if errs:
        raise ArgsError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")


def fit_args_with_defaults(args: Mapping[str, Any]) -> dict:
    """NodeResourcesFitArgs with SetDefaults_NodeResourcesFitArgs applied."""
    out = dict(args)
    strategy = dict(out.get("scoringStrategy") or {})
    strategy.setdefault("type", LEAST_ALLOCATED)
    if not strategy.get("type"):
        strategy["type"] = LEAST_ALLOCATED
    strategy["resources"] = _resources_of(strategy.get("resources")) or default_resources()
    out["scoringStrategy"] = strategy
    out.setdefault("ignoredResources", [])
    out.setdefault("ignoredResourceGroups", [])
    return out


def validate_fit_args(args: Mapping[str, Any]) -> None:
    """ValidateNodeResourcesFitArgs (field paths from the args, as the plugin's New passes)."""
    errs = []
    for i, res in enumerate(args.get("ignoredResources") or ()):
        # metav1validation.ValidateLabelName
        errs += [f'ignoredResources[{i}]: Invalid value: "{res}": {msg}' for msg in is_qualified_name(res)]
    for i, group in enumerate(args.get("ignoredResourceGroups") or ()):
        if "/" in group:
            errs.append(f'ignoredResourceGroups[{i}]: Invalid value: "{group}": resource group name can\'t contain \'/\'')
        errs += [f'ignoredResourceGroups[{i}]: Invalid value: "{group}": {msg}' for msg in is_qualified_name(group)]
    strategy = args.get("scoringStrategy")
    if strategy is not None:
        kind = strategy.get("type")
        if kind not in SUPPORTED_STRATEGIES:
            supported = ", ".join(f'"{s}"' for s in SUPPORTED_STRATEGIES)
            errs.append(f'scoringStrategy.type: Unsupported value: "{kind}": supported values: {supported}')
        errs += _validate_resources(strategy.get("resources") or (), "scoringStrategy.resources")
        rtcr = strategy.get("requestedToCapacityRatio")
        if rtcr is not None:
            errs += _validate_shape(rtcr.get("shape") or [], "scoringStrategy.shape")
    _raise(errs)


# --- scoring -------------------------------------------------------------------------------------------


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return requested * MAX_NODE_SCORE // capacity


def _weighted(score_fn, weights):
    def scorer(requested, allocatable) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            node_score += score_fn(requested[i], alloc) * weights[i]
            weight_sum += weights[i]
        return 0 if weight_sum == 0 else node_score // weight_sum
    return scorer


def requested_to_capacity_ratio_scorer(weights, shape):
    points = [(int(p.get("utilization", 0)), int(p.get("score", 0)) * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
              for p in shape]
    raw = build_broken_linear_function(points)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(requested, allocatable) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            s = resource_score(requested[i], alloc)
            if s > 0:
                node_score += s * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return int(math.floor(node_score / weight_sum + 0.5))  # math.Round: half away from zero
    return scorer


def balanced_resource_scorer(requested, allocatable) -> int:
    fractions = []
    total = 0.0
    for i, alloc in enumerate(allocatable):
        if alloc == 0:
            continue
        fraction = requested[i] / alloc
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class _AllocationScorer:
    """resourceAllocationScorer: the pod's request per configured resource, and per node
    (allocatable, node requested + pod request) fed to the strategy's scorer."""

    def __init__(self, resources, scorer, use_requested: bool):
        self.names = tuple(r["name"] for r in resources)
        self.weights = tuple(int(r.get("weight") or 1) for r in resources)
        self.scorer = scorer
        self.use_requested = use_requested

    def pod_request_list(self, pod: Pod) -> tuple[int, ...]:
        """calculatePodResourceRequest per resource (non-zero defaults unless useRequested)."""
        r = pod_requests(pod)
        out = []
        for name in self.names:
            if name == CPU:
                out.append(r.all.milli_cpu if self.use_requested else r.non_zero_cpu)
            elif name == MEMORY:
                out.append(r.all.memory if self.use_requested else r.non_zero_memory)
            elif name == EPHEMERAL_STORAGE:
                out.append(r.all.ephemeral_storage)
            else:
                out.append(r.all.scalar.get(name, 0))
        return tuple(out)

    def score(self, info: NodeInfo, pod_request: tuple[int, ...]) -> int:
        if not self.names:
            raise ScoreError("resources not found")
        node = node_requested(info)
        allocatable = info.allocatable
        alloc_list = [0] * len(self.names)
        req_list = [0] * len(self.names)
        for i, name in enumerate(self.names):
            pod_req = pod_request[i]
            if name == CPU:
                used = node.requested.milli_cpu if self.use_requested else node.non_zero_cpu
                alloc, req = allocatable.milli_cpu, used + pod_req
            elif name == MEMORY:
                used = node.requested.memory if self.use_requested else node.non_zero_memory
                alloc, req = allocatable.memory, used + pod_req
            elif name == EPHEMERAL_STORAGE:
                alloc, req = allocatable.ephemeral_storage, node.requested.ephemeral_storage + pod_req
            else:
                # An extended resource the pod does not request is not scored.
                if pod_req == 0 and is_scalar_resource_name(name):
                    continue
                if name not in allocatable.scalar:
                    continue
                alloc, req = allocatable.scalar[name], node.requested.scalar.get(name, 0) + pod_req
            if alloc == 0:
                continue
            alloc_list[i] = alloc
            req_list[i] = req
        return self.scorer(req_list, alloc_list)


# --- NodeResourcesFit ----------------------------------------------------------------------------------


def insufficient(name: str) -> str:
    return f"Insufficient {name}"


class Fit(Plugin):
    name = FIT_NAME
    events = frozenset({"AssignedPod/Delete", "Node/Add", "Node/UpdateNodeAllocatable", "Pod/UpdatePodScaleDown"})

    def __init__(self, args, handle):
        super().__init__(args, handle)
        # v1 defaults first (a missing or zero weight is 1), then the validation.
        self.args = fit_args_with_defaults(self.args)
        validate_fit_args(self.args)
        strategy = self.args["scoringStrategy"]
        self.ignored_resources = frozenset(self.args["ignoredResources"] or ())
        self.ignored_resource_groups = frozenset(self.args["ignoredResourceGroups"] or ())
        resources = strategy["resources"]
        weights = tuple(int(r["weight"]) for r in resources)
        kind = strategy["type"]
        if kind == LEAST_ALLOCATED:
            scorer = _weighted(least_requested_score, weights)
        elif kind == MOST_ALLOCATED:
            scorer = _weighted(most_requested_score, weights)
        else:
            shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []
            _raise(_validate_shape(shape, "scoringStrategy.shape"))
            scorer = requested_to_capacity_ratio_scorer(weights, shape)
        self.strategy = kind
        self.scorer = _AllocationScorer(resources, scorer, use_requested=False)

    # --- PreFilter / Filter ----------------------------------------------------------------

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        cs[PRE_FILTER_STATE_KEY] = pod_requests(pod).fit
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        request = cs.get(PRE_FILTER_STATE_KEY)
        if request is None:
            request = pod_requests(pod).fit
        reasons, unresolvable = self.fits_request(request, info)
        if not reasons:
            return OK
        return Status(UNRESOLVABLE if unresolvable else UNSCHEDULABLE, tuple(reasons))

    def fits_request(self, request: Resource, info: NodeInfo) -> tuple[list[str], bool]:
        """fitsRequest: the reasons, and whether one of them is unresolvable (the pod alone
        asks for more than the node's allocatable)."""
        reasons: list[str] = []
        unresolvable = False
        allocatable = info.allocatable
        if len(info.pods) + 1 > allocatable.allowed_pods:
            reasons.append(ERR_TOO_MANY_PODS)
        if request.milli_cpu == 0 and request.memory == 0 and request.ephemeral_storage == 0 and not request.scalar:
            return reasons, unresolvable
        used = node_requested(info).requested
        if request.milli_cpu > 0 and request.milli_cpu > allocatable.milli_cpu - used.milli_cpu:
            reasons.append(insufficient(CPU))
            unresolvable |= request.milli_cpu > allocatable.milli_cpu
        if request.memory > 0 and request.memory > allocatable.memory - used.memory:
            reasons.append(insufficient(MEMORY))
            unresolvable |= request.memory > allocatable.memory
        if request.ephemeral_storage > 0 and request.ephemeral_storage > allocatable.ephemeral_storage - used.ephemeral_storage:
            reasons.append(insufficient(EPHEMERAL_STORAGE))
            unresolvable |= request.ephemeral_storage > allocatable.ephemeral_storage
        if request.scalar:
            for name in sorted(request.scalar):
                quantity = request.scalar[name]
                if quantity == 0:
                    continue
                if is_extended_resource_name(name):
                    if name in self.ignored_resources or name.split("/")[0] in self.ignored_resource_groups:
                        continue
                have = allocatable.scalar.get(name, 0)
                if quantity > have - used.scalar.get(name, 0):
                    reasons.append(insufficient(name))
                    unresolvable |= quantity > have
        return reasons, unresolvable

    # --- PreScore / Score ----------------------------------------------------------------------

    def pre_score(self, cs, pod: Pod, nodes) -> Status:
        cs[PRE_SCORE_STATE_KEY] = self.scorer.pod_request_list(pod)
        return OK

    def score(self, cs, pod: Pod, info: NodeInfo) -> int:
        requests = cs.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_request_list(pod)
        return self.scorer.score(info, requests)


# --- NodeResourcesBalancedAllocation --------------------------------------------------------------------


def balanced_args_with_defaults(args: Mapping[str, Any]) -> dict:
    out = dict(args)
    out["resources"] = _resources_of(out.get("resources")) or default_resources()
    return out


def validate_balanced_args(args: Mapping[str, Any]) -> None:
    """ValidateNodeResourcesBalancedAllocationArgs: every weight must be 1."""
    errs = []
    seen = set()
    for i, r in enumerate(args.get("resources") or ()):
        w = r.get("weight")
        if w is not None and w != 1:
            errs.append(f"resources[{i}].weight: Invalid value: {w}: must be 1")
        name = r.get("name")
        if name in seen:
            errs.append(f'resources[{i}].name: Duplicate value: "{name}"')
        seen.add(name)
    _raise(errs)


class BalancedAllocation(Plugin):
    name = BALANCED_NAME
    # Score-only: no EnqueueExtensions upstream.
    events = frozenset()

    def __init__(self, args, handle):
        super().__init__(args, handle)
        self.args = balanced_args_with_defaults(self.args)
        validate_balanced_args(self.args)
        self.scorer = _AllocationScorer(self.args["resources"], balanced_resource_scorer, use_requested=True)

    def pre_score(self, cs, pod: Pod, nodes) -> Status:
        requests = self.scorer.pod_request_list(pod)
        if not any(requests):
            # Best-effort pods are not scored (they would all pile onto one node).
            return SKIPPED
        cs[BALANCED_PRE_SCORE_STATE_KEY] = requests
        return OK

    def score(self, cs, pod: Pod, info: NodeInfo) -> int:
        requests = cs.get(BALANCED_PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_request_list(pod)
            if not any(requests):
                return 0
        return self.scorer.score(info, requests)
