"""Migrating controller state that older versions kept in documents (on read).

Before controllers had their own state (engine.controller), three of them kept it in
documents; a stored cluster or an imported file may still carry it:

* the Pod annotation `clusterui.io/noexecute-eviction-at` (the taint manager's timer)
  -> taint-manager state `<namespace>/<name>` -> time; the annotation is removed;
* the Pod annotation `clusterui.io/killed-at` (the kubelet stopped the containers)
  -> kubelet state `<namespace>/<name>` -> time; the annotation is removed;
* `Zone` documents (apiVersion clusterui.io/v1alpha1, the node lifecycle controller's
  zones) -> node-lifecycle state `zone/<name>` -> their status; the documents are dropped.

State already present wins over a legacy value (it is newer).
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping

from scheduling.engine.api.defaults import ZONE_KIND
from scheduling.engine.controllers import kubelet, node_lifecycle, taint_manager
from scheduling.engine.store import EVICTION_AT_ANNOTATION, KILLED_AT_ANNOTATION, sim_time, time_value

POD_ANNOTATIONS = {EVICTION_AT_ANNOTATION: taint_manager.NAME, KILLED_AT_ANNOTATION: kubelet.NAME}


def migrate(docs: Iterable[Mapping[str, Any]], state: Mapping[str, Mapping[str, Any]]
            ) -> tuple[list[Mapping[str, Any]], dict[str, dict[str, Any]]]:
    """(the documents without legacy state, the controller state with it)."""
    out_state: dict[str, dict[str, Any]] = {name: dict(values) for name, values in state.items()}
    out: list[Mapping[str, Any]] = []
    for doc in docs:
        kind = doc.get("kind")
        if kind == ZONE_KIND:
            name = (doc.get("metadata") or {}).get("name") or ""
            values = out_state.setdefault(node_lifecycle.NAME, {})
            values.setdefault(node_lifecycle.ZONE_PREFIX + name, dict(doc.get("status") or {}))
            continue
        annotations = (doc.get("metadata") or {}).get("annotations") or {}
        if kind == "Pod" and any(a in annotations for a in POD_ANNOTATIONS):
            doc = copy.deepcopy(dict(doc))
            m = doc["metadata"]
            key = f"{m.get('namespace') or 'default'}/{m.get('name') or ''}"
            kept = dict(m["annotations"])
            for annotation, controller in POD_ANNOTATIONS.items():
                if annotation in kept:
                    at = sim_time(kept.pop(annotation))
                    if at is not None:
                        out_state.setdefault(controller, {}).setdefault(key, time_value(at))
            if kept:
                m["annotations"] = kept
            else:
                del m["annotations"]
        out.append(doc)
    return out, {name: values for name, values in out_state.items() if values}
