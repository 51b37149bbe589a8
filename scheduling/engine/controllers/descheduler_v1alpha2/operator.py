"""OpenShift's Kube Descheduler Operator (openshift/cluster-kube-descheduler-operator,
pkg/operator/target_config_reconciler.go): a `KubeDescheduler` (`operator.openshift.io/v1`,
name `cluster`, namespace `openshift-kube-descheduler-operator`) rendered into the
ConfigMap `cluster` of that namespace, whose `data["policy.yaml"]` is the
`descheduler/v1alpha2` DeschedulerPolicy the descheduler runs (manageConfigMap).

* The protected namespaces: kube-system, hypershift, openshift and every namespace whose
  name starts with `openshift-` (in the API's order); they are excluded from every plugin
  unless `profileCustomizations.namespaces.included` is set (which may not name one of
  them, nor be combined with `excluded`).
* Profiles: AffinityAndTaints, TopologyAndDuplicates, SoftTopologyAndDuplicates,
  LifecycleAndUtilization, LongLifecycle (and DevPreviewLongLifecycle), CompactAndScale;
  EvictPodsWithPVC and EvictPodsWithLocalStorage only change the DefaultEvictor of the
  others (ignorePvcPods is on unless EvictPodsWithPVC; evictLocalStoragePods with
  EvictPodsWithLocalStorage). KubeVirtRelieveAndMigrate / DevKubeVirtRelieveAndMigrate need
  KubeVirt and PSI metrics, which a simulated cluster never has: the operator's error.
* Customizations: podLifetime, thresholdPriority / thresholdPriorityClassName,
  namespaces, devLowNodeUtilizationThresholds (Low 10/30, Medium 20/50, High 40/70),
  devHighNodeUtilizationThresholds (Minimal 10, Modest 20, Moderate 30); evictionLimits
  (total, node: also the LowNodeUtilization plugin's own node limit).
* The cluster `Scheduler`'s profile conflicts: HighNodeUtilization with the
  LowNodeUtilization-based profiles, LowNodeUtilization (the default) with CompactAndScale.
* policy.yaml is sigs.k8s.io/yaml's rendering of the Go structs: keys sorted, empty
  plugin sets as `null`, the DefaultEvictor's `podProtections: {}`.
* `spec.mode`: Predictive (the CRD's default: the descheduler runs with --dry-run) or
  Automatic; `spec.deschedulingIntervalSeconds` must be set and above 0, else the operator
  scales the descheduler to zero ("descheduler should have an interval set and it should be
  greater than 0").
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import yaml

from scheduling.engine.api.validation import crd

API_VERSION = "operator.openshift.io/v1"
KIND = "KubeDescheduler"
NAME = crd.KUBE_DESCHEDULER_NAME
NAMESPACE = "openshift-kube-descheduler-operator"
DEFAULT_INTERVAL = 3600  # what the page proposes (the CRD has no default)
AUTOMATIC, PREDICTIVE = crd.KUBE_DESCHEDULER_MODES

PROFILES = ("AffinityAndTaints", "TopologyAndDuplicates", "SoftTopologyAndDuplicates", "LifecycleAndUtilization",
            "EvictPodsWithLocalStorage", "EvictPodsWithPVC", "DevPreviewLongLifecycle", "LongLifecycle",
            "CompactAndScale", "KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate")
LOW_THRESHOLDS = {"Low": (10, 30), "Medium": (20, 50), "": (20, 50), "High": (40, 70)}
HIGH_THRESHOLDS = {"Minimal": 10, "Modest": 20, "": 20, "Moderate": 30}


class OperatorError(ValueError):
    """What the operator reports instead of rendering (its sync error)."""


def validate(kd: Mapping[str, Any]) -> list[str]:
    """The CRD schema's checks (engine.api.validation.crd: its types, then
    kube_descheduler_rules), as the API server words them (field path: message); empty when
    the object is valid."""
    errs: list = []
    crd.check_custom_resource({**kd, "kind": KIND}, errs)
    return [str(e) for e in errs]


def check(kd: Mapping[str, Any]) -> None:
    """Raise OperatorError with the API server's message when the object is invalid."""
    errs = validate(kd)
    if errs:
        name = (kd.get("metadata") or {}).get("name") or ""
        detail = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise OperatorError(f'KubeDescheduler.operator.openshift.io "{name}" is invalid: {detail}')


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def parse_duration(value: Any) -> float:
    """metav1.Duration (Go's time.ParseDuration): "5m", "24h", "1h30m"; seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = str(value or "").strip()
    if text in ("0", ""):
        return 0.0
    pos, total = 0, 0.0
    for m in _DURATION.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(text):
        raise OperatorError(f'time: invalid duration "{text}"')
    return total


def protected_namespaces(namespaces: Iterable[str]) -> list[str]:
    """kube-system, hypershift, openshift and the cluster's openshift-* namespaces (the
    operator's own among them: it runs there)."""
    names = set(namespaces) | {NAMESPACE}
    return ["kube-system", "hypershift", "openshift"] + [n for n in sorted(names) if n.startswith("openshift-")]


def _ns(included: list[str], excluded: list[str]) -> dict:
    out = {}
    if included:
        out["include"] = list(included)
    if excluded:
        out["exclude"] = list(excluded)
    return out


def _plugins(deschedule=None, balance=None) -> dict:
    def ps(enabled):
        return {"disabled": None, "enabled": list(enabled) if enabled else None}
    return {"balance": ps(balance), "deschedule": ps(deschedule), "filter": ps(["DefaultEvictor"]),
            "preevictionfilter": ps(None), "presort": ps(None), "sort": ps(None)}


def _evictor(custom: Mapping[str, Any] | None, ignore_pvc: bool, local_storage: bool) -> dict:
    args: dict[str, Any] = {}
    if local_storage:
        args["evictLocalStoragePods"] = True
    if ignore_pvc:
        args["ignorePvcPods"] = True
    args["podProtections"] = {}
    if custom:
        value, name = custom.get("thresholdPriority"), custom.get("thresholdPriorityClassName") or ""
        if value is not None and name:
            raise OperatorError("It is invalid to set both .spec.profileCustomizations.thresholdPriority and "
                                ".spec.profileCustomizations.ThresholdPriorityClassName fields")
        if value is not None or name:
            args["priorityThreshold"] = {"name": name, "value": None if value is None else int(value)}
    return {"args": args, "name": "DefaultEvictor"}


def _with_ns(args: dict, included, excluded) -> dict:
    ns = _ns(included, excluded)
    if included or excluded:
        args["namespaces"] = ns
    return args


def _affinity_and_taints(custom, inc, exc, ignore_pvc, local) -> dict:
    return {
        "name": "AffinityAndTaints",
        "pluginConfig": [
            {"args": _with_ns({}, inc, exc), "name": "RemovePodsViolatingInterPodAntiAffinity"},
            {"args": _with_ns({}, inc, exc), "name": "RemovePodsViolatingNodeTaints"},
            {"args": {**_with_ns({}, inc, exc), "nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]},
             "name": "RemovePodsViolatingNodeAffinity"},
            _evictor(custom, ignore_pvc, local),
        ],
        "plugins": _plugins(deschedule=["RemovePodsViolatingInterPodAntiAffinity", "RemovePodsViolatingNodeTaints",
                                        "RemovePodsViolatingNodeAffinity"]),
    }


def _topology_and_duplicates(custom, inc, exc, ignore_pvc, local, soft=False) -> dict:
    return {
        "name": "SoftTopologyAndDuplicates" if soft else "TopologyAndDuplicates",
        "pluginConfig": [
            {"args": {"constraints": ["DoNotSchedule", "ScheduleAnyway"] if soft else ["DoNotSchedule"], **_with_ns({}, inc, exc)},
             "name": "RemovePodsViolatingTopologySpreadConstraint"},
            {"args": _with_ns({}, inc, exc), "name": "RemoveDuplicates"},
            _evictor(custom, ignore_pvc, local),
        ],
        "plugins": _plugins(balance=["RemovePodsViolatingTopologySpreadConstraint", "RemoveDuplicates"]),
    }


def _lifecycle_and_utilization(custom, inc, exc, protected, ignore_pvc, local, long=False) -> dict:
    if custom and custom.get("devActualUtilizationProfile"):
        raise OperatorError("unable to get openshift-monitoring/prometheus-k8s route: route.route.openshift.io \"prometheus-k8s\" not found")
    lifetime = 86400
    if custom and custom.get("podLifetime") is not None:
        lifetime = int(parse_duration(custom["podLifetime"]))
    low = (custom or {}).get("devLowNodeUtilizationThresholds")
    if low is not None and low not in LOW_THRESHOLDS:
        raise OperatorError(f"unknown Descheduler LowNodeUtilization threshold {low}, only 'Low', 'Medium' and 'High' are supported")
    lo, hi = LOW_THRESHOLDS[low or ""]
    lnu: dict[str, Any] = {}
    if inc or exc:
        if inc and not exc:
            lnu["evictableNamespaces"] = {"exclude": list(protected)}
        if exc:
            lnu["evictableNamespaces"] = {"exclude": list(exc)}
    lnu["targetThresholds"] = {"cpu": hi, "memory": hi, "pods": hi}
    lnu["thresholds"] = {"cpu": lo, "memory": lo, "pods": lo}
    configs = [
        {"args": {"maxPodLifeTimeSeconds": lifetime, **_with_ns({}, inc, exc)}, "name": "PodLifeTime"},
        {"args": {"includingInitContainers": True, **_with_ns({}, inc, exc), "podRestartThreshold": 100},
         "name": "RemovePodsHavingTooManyRestarts"},
        {"args": lnu, "name": "LowNodeUtilization"},
        _evictor(custom, ignore_pvc, local),
    ]
    deschedule = ["PodLifeTime", "RemovePodsHavingTooManyRestarts"]
    if long:
        configs, deschedule = configs[1:], deschedule[1:]
    return {"name": "LongLifecycle" if long else "LifecycleAndUtilization", "pluginConfig": configs,
            "plugins": _plugins(deschedule=deschedule, balance=["LowNodeUtilization"])}


def _compact_and_scale(custom, inc, exc, ignore_pvc, local) -> dict:
    level = (custom or {}).get("devHighNodeUtilizationThresholds")
    if level is not None and level not in HIGH_THRESHOLDS:
        raise OperatorError(f"unknown Descheduler HighNodeUtilization threshold {level}, only 'Minimal', 'Modest' and 'Moderate' are supported")
    t = HIGH_THRESHOLDS[level or ""]
    args: dict[str, Any] = {}
    if exc:
        args["evictableNamespaces"] = {"exclude": list(exc)}
    args["thresholds"] = {"cpu": t, "memory": t, "pods": t}
    return {"name": "CompactAndScale", "pluginConfig": [{"args": args, "name": "HighNodeUtilization"},
                                                        _evictor(custom, ignore_pvc, local)],
            "plugins": _plugins(balance=["HighNodeUtilization"])}


DEFAULT_SCHEDULER_PROFILE = "LowNodeUtilization"  # the cluster Scheduler's spec.profile when none is set


def scheduler_profile(configs: Iterable[Mapping[str, Any] | None]) -> str:
    """The profile of the cluster's OpenShift `Scheduler` (config.openshift.io/v1) among the
    scheduler configuration documents, which the operator checks its profiles against."""
    for doc in configs:
        if isinstance(doc, Mapping) and doc.get("kind") == "Scheduler":
            return ((doc.get("spec") or {}).get("profile")) or DEFAULT_SCHEDULER_PROFILE
    return DEFAULT_SCHEDULER_PROFILE


def render_policy(kd: Mapping[str, Any], namespaces: Iterable[str] = (), scheduler_profile: str = "LowNodeUtilization") -> dict:
    """manageConfigMap's policy for the KubeDescheduler document `kd`; raises OperatorError."""
    spec = kd.get("spec") or {}
    custom = spec.get("profileCustomizations")
    protected = protected_namespaces(namespaces)
    excluded, included = list(protected), []
    if custom:
        ns = custom.get("namespaces") or {}
        if ns.get("excluded") and ns.get("included"):
            raise OperatorError("It is forbidden to combine both included and excluded namespaces")
        if ns.get("included"):
            for n in ns["included"]:
                if n in protected:
                    raise OperatorError(f"Protected namespace {n} included. It is forbidden to include any of the "
                                        f"protected namespaces from [{' '.join(protected)}]")
                included.append(n)
            excluded = []
        excluded += list(ns.get("excluded") or ())
    profiles = list(spec.get("profiles") or ())
    if not profiles:
        raise OperatorError("descheduler should have at least 1 profile enabled")
    ignore_pvc = "EvictPodsWithPVC" not in profiles
    local = "EvictPodsWithLocalStorage" in profiles
    out: list[dict] = []
    for name in profiles:
        if name == "AffinityAndTaints":
            out.append(_affinity_and_taints(custom, included, excluded, ignore_pvc, local))
        elif name in ("TopologyAndDuplicates", "SoftTopologyAndDuplicates"):
            out.append(_topology_and_duplicates(custom, included, excluded, ignore_pvc, local, soft=name.startswith("Soft")))
        elif name == "LifecycleAndUtilization":
            out.append(_lifecycle_and_utilization(custom, included, excluded, protected, ignore_pvc, local))
        elif name in ("EvictPodsWithLocalStorage", "EvictPodsWithPVC"):
            continue
        elif name in ("DevPreviewLongLifecycle", "LongLifecycle"):
            out.append(_lifecycle_and_utilization(custom, included, excluded, protected, ignore_pvc, local, long=True))
        elif name == "CompactAndScale":
            out.append(_compact_and_scale(custom, included, excluded, ignore_pvc, local))
        elif name in ("KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate"):
            raise OperatorError(f"profile {name} can only be used when KubeVirt is properly deployed")
        else:
            raise OperatorError(f'Profile "{name}" not recognized')
    policy: dict[str, Any] = {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy"}
    limits = spec.get("evictionLimits") or {}
    if limits.get("node") is not None:
        policy["maxNoOfPodsToEvictPerNode"] = int(limits["node"])
        for p in out:
            for pc in p["pluginConfig"]:
                if pc["name"] == "LowNodeUtilization":
                    pc["args"]["evictionLimits"] = {"node": int(limits["node"])}
    if limits.get("total") is not None:
        policy["maxNoOfPodsToEvictTotal"] = int(limits["total"])
    policy["profiles"] = out
    names = set(profiles)
    if scheduler_profile == "HighNodeUtilization" and names & {"LifecycleAndUtilization", "DevPreviewLongLifecycle", "LongLifecycle"}:
        raise OperatorError("enabling Descheduler LowNodeUtilization with Scheduler HighNodeUtilization may cause an eviction/scheduling hot loop")
    if scheduler_profile == "LowNodeUtilization" and "CompactAndScale" in names:
        raise OperatorError("enabling Descheduler CompactAndScale with Scheduler LowNodeUtilization may cause an eviction/scheduling hot loop")
    return policy


class _GoYAMLDumper(yaml.SafeDumper):
    """sigs.k8s.io/yaml's output: block style, keys sorted, "" for an empty string."""


def _str(dumper, value: str):
    if value == "":
        return dumper.represent_scalar("tag:yaml.org,2002:str", "", style='"')
    return dumper.represent_str(value)


_GoYAMLDumper.add_representer(str, _str)


def policy_yaml(policy: Mapping[str, Any]) -> str:
    return yaml.dump(policy, Dumper=_GoYAMLDumper, sort_keys=True, default_flow_style=False, width=1 << 30, allow_unicode=True)


def config_map(kd: Mapping[str, Any], policy: Mapping[str, Any]) -> dict:
    """The ConfigMap the operator applies (owned by the KubeDescheduler)."""
    meta = kd.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": meta.get("name") or NAME,
            "namespace": meta.get("namespace") or NAMESPACE,
            "ownerReferences": [{"apiVersion": API_VERSION, "kind": KIND, "name": meta.get("name") or NAME,
                                 "uid": meta.get("uid") or ""}],
        },
        "data": {"policy.yaml": policy_yaml(policy)},
    }


def mode_of(kd: Mapping[str, Any]) -> str:
    return ((kd.get("spec") or {}).get("mode")) or PREDICTIVE


# the status condition the operator's target config reconciler sets
DEGRADED = "TargetConfigControllerDegraded"
NO_INTERVAL = "descheduler should have an interval set and it should be greater than 0"


def interval_of(kd: Mapping[str, Any]) -> float | None:
    """spec.deschedulingIntervalSeconds (None: not set, or not above 0: the operator then
    refuses to run the descheduler, NO_INTERVAL)."""
    value = (kd.get("spec") or {}).get("deschedulingIntervalSeconds")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)
