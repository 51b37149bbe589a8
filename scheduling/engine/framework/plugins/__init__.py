"""The in-tree plugins (pkg/scheduler/framework/plugins), by name.

Each plugin lives in its own module; the registry names the class by dotted path, so a
profile builds only the plugins it enables."""

from __future__ import annotations

import importlib

from scheduling.engine.framework.interface import Plugin

# name -> "module:Class" (modules under engine.framework.plugins)
REGISTRY: dict[str, str] = {
    "PrioritySort": "queuesort:PrioritySort",
    "SchedulingGates": "scheduling_gates:SchedulingGates",
    "NodeUnschedulable": "node_unschedulable:NodeUnschedulable",
    "NodeName": "node_name:NodeName",
    "TaintToleration": "taint_toleration:TaintToleration",
    "NodeAffinity": "node_affinity:NodeAffinity",
    "NodePorts": "node_ports:NodePorts",
    "NodeResourcesFit": "noderesources:Fit",
    "NodeResourcesBalancedAllocation": "noderesources:BalancedAllocation",
    "VolumeRestrictions": "volumes:VolumeRestrictions",
    "NodeVolumeLimits": "volumes:NodeVolumeLimits",
    "VolumeBinding": "volumes:VolumeBinding",
    "VolumeZone": "volumes:VolumeZone",
    "PodTopologySpread": "pod_topology_spread:PodTopologySpread",
    "InterPodAffinity": "inter_pod_affinity:InterPodAffinity",
    "ImageLocality": "image_locality:ImageLocality",
    "DefaultPreemption": "default_preemption:DefaultPreemption",
    "DefaultBinder": "default_binder:DefaultBinder",
}


def plugin_class(name: str) -> type[Plugin]:
    """The class of plugin `name`; KeyError when no such plugin is registered."""
    module, _, cls = REGISTRY[name].partition(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)
