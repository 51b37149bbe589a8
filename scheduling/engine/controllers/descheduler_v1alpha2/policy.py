"""The `DeschedulerPolicy` of `apiVersion: descheduler/v1alpha2` (sigs.k8s.io/descheduler
pkg/api/v1alpha2, pkg/descheduler/policyconfig.go): decoding, the plugins' args with their
upstream defaults (each plugin's defaults.go) and validation messages (validation.go),
and the DefaultEvictor that LoadPolicyConfig adds to every profile.

* `profiles[]`: `name`, `pluginConfig[]` (`name`, `args`), `plugins` per extension point
  (`deschedule`, `balance`, `filter`, `preevictionfilter`; also `presort`, `sort`, read
  and ignored as upstream) with `enabled` / `disabled`.
* `nodeSelector` (labels.Parse syntax), `maxNoOfPodsToEvictPerNode`,
  `maxNoOfPodsToEvictPerNamespace`, `maxNoOfPodsToEvictTotal` (nil: no limit),
  `evictionFailureEventNotification`.
* A pluginConfig naming an unknown plugin: "in profile <p>: plugin <n> in pluginConfig not
  registered"; a plugin's invalid args: "in profile <p>: <validation message>". The errors
  are aggregated as utilerrors.NewAggregate prints them ("[a, b]" for more than one).
* setDefaultEvictor: DefaultEvictor is put first in `filter` and `preevictionfilter`, and a
  pluginConfig for it (all protections on except PVC / without-PDB) is added first when
  the profile has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.engine.api import selectors
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.controllers.descheduler_strategies.common import DeschedulerPolicyError

API_VERSION = "descheduler/v1alpha2"
KIND = "DeschedulerPolicy"
DEFAULT_POLICY_NAME = "descheduler-policy"

DEFAULT_EVICTOR = "DefaultEvictor"
REMOVE_DUPLICATES = "RemoveDuplicates"
LOW_NODE_UTILIZATION = "LowNodeUtilization"
HIGH_NODE_UTILIZATION = "HighNodeUtilization"
REMOVE_POD_ANTI_AFFINITY = "RemovePodsViolatingInterPodAntiAffinity"
REMOVE_NODE_AFFINITY = "RemovePodsViolatingNodeAffinity"
REMOVE_NODE_TAINTS = "RemovePodsViolatingNodeTaints"
REMOVE_TOPOLOGY_SPREAD = "RemovePodsViolatingTopologySpreadConstraint"
POD_LIFE_TIME = "PodLifeTime"
TOO_MANY_RESTARTS = "RemovePodsHavingTooManyRestarts"
REMOVE_FAILED_PODS = "RemoveFailedPods"

# The plugin registry (pkg/descheduler/setupplugins.go) and each plugin's extension points.
DESCHEDULE = "deschedule"
BALANCE = "balance"
FILTER = "filter"
PRE_EVICTION_FILTER = "preevictionfilter"
EXTENSION_POINTS = ("presort", "sort", DESCHEDULE, BALANCE, FILTER, PRE_EVICTION_FILTER)
REGISTRY: dict[str, tuple[str, ...]] = {
    DEFAULT_EVICTOR: (FILTER, PRE_EVICTION_FILTER),
    REMOVE_DUPLICATES: (BALANCE,),
    LOW_NODE_UTILIZATION: (BALANCE,),
    HIGH_NODE_UTILIZATION: (BALANCE,),
    REMOVE_POD_ANTI_AFFINITY: (DESCHEDULE,),
    REMOVE_NODE_AFFINITY: (DESCHEDULE,),
    REMOVE_NODE_TAINTS: (DESCHEDULE,),
    REMOVE_TOPOLOGY_SPREAD: (BALANCE,),
    POD_LIFE_TIME: (DESCHEDULE,),
    TOO_MANY_RESTARTS: (DESCHEDULE,),
    REMOVE_FAILED_PODS: (DESCHEDULE,),
}

DEFAULT_POD_PROTECTIONS = ("PodsWithLocalStorage", "SystemCriticalPods", "FailedBarePods", "DaemonSetPods")
EXTRA_POD_PROTECTIONS = ("PodsWithPVC", "PodsWithoutPDB", "PodsWithResourceClaims")
RESOURCES = ("cpu", "memory", "pods")
POD_LIFE_TIME_STATES = ("Running", "Pending", "Succeeded", "Failed", "Unknown", "PodInitializing",
                        "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError",
                        "ErrImagePull", "CreateContainerError", "InvalidImageName", "NodeAffinity", "NodeLost",
                        "Shutdown", "UnexpectedAdmissionError")
TOO_MANY_RESTARTS_STATES = ("Running", "CrashLoopBackOff")


def _go_list(values) -> str:
    """fmt's %v of a []string: [a b c]."""
    return "[" + " ".join(str(v) for v in values) + "]"


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error()."""
    if len(errors) == 1:
        return errors[0]
    return "[" + ", ".join(errors) + "]"


@dataclass(frozen=True)
class Profile:
    name: str
    plugin_config: Mapping[str, Mapping[str, Any]]  # plugin name -> args (defaulted)
    plugins: Mapping[str, tuple[str, ...]]  # extension point -> enabled plugins, in order

    def enabled(self, point: str) -> tuple[str, ...]:
        return self.plugins.get(point, ())

    def args(self, plugin: str) -> Mapping[str, Any]:
        return self.plugin_config.get(plugin) or {}


@dataclass(frozen=True)
class PolicyV2:
    name: str
    profiles: tuple[Profile, ...]
    node_selector: str = ""
    max_per_node: int | None = None
    max_per_namespace: int | None = None
    max_total: int | None = None
    failure_events: bool = False  # evictionFailureEventNotification
    doc: Mapping[str, Any] = field(default_factory=dict)


def _type_error(path: str, want: str, got: Any) -> DeschedulerPolicyError:
    kind = {bool: "bool", int: "number", float: "number", str: "string", list: "array", dict: "object"}.get(type(got), type(got).__name__)
    return DeschedulerPolicyError(f"failed decoding descheduler's policy config: {path}: expected {want}, got {kind}")


def _map(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _type_error(path, "object", value)
    return value


def _list(value: Any, path: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _type_error(path, "array", value)
    return value


def _uint(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _type_error(path, "unsigned integer", value)
    return value


def _namespaces_error(args: Mapping[str, Any], key: str = "namespaces") -> list[str]:
    ns = args.get(key) or {}
    if ns.get("include") and ns.get("exclude"):
        return ["only one of Include/Exclude namespaces can be set"]
    return []


def _selector_error(args: Mapping[str, Any]) -> list[str]:
    sel = args.get("labelSelector")
    if sel is None:
        return []
    parsed = LabelSelector.from_doc(sel)
    result = selectors.label_selector_as_selector(parsed.match_labels, selectors.expressions_of(sel.get("matchExpressions")))
    if isinstance(result, str):
        return [f"failed to get label selectors from strategy's params: {result}"]
    return []


def _thresholds_error(thresholds: Mapping[str, Any]) -> str | None:
    """validateThresholds (nodeutilization/validation.go)."""
    if not thresholds:
        return "no resource threshold is configured"
    for name, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value > 100:
            return f"{name} threshold not in [0, 100] range"
    return None


def default_and_validate(plugin: str, raw: Mapping[str, Any]) -> tuple[dict, list[str]]:
    """The plugin's args with upstream defaults, and its validation errors."""
    args = dict(raw or {})
    errs: list[str] = []
    if plugin == DEFAULT_EVICTOR:
        pt = args.get("priorityThreshold") or {}
        if pt.get("value") is not None and pt.get("name"):
            errs.append("priority threshold misconfigured, only one of priorityThreshold fields can be set")
        nep = args.get("noEvictionPolicy")
        if nep and nep not in ("Preferred", "Mandatory"):
            errs.append('noEvictionPolicy accepts only ["Preferred" "Mandatory"] values')
        deprecated = any(args.get(k) for k in ("evictLocalStoragePods", "evictDaemonSetPods", "evictSystemCriticalPods",
                                              "ignorePvcPods", "evictFailedBarePods", "ignorePodsWithoutPDB"))
        pp = args.get("podProtections") or {}
        extra, disabled = list(pp.get("extraEnabled") or ()), list(pp.get("defaultDisabled") or ())
        if deprecated and (extra or disabled):
            errs.append("cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled")
        for p in extra:
            if p not in EXTRA_POD_PROTECTIONS:
                errs.append(f'invalid pod protection policy in ExtraEnabled: "{p}". Valid options are: {_go_list(EXTRA_POD_PROTECTIONS)}')
        for p in disabled:
            if p not in DEFAULT_POD_PROTECTIONS:
                errs.append(f'invalid pod protection policy in DefaultDisabled: "{p}". Valid options are: {_go_list(DEFAULT_POD_PROTECTIONS)}')
        if len(set(disabled)) != len(disabled):
            errs.append("PodProtections.DefaultDisabled contains duplicate entries")
        if len(set(extra)) != len(extra):
            errs.append("PodProtections.ExtraEnabled contains duplicate entries")
        if "PodsWithPVC" in extra:
            config = ((pp.get("config") or {}).get("PodsWithPVC") or {})
            for i, sc in enumerate(config.get("protectedStorageClasses") or ()):
                if not (sc or {}).get("name"):
                    errs.append(f"PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[{i}] name cannot be empty")
    elif plugin == REMOVE_DUPLICATES:
        errs += _namespaces_error(args)
    elif plugin == REMOVE_FAILED_PODS:
        args.setdefault("minPodLifetimeSeconds", 3600)
        errs += _namespaces_error(args) + _selector_error(args)
    elif plugin == TOO_MANY_RESTARTS:
        errs += _namespaces_error(args) + _selector_error(args)
        if int(args.get("podRestartThreshold") or 0) < 1:
            errs.append("invalid PodsHavingTooManyRestarts threshold")
        states = args.get("states") or ()
        if any(s not in TOO_MANY_RESTARTS_STATES for s in states):
            errs.append(f"states must be one of {_go_list(TOO_MANY_RESTARTS_STATES)}")
    elif plugin in (REMOVE_POD_ANTI_AFFINITY,):
        errs += _namespaces_error(args) + _selector_error(args)
    elif plugin == REMOVE_NODE_AFFINITY:
        if not args.get("nodeAffinityType"):
            errs.append("nodeAffinityType needs to be set")
        errs += _namespaces_error(args) + _selector_error(args)
    elif plugin == REMOVE_NODE_TAINTS:
        errs += _namespaces_error(args) + _selector_error(args)
        if args.get("includedTaints") and args.get("excludedTaints"):
            errs.append("either includedTaints or excludedTaints can be set, but not both")
    elif plugin == REMOVE_TOPOLOGY_SPREAD:
        if args.get("topologyBalanceNodeFit") is None:
            args["topologyBalanceNodeFit"] = True
        if not args.get("constraints"):
            args["constraints"] = ["DoNotSchedule"]
        errs += _namespaces_error(args) + _selector_error(args)
        for c in args["constraints"]:
            if c not in ("DoNotSchedule", "ScheduleAnyway"):
                errs.append(f"constraint {c} is not one of [DoNotSchedule ScheduleAnyway]")
    elif plugin == POD_LIFE_TIME:
        errs += _namespaces_error(args)
        ok = args.get("ownerKinds") or {}
        if ok.get("include") and ok.get("exclude"):
            errs.append("only one of Include/Exclude ownerKinds can be set")
        errs += _selector_error(args)
        states = args.get("states") or ()
        if any(s not in POD_LIFE_TIME_STATES for s in states):
            errs.append(f"states must be one of {_go_list(POD_LIFE_TIME_STATES)}")
        if args.get("maxPodLifeTimeSeconds") is None and not states and not args.get("conditions") and not args.get("exitCodes"):
            errs.append("at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)")
    elif plugin == LOW_NODE_UTILIZATION:
        if (args.get("evictableNamespaces") or {}).get("include"):
            errs.append("only Exclude namespaces can be set, inclusion is not supported")
        else:
            t, tt = args.get("thresholds") or {}, args.get("targetThresholds") or {}
            e = _thresholds_error(t)
            if e:
                errs.append(f"thresholds config is not valid: {e}")
            else:
                e = _thresholds_error(tt)
                if e:
                    errs.append(f"targetThresholds config is not valid: {e}")
                elif set(t) != set(tt):
                    errs.append("thresholds and targetThresholds configured different resources")
                else:
                    for name in t:
                        if not args.get("useDeviationThresholds") and t[name] > tt[name]:
                            errs.append(f"thresholds' {name} percentage is greater than targetThresholds'")
                            break
    elif plugin == HIGH_NODE_UTILIZATION:
        if (args.get("evictableNamespaces") or {}).get("include"):
            errs.append("only Exclude namespaces can be set, inclusion is not supported")
        else:
            e = _thresholds_error(args.get("thresholds") or {})
            if e:
                errs.append(e)
            else:
                bad = [m for m in args.get("evictionModes") or () if m != "OnlyThresholdingResources"]
                if bad:
                    errs.append(f"invalid eviction mode {bad[0]}")
    return args, errs


def load_policy_v2(doc: Mapping[str, Any]) -> PolicyV2:
    """A v1alpha2 DeschedulerPolicy, defaulted and validated; raises DeschedulerPolicyError."""
    if not isinstance(doc, Mapping) or doc.get("kind") != KIND or doc.get("apiVersion") != API_VERSION:
        raise DeschedulerPolicyError(
            f"failed decoding descheduler's policy config: no kind \"{(doc or {}).get('kind')}\" is registered for version \"{(doc or {}).get('apiVersion')}\"")
    name = str(((doc.get("metadata") or {}).get("name")) or DEFAULT_POLICY_NAME)
    errors: list[str] = []
    profiles = []
    for i, raw in enumerate(_list(doc.get("profiles"), "profiles")):
        body = _map(raw, f"profiles[{i}]")
        pname = str(body.get("name") or "")
        configs: dict[str, dict] = {}
        for j, pc in enumerate(_list(body.get("pluginConfig"), f"profiles[{i}].pluginConfig")):
            pc = _map(pc, f"profiles[{i}].pluginConfig[{j}]")
            plugin = str(pc.get("name") or "")
            if plugin not in REGISTRY:
                errors.append(f"in profile {pname}: plugin {plugin} in pluginConfig not registered")
                continue
            args, errs = default_and_validate(plugin, _map(pc.get("args"), f"profiles[{i}].pluginConfig[{j}].args"))
            errors += [f"in profile {pname}: {e}" for e in errs]
            configs[plugin] = args
        plugins_doc = _map(body.get("plugins"), f"profiles[{i}].plugins")
        plugins: dict[str, tuple[str, ...]] = {}
        for point in EXTENSION_POINTS:
            ps = _map(plugins_doc.get(point), f"profiles[{i}].plugins.{point}")
            disabled = set(_list(ps.get("disabled"), f"profiles[{i}].plugins.{point}.disabled"))
            enabled = [str(p) for p in _list(ps.get("enabled"), f"profiles[{i}].plugins.{point}.enabled") if p not in disabled]
            plugins[point] = tuple(enabled)
        # setDefaultEvictor
        for point in (FILTER, PRE_EVICTION_FILTER):
            if DEFAULT_EVICTOR not in plugins[point]:
                plugins[point] = (DEFAULT_EVICTOR, *plugins[point])
        if DEFAULT_EVICTOR not in configs:
            configs = {DEFAULT_EVICTOR: {}, **configs}
        for point in (DESCHEDULE, BALANCE):
            for plugin in plugins[point]:
                if plugin not in REGISTRY or point not in REGISTRY[plugin]:
                    errors.append(f"in profile {pname}: plugin {plugin} does not implement the {point} extension point"
                                  if plugin in REGISTRY else f"in profile {pname}: plugin {plugin} not registered")
                elif plugin not in configs:
                    args, errs = default_and_validate(plugin, {})
                    errors += [f"in profile {pname}: {e}" for e in errs]
                    configs[plugin] = args
        profiles.append(Profile(pname, configs, plugins))
    if errors:
        raise DeschedulerPolicyError(aggregate(errors))
    selector = doc.get("nodeSelector")
    if selector is not None and not isinstance(selector, str):
        raise _type_error("nodeSelector", "string", selector)
    return PolicyV2(
        name=name,
        profiles=tuple(profiles),
        node_selector=selector or "",
        max_per_node=_uint(doc.get("maxNoOfPodsToEvictPerNode"), "maxNoOfPodsToEvictPerNode"),
        max_per_namespace=_uint(doc.get("maxNoOfPodsToEvictPerNamespace"), "maxNoOfPodsToEvictPerNamespace"),
        max_total=_uint(doc.get("maxNoOfPodsToEvictTotal"), "maxNoOfPodsToEvictTotal"),
        failure_events=bool(doc.get("evictionFailureEventNotification")),
        doc=doc,
    )
