"""The scheduler Policy file (OpenShift 3.11's scheduler policy file) parsed into what the scheduler runs.

`load_policy(doc)` takes the file already loaded from JSON or YAML (a dict) and returns a
`Policy`: the predicates in the order 1.11 evaluates them, the priorities in policy order
with their weights, and the two global settings. A policy replaces the default policy
completely (the documentation: "The predicates and priorities defined in the scheduler configuration
file completely override the default scheduler policy"); `default_policy()` is the documentation's
default file. Anything wrong raises `PolicyError` naming the entry.

Both headers are accepted: `"apiVersion": "v1"` (the documentation's default file) and
`version: "v1"` (its YAML samples), with `kind: Policy`.

1.11 behaviours kept on purpose:
* a missing `predicates` (or `priorities`) key means "the default ones"
  (factory.CreateFromConfig: `if policy.Predicates == nil` -> the algorithm provider's
  keys); an empty list means none;
* the mandatory predicate CheckNodeCondition always runs;
* `hardPodAffinitySymmetricWeight` 0 (or absent) means the default, 1: the policy value
  only overrides the scheduler's flag when it is not 0
  (`if policy.HardPodAffinitySymmetricWeight != 0`);
* priority weights must be > 0 and below MaxWeight (validation.ValidatePolicy).

Our extensions, both kept by 3.11 in master-config rather than in the Policy:
`disablePreemption: true` (schedulerArgs, OpenShift 3.11's "Disabling preemption") and `schedulerName: <name>` (the
name of the scheduler running this policy, default "default-scheduler"; as with OpenShift 3.11's multiple schedulers, pods
ask for a scheduler by that name). 1.11's decoder ignores unknown keys, so the file stays
valid for a real scheduler.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from scheduling.engine.scheduler import registry
from scheduling.engine.api.objects import DEFAULT_SCHEDULER

MAX_PRIORITY = 10
MAX_WEIGHT = (2**63 - 1) // MAX_PRIORITY  # schedulerapi.MaxWeight = MaxInt / MaxPriority


class PolicyError(ValueError):
    """The Policy file cannot be used; str() is the message for the user."""


@dataclass(frozen=True)
class PredicateEntry:
    name: str  # as written in the policy (user-defined for configurable ones)
    slot: str  # its place in registry.PREDICATE_ORDERING
    fn: Callable = field(compare=False, repr=False)
    argument: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class PriorityEntry:
    name: str  # as written in the policy: the key of its score in the output
    weight: int
    fn: Callable = field(compare=False, repr=False)
    argument: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Policy:
    predicates: tuple[PredicateEntry, ...]  # in evaluation order, mandatory ones included
    priorities: tuple[PriorityEntry, ...]  # in policy order
    hard_pod_affinity_symmetric_weight: int = registry.DEFAULT_HARD_POD_AFFINITY_SYMMETRIC_WEIGHT
    always_check_all_predicates: bool = False
    disable_preemption: bool = False
    scheduler_name: str = DEFAULT_SCHEDULER
    doc: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def predicate_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.predicates)

    @property
    def priority_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.priorities)


# --- the documentation's "Default scheduler configuration file" ----------------------------

DEFAULT_POLICY_DOC: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Policy",
    "predicates": [
        {"name": "NoVolumeZoneConflict"},
        {"name": "MaxEBSVolumeCount"},
        {"name": "MaxGCEPDVolumeCount"},
        {"name": "MaxAzureDiskVolumeCount"},
        {"name": "MatchInterPodAffinity"},
        {"name": "NoDiskConflict"},
        {"name": "GeneralPredicates"},
        {"name": "PodToleratesNodeTaints"},
        {"argument": {"serviceAffinity": {"labels": ["region"]}}, "name": "Region"},
    ],
    "priorities": [
        {"name": "SelectorSpreadPriority", "weight": 1},
        {"name": "InterPodAffinityPriority", "weight": 1},
        {"name": "LeastRequestedPriority", "weight": 1},
        {"name": "BalancedResourceAllocation", "weight": 1},
        {"name": "NodePreferAvoidPodsPriority", "weight": 10000},
        {"name": "NodeAffinityPriority", "weight": 1},
        {"name": "TaintTolerationPriority", "weight": 1},
        {"argument": {"serviceAntiAffinity": {"label": "zone"}}, "name": "Zone", "weight": 2},
    ],
}

_default: Policy | None = None


def default_policy() -> Policy:
    global _default
    if _default is None:
        _default = load_policy(DEFAULT_POLICY_DOC)
    return _default


# --- parsing --------------------------------------------------------------------------------


def load_policy(doc: Mapping[str, Any] | None) -> Policy:
    """Parse a Policy document (None -> the default policy)."""
    if doc is None:
        return default_policy()
    if not isinstance(doc, Mapping):
        raise PolicyError(f"a scheduler Policy must be a mapping (an object), not {type(doc).__name__}")
    _check_header(doc)

    hard = doc.get("hardPodAffinitySymmetricWeight", 0)
    if isinstance(hard, bool) or not isinstance(hard, int):
        raise PolicyError(f"hardPodAffinitySymmetricWeight: Invalid value: {hard!r}: must be an integer")
    if hard < 0 or hard > 100:
        raise PolicyError(f"hardPodAffinitySymmetricWeight: Invalid value: {hard}: not in valid range 0-100")
    hard = hard or registry.DEFAULT_HARD_POD_AFFINITY_SYMMETRIC_WEIGHT

    always = _bool(doc, "alwaysCheckAllPredicates")
    disable_preemption = _bool(doc, "disablePreemption")
    scheduler_name = doc.get("schedulerName", DEFAULT_SCHEDULER)
    if not isinstance(scheduler_name, str) or not scheduler_name:
        raise PolicyError(f"schedulerName: Invalid value: {scheduler_name!r}: must be a non-empty string")
    if doc.get("extenders"):
        raise PolicyError("extenders: scheduler extenders are not supported by the simulator")

    predicates_doc = doc.get("predicates")
    if predicates_doc is None:
        predicates_doc = DEFAULT_POLICY_DOC["predicates"]
    priorities_doc = doc.get("priorities")
    if priorities_doc is None:
        priorities_doc = DEFAULT_POLICY_DOC["priorities"]

    return Policy(
        predicates=_parse_predicates(predicates_doc),
        priorities=_parse_priorities(priorities_doc, hard),
        hard_pod_affinity_symmetric_weight=hard,
        always_check_all_predicates=always,
        disable_preemption=disable_preemption,
        scheduler_name=scheduler_name,
        doc=copy.deepcopy(dict(doc)),
    )


def schedulers_for(docs: Iterable[Mapping[str, Any] | None]) -> list[tuple[str, Policy]]:
    """The schedulers a cluster runs, from its Policy documents: `default-scheduler` always
    (with the Policy that names no scheduler, or the default one), then one scheduler per
    Policy naming another `schedulerName`, in the order given. Each keeps its own policy."""
    by_name: dict[str, Policy] = {}
    for doc in docs:
        if doc is None:
            continue
        policy = load_policy(doc)
        if policy.scheduler_name in by_name:
            raise PolicyError(f'two Policy documents for the scheduler "{policy.scheduler_name}": give one each')
        by_name[policy.scheduler_name] = policy
    default = by_name.pop(DEFAULT_SCHEDULER, None) or default_policy()
    return [(DEFAULT_SCHEDULER, default), *by_name.items()]


def _check_header(doc: Mapping[str, Any]) -> None:
    kind = doc.get("kind")
    if kind != "Policy":
        raise PolicyError(f'kind: Unsupported value: {kind!r}: a scheduler policy has kind "Policy"'
                          if kind is not None else "kind: Required value: a scheduler policy has kind \"Policy\"")
    version = doc.get("apiVersion", doc.get("version"))
    if version is None:
        raise PolicyError('apiVersion: Required value: a scheduler Policy needs "apiVersion": "v1" (or version: "v1")')
    if version != "v1":
        raise PolicyError(f'apiVersion: Unsupported value: {version!r}: supported values: "v1"')


def _bool(doc: Mapping[str, Any], key: str) -> bool:
    value = doc.get(key, False)
    if not isinstance(value, bool):
        raise PolicyError(f"{key}: Invalid value: {value!r}: must be true or false")
    return value


def _entry_name(entry: Any, where: str) -> str:
    if not isinstance(entry, Mapping):
        raise PolicyError(f"{where}: must be a mapping with a name, not {entry!r}")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise PolicyError(f"{where}.name: Required value")
    return name


def _single_argument(kind: str, name: str, argument: Any, known: Mapping[str, Any]) -> tuple[str, Any]:
    """validatePredicateOrDie / validatePriorityOrDie: exactly one known argument."""
    if not isinstance(argument, Mapping):
        raise PolicyError(f'{kind} "{name}": argument must be a mapping, not {argument!r}')
    present = [k for k in argument if argument[k] is not None]
    unknown = [k for k in present if k not in known]
    if unknown:
        raise PolicyError(
            f'{kind} "{name}": unknown argument {unknown[0]!r}: supported arguments are '
            + ", ".join(repr(k) for k in known)
        )
    if len(present) != 1:
        raise PolicyError(
            f'{kind} "{name}": exactly 1 {kind} argument is required ({" or ".join(known)}), got {len(present)}'
        )
    return present[0], argument[present[0]]


def _labels_arg(kind: str, name: str, arg_name: str, value: Any, key: str = "labels") -> tuple[str, ...]:
    if not isinstance(value, Mapping):
        raise PolicyError(f'{kind} "{name}": argument.{arg_name} must be a mapping, not {value!r}')
    labels = value.get(key)
    if labels is None:
        raise PolicyError(f'{kind} "{name}": argument.{arg_name}.{key}: Required value')
    if not isinstance(labels, list) or not all(isinstance(x, str) and x for x in labels):
        raise PolicyError(f'{kind} "{name}": argument.{arg_name}.{key} must be a list of label names, not {labels!r}')
    return tuple(labels)


def _label_arg(kind: str, name: str, arg_name: str, value: Any) -> str:
    if not isinstance(value, Mapping):
        raise PolicyError(f'{kind} "{name}": argument.{arg_name} must be a mapping, not {value!r}')
    label = value.get("label")
    if label is None:
        raise PolicyError(f'{kind} "{name}": argument.{arg_name}.label: Required value')
    if not isinstance(label, str) or not label:
        raise PolicyError(f'{kind} "{name}": argument.{arg_name}.label must be a label name (a string), not {label!r}')
    return label


def _presence_arg(kind: str, name: str, arg_name: str, value: Mapping[str, Any]) -> bool:
    presence = value.get("presence", False)
    if not isinstance(presence, bool):
        raise PolicyError(f'{kind} "{name}": argument.{arg_name}.presence must be true or false, not {presence!r}')
    return presence


def _parse_predicates(items: Any) -> tuple[PredicateEntry, ...]:
    if not isinstance(items, list):
        raise PolicyError(f"predicates: must be a list, not {items!r}")
    entries: list[PredicateEntry] = []
    seen: set[str] = set()
    functions: set[tuple[str, int]] = set()  # (slot, id(fn)) of static entries, to run aliases once
    for i, item in enumerate(items):
        name = _entry_name(item, f"predicates[{i}]")
        if name in seen:
            raise PolicyError(f'predicates[{i}]: Duplicate value: "{name}": predicate names must be unique')
        seen.add(name)
        argument = item.get("argument")
        if argument is not None:
            arg_name, value = _single_argument("predicate", name, argument, registry.CONFIGURABLE_PREDICATES)
            factory, slot = registry.CONFIGURABLE_PREDICATES[arg_name]
            if arg_name == "serviceAffinity":
                fn = factory(_labels_arg("predicate", name, arg_name, value))
            else:  # labelsPresence
                labels = _labels_arg("predicate", name, arg_name, value)
                fn = factory(labels, _presence_arg("predicate", name, arg_name, value))
            entries.append(PredicateEntry(name, slot, fn, copy.deepcopy(dict(argument))))
            continue
        fn = registry.PREDICATES.get(name)
        if fn is None:
            raise PolicyError(_unknown("predicate", name, registry.PREDICATES, registry.CONFIGURABLE_PREDICATES))
        slot = registry.PREDICATE_SLOTS[name]
        if (slot, id(fn)) in functions:  # PodFitsPorts beside PodFitsHostPorts: one check
            continue
        functions.add((slot, id(fn)))
        entries.append(PredicateEntry(name, slot, fn))
    for name in registry.MANDATORY_PREDICATES:
        if name not in seen:
            entries.append(PredicateEntry(name, registry.PREDICATE_SLOTS[name], registry.PREDICATES[name]))
    order = {slot: i for i, slot in enumerate(registry.PREDICATE_ORDERING)}
    # sorted() is stable: entries sharing a slot keep their policy order.
    return tuple(sorted(entries, key=lambda e: order[e.slot]))


def _parse_priorities(items: Any, hard_weight: int) -> tuple[PriorityEntry, ...]:
    if not isinstance(items, list):
        raise PolicyError(f"priorities: must be a list, not {items!r}")
    entries: list[PriorityEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        name = _entry_name(item, f"priorities[{i}]")
        if name in seen:
            raise PolicyError(f'priorities[{i}]: Duplicate value: "{name}": priority names must be unique')
        seen.add(name)
        weight = item.get("weight")
        if weight is None:
            raise PolicyError(
                f'priority "{name}": a weight is required to be specified and cannot be 0 or negative'
            )
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise PolicyError(f'priority "{name}": weight must be a positive integer, not {weight!r}')
        if weight <= 0 or weight >= MAX_WEIGHT:
            # validation.ValidatePolicy's message.
            raise PolicyError(f"Priority {name} should have a positive weight applied to it or it has overflown")
        argument = item.get("argument")
        if argument is not None:
            arg_name, value = _single_argument("priority", name, argument, registry.CONFIGURABLE_PRIORITIES)
            factory = registry.CONFIGURABLE_PRIORITIES[arg_name]
            label = _label_arg("priority", name, arg_name, value)
            if arg_name == "serviceAntiAffinity":
                fn = factory(label)
            else:  # labelPreference
                fn = factory(label, _presence_arg("priority", name, arg_name, value))
            entries.append(PriorityEntry(name, weight, fn, copy.deepcopy(dict(argument))))
            continue
        if name not in registry.PRIORITIES:
            raise PolicyError(_unknown("priority", name, registry.PRIORITIES, registry.CONFIGURABLE_PRIORITIES))
        if name == "InterPodAffinityPriority":
            fn = registry.inter_pod_affinity_priority_for(hard_weight)
        else:
            fn = registry.PRIORITIES[name][0]
        entries.append(PriorityEntry(name, weight, fn))
    return tuple(entries)


def _unknown(kind: str, name: str, static: Mapping[str, Any], configurable: Mapping[str, Any]) -> str:
    return (
        f'Invalid configuration: {kind.capitalize()} type not found for "{name}": '
        f"a {kind} is one of {', '.join(static)}, "
        f"or a name of your choice with an argument ({' or '.join(configurable)})"
    )
