"""`KubeSchedulerConfiguration` (kubescheduler.config.k8s.io/v1) into profiles, and which
scheduler a cluster runs.

Defaulting follows upstream: the default plugins are enabled at `multiPoint` (with their
score weights); a profile's own `plugins` are merged with them (mergePluginSet: a default
re-configured keeps its place, `disabled` drops defaults, "*" all of them); each extension
point is then expanded from multiPoint (expandMultiPointPlugins: plugins re-configured at
the point first, then the multiPoint ones, then the point's others). Plugin args default
as upstream (each plugin applies its own defaults to what it is given).

OpenShift's cluster `Scheduler` (config.openshift.io/v1) `spec.profile` selects the
configuration OpenShift's kube-scheduler operator renders: LowNodeUtilization (the
defaults), HighNodeUtilization (NodeResourcesFit MostAllocated, weight 5, without
NodeResourcesBalancedAllocation), NoScoring (every preScore and score plugin disabled).

Which scheduler a cluster runs (`uses_framework`): the framework when its documents hold a
KubeSchedulerConfiguration, a `Scheduler`, or a ClusterVersion of 4.10 or later (the
`Policy` API is gone there); otherwise the OpenShift 3.11 scheduler with its Policy.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.framework.interface import ArgsError, Handle
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import PolicyError
from scheduling.engine.scheduler.policy import schedulers_for as policy_schedulers
from scheduling.engine.framework.plugins import REGISTRY, plugin_class
from scheduling.engine.framework.runtime import EXTENSION_POINTS, METHODS, Profile

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
OPENSHIFT_KIND = "Scheduler"
OPENSHIFT_API_VERSION = "config.openshift.io/v1"
OPENSHIFT_PROFILES = ("LowNodeUtilization", "HighNodeUtilization", "NoScoring")

# getDefaultPlugins (v1.35): multiPoint, in order, with score weights.
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
)

# The documents OpenShift's kube-scheduler operator renders for each Scheduler profile.
OPENSHIFT_PROFILE_CONFIG: dict[str, dict] = {
    "LowNodeUtilization": {"profiles": [{"schedulerName": DEFAULT_SCHEDULER}]},
    "HighNodeUtilization": {"profiles": [{
        "schedulerName": DEFAULT_SCHEDULER,
        "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
        "plugins": {"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}],
                              "enabled": [{"name": "NodeResourcesFit", "weight": 5}]}},
    }]},
    "NoScoring": {"profiles": [{
        "schedulerName": DEFAULT_SCHEDULER,
        "plugins": {"preScore": {"disabled": [{"name": "*"}]}, "score": {"disabled": [{"name": "*"}]}},
    }]},
}

# What each extension point is called in errors (the Go interface names).
POINT_TYPES = {
    "preEnqueue": "PreEnqueuePlugin", "queueSort": "QueueSortPlugin", "preFilter": "PreFilterPlugin",
    "filter": "FilterPlugin", "postFilter": "PostFilterPlugin", "preScore": "PreScorePlugin",
    "score": "ScorePlugin", "reserve": "ReservePlugin", "permit": "PermitPlugin", "preBind": "PreBindPlugin",
    "bind": "BindPlugin", "postBind": "PostBindPlugin",
}


class ConfigError(ValueError):
    """The configuration is invalid: str() says where (field path) and why."""


def _entries(doc: Any, path: str) -> list[tuple[str, int]]:
    if doc is None:
        return []
    if not isinstance(doc, list):
        raise ConfigError(f"{path}: Invalid value: expected a list of plugins")
    out = []
    for i, entry in enumerate(doc):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry.get("name"):
            raise ConfigError(f"{path}[{i}].name: Required value")
        weight = entry.get("weight", 0)
        if not isinstance(weight, int) or isinstance(weight, bool) or weight < 0:
            raise ConfigError(f"{path}[{i}].weight: Invalid value: {weight!r}: must be a non-negative integer")
        out.append((entry["name"], weight))
    return out


def _merge(default: list[tuple[str, int]], custom: Mapping[str, Any] | None, path: str):
    """mergePluginSet: (enabled, disabled names)."""
    custom = custom or {}
    if not isinstance(custom, Mapping):
        raise ConfigError(f"{path}: Invalid value: expected an object with enabled and disabled")
    disabled = [name for name, _ in _entries(custom.get("disabled"), f"{path}.disabled")]
    enabled_custom = _entries(custom.get("enabled"), f"{path}.enabled")
    index = {name: i for i, (name, _) in enumerate(enabled_custom)}
    replaced: set[int] = set()
    enabled: list[tuple[str, int]] = []
    if "*" not in disabled:
        for name, weight in default:
            if name in disabled:
                continue
            if name in index:
                enabled.append(enabled_custom[index[name]])
                replaced.add(index[name])
            else:
                enabled.append((name, weight))
    enabled += [entry for i, entry in enumerate(enabled_custom) if i not in replaced]
    return enabled, disabled


def _implements(name: str, point: str) -> bool:
    return hasattr(plugin_class(name), METHODS[point])


def build_profile(doc: Mapping[str, Any], path: str, percentage: int | None) -> Profile:
    name = doc.get("schedulerName")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}.schedulerName: Required value")
    plugins_doc = doc.get("plugins") or {}
    if not isinstance(plugins_doc, Mapping):
        raise ConfigError(f"{path}.plugins: Invalid value: expected an object")
    unknown = sorted(set(plugins_doc) - set(EXTENSION_POINTS) - {"multiPoint"})
    if unknown:
        raise ConfigError(f'{path}.plugins: unknown field "{unknown[0]}"')
    multi, _ = _merge(list(DEFAULT_MULTI_POINT), plugins_doc.get("multiPoint"), f"{path}.plugins.multiPoint")
    for i, (plugin, _) in enumerate(multi):
        if plugin not in REGISTRY:
            raise ConfigError(f'{path}.plugins.multiPoint.enabled[{i}]: plugin "{plugin}" does not exist')
    points: dict[str, tuple[tuple[str, int], ...]] = {}
    for point in EXTENSION_POINTS:
        enabled, disabled = _merge([], plugins_doc.get(point), f"{path}.plugins.{point}")
        for plugin, _ in enabled:
            if plugin not in REGISTRY:
                raise ConfigError(f'{POINT_TYPES[point]} "{plugin}" does not exist')
            if not _implements(plugin, point):
                raise ConfigError(f'plugin "{plugin}" does not extend {POINT_TYPES[point]} plugin')
        explicit = [n for n, _ in enabled]
        if len(set(explicit)) != len(explicit):
            dup = next(n for n in explicit if explicit.count(n) > 1)
            raise ConfigError(f'plugin "{dup}" already registered as "{POINT_TYPES[point]}"')
        if "*" in disabled:
            ordered = list(enabled)
        else:
            override, from_multi = [], []
            for plugin, weight in multi:
                if not _implements(plugin, point) or plugin in disabled:
                    continue
                if plugin in explicit:
                    override.append(plugin)
                    continue
                if any(plugin == n for n, _ in from_multi):
                    raise ConfigError(f'plugin "{plugin}" already registered as "{POINT_TYPES[point]}"')
                from_multi.append((plugin, weight))
            by_name = dict(enabled)
            ordered = [(n, by_name[n]) for n in explicit if n in override]
            ordered += from_multi
            ordered += [(n, w) for n, w in enabled if n not in override]
        if point == "score":
            ordered = [(n, w or 1) for n, w in ordered]
        if ordered:
            points[point] = tuple(ordered)
    config: dict[str, dict] = {}
    for i, entry in enumerate(doc.get("pluginConfig") or ()):
        if not isinstance(entry, Mapping) or not entry.get("name"):
            raise ConfigError(f"{path}.pluginConfig[{i}].name: Required value")
        if entry["name"] in config:
            raise ConfigError(f'{path}.pluginConfig[{i}]: Duplicate value: "{entry["name"]}"')
        args = entry.get("args") or {}
        if not isinstance(args, Mapping):
            raise ConfigError(f"{path}.pluginConfig[{i}].args: Invalid value: expected an object")
        config[entry["name"]] = dict(args)
    own = doc.get("percentageOfNodesToScore")
    if own is not None:
        _check_percentage(own, f"{path}.percentageOfNodesToScore")
    return Profile(name, points, config, own if own is not None else percentage)


def _check_percentage(value: Any, path: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
        raise ConfigError(f"{path}: Invalid value: {value!r}: not in valid range [0-100]")


def load_configuration(doc: Mapping[str, Any]) -> list[tuple[str, Profile]]:
    """The profiles of a KubeSchedulerConfiguration document, [(schedulerName, Profile)]."""
    if not isinstance(doc, Mapping):
        raise ConfigError("KubeSchedulerConfiguration: expected an object")
    api = doc.get("apiVersion")
    if api is not None and api != API_VERSION:
        raise ConfigError(f'apiVersion: Unsupported value: "{api}": supported values: "{API_VERSION}"')
    percentage = doc.get("percentageOfNodesToScore")
    if percentage is not None:
        _check_percentage(percentage, "percentageOfNodesToScore")
    profiles_doc = doc.get("profiles") or [{"schedulerName": DEFAULT_SCHEDULER}]
    if not isinstance(profiles_doc, list):
        raise ConfigError("profiles: Invalid value: expected a list")
    out: list[tuple[str, Profile]] = []
    seen: set[str] = set()
    for i, p in enumerate(profiles_doc):
        if not isinstance(p, Mapping):
            raise ConfigError(f"profiles[{i}]: Invalid value: expected an object")
        p = {"schedulerName": DEFAULT_SCHEDULER, **p} if "schedulerName" not in p else p
        profile = build_profile(p, f"profiles[{i}]", percentage)
        if profile.scheduler_name in seen:
            raise ConfigError(f'profiles[{i}].schedulerName: Duplicate value: "{profile.scheduler_name}"')
        seen.add(profile.scheduler_name)
        _check_args(profile, f"profiles[{i}]")
        out.append((profile.scheduler_name, profile))
    queue_sorts = {p.plugins.get("queueSort") for _, p in out}
    if len(queue_sorts) > 1:
        raise ConfigError("profiles[1].plugins.queueSort: Invalid value: must be the same for all profiles")
    return out


def _check_args(profile: Profile, path: str) -> None:
    """Each enabled plugin made once with its args: an invalid argument is refused here,
    with the plugin's own validation message."""
    handle = Handle(state=ClusterState(), node_infos={})
    names = {n for point in profile.plugins.values() for n, _ in point}
    for i, name in enumerate(profile.plugin_config):
        if name not in REGISTRY:
            raise ConfigError(f'{path}.pluginConfig[{i}]: plugin "{name}" does not exist')
    for name in sorted(names):
        try:
            plugin_class(name)(profile.plugin_config.get(name), handle)
        except ArgsError as exc:
            i = list(profile.plugin_config).index(name) if name in profile.plugin_config else 0
            raise ConfigError(f"{path}.pluginConfig[{i}].args.{exc}") from exc


def openshift_configuration(doc: Mapping[str, Any]) -> dict:
    """The KubeSchedulerConfiguration OpenShift's operator renders for a `Scheduler`."""
    spec = doc.get("spec") or {}
    profile = spec.get("profile") or "LowNodeUtilization"
    if profile not in OPENSHIFT_PROFILES:
        raise ConfigError(f'spec.profile: Unsupported value: "{profile}": supported values: '
                          + ", ".join(f'"{p}"' for p in OPENSHIFT_PROFILES))
    return {"apiVersion": API_VERSION, "kind": KIND, **OPENSHIFT_PROFILE_CONFIG[profile]}


_VERSION = re.compile(r"^(\d+)\.(\d+)")


def cluster_version(docs: Iterable[Mapping[str, Any]]) -> tuple[int, int] | None:
    """(major, minor) of the cluster's ClusterVersion (`status.desired.version`, else the
    newest history entry, else `spec.desiredUpdate.version`), None without one."""
    for doc in docs:
        if doc.get("kind") != "ClusterVersion":
            continue
        status = doc.get("status") or {}
        candidates = [((status.get("desired") or {}).get("version"))]
        candidates += [h.get("version") for h in status.get("history") or () if isinstance(h, Mapping)]
        candidates.append(((doc.get("spec") or {}).get("desiredUpdate") or {}).get("version"))
        for version in candidates:
            m = _VERSION.match(str(version or ""))
            if m:
                return int(m.group(1)), int(m.group(2))
    return None


def uses_framework(docs: Iterable[Mapping[str, Any]]) -> bool:
    """Whether these documents make a cluster run the framework scheduler."""
    docs = list(docs)
    if any(d.get("kind") in (KIND, OPENSHIFT_KIND) for d in docs):
        return True
    version = cluster_version(docs)
    return version is not None and version >= (4, 10)


def schedulers_for(docs: Iterable[Mapping[str, Any]]) -> list[tuple[str, Profile]]:
    """The framework's schedulers from a cluster's documents: the KubeSchedulerConfiguration
    if there is one, else the `Scheduler`'s profile, else the defaults."""
    docs = list(docs)
    configs = [d for d in docs if d.get("kind") == KIND]
    if len(configs) > 1:
        raise ConfigError("only one KubeSchedulerConfiguration document may be given")
    if configs:
        return load_configuration(configs[0])
    openshift = [d for d in docs if d.get("kind") == OPENSHIFT_KIND]
    if openshift:
        return load_configuration(openshift_configuration(openshift[0]))
    return load_configuration({"apiVersion": API_VERSION, "kind": KIND})


CONFIG_KINDS = (KIND, OPENSHIFT_KIND)


def select_schedulers(config_docs: Iterable[Mapping[str, Any] | None], cluster_docs: Iterable[Mapping[str, Any]] = ()):
    """The schedulers a cluster runs, behind one interface: [(schedulerName, scheduler)],
    each a framework Profile or a 3.11 Policy.

    `config_docs`: the scheduler configuration documents (Policy, KubeSchedulerConfiguration,
    Scheduler; None for "the default"); `cluster_docs`: the cluster's objects (a
    ClusterVersion of 4.10 or later selects the framework). A Policy on a framework cluster
    is refused: the Policy API is gone from OpenShift 4.10 on."""
    configs = [d for d in config_docs if d]
    framework_docs = [d for d in configs if d.get("kind") in CONFIG_KINDS]
    policies = [d for d in configs if d.get("kind") not in CONFIG_KINDS]
    version = cluster_version(cluster_docs)
    if framework_docs or (version is not None and version >= (4, 10)):
        if policies:
            raise ConfigError("scheduler Policy: not supported by this cluster's scheduler: the Policy API was "
                              "removed in OpenShift 4.10 (Kubernetes 1.23); use a KubeSchedulerConfiguration "
                              "or the cluster Scheduler's spec.profile")
        return schedulers_for(framework_docs)
    try:
        return policy_schedulers(policies)
    except PolicyError as exc:
        raise ConfigError(f"scheduler Policy: {exc}") from exc


def is_framework(scheduler: Any) -> bool:
    return isinstance(scheduler, Profile)
