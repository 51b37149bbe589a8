"""`oc get` tables of the OpenShift kinds the update pages own, column for column as the
CRDs' additionalPrinterColumns make kubectl print them (openshift/api config/v1 and
machineconfiguration/v1): `table(docs, now, wide) -> (headers, rows)` as
scheduling.engine.oc.printers; registered in scheduling.engine.api.kinds.TABLE.
A column whose JSONPath finds nothing prints empty; a `date` column prints the age."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.oc.output import age

from .conditions import find

Doc = Mapping[str, Any]
Table = tuple[list[str], list[list[str]]]


def _cond(d: Doc, type_: str, field: str) -> str:
    c = find((d.get("status") or {}).get("conditions"), type_)
    value = (c or {}).get(field)
    return "" if value is None else str(value)


def _cond_age(d: Doc, type_: str, now: float) -> str:
    c = find((d.get("status") or {}).get("conditions"), type_)
    if c is None or c.get("lastTransitionTime") is None:
        return ""
    return age(c.get("lastTransitionTime"), now)


def _name(d: Doc) -> str:
    return (d.get("metadata") or {}).get("name") or ""


def config_maps(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """NAME DATA AGE (kubectl's printConfigMap: DATA counts data and binaryData keys); here
    because the ConfigMaps the simulator keeps are the update's admin-gates and admin-acks."""
    rows = [[_name(d), str(len(d.get("data") or {}) + len(d.get("binaryData") or {})),
             age((d.get("metadata") or {}).get("creationTimestamp"), now)] for d in docs]
    return ["NAME", "DATA", "AGE"], rows


def cluster_versions(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """NAME VERSION (.status.history[?(@.state=="Completed")].version) AVAILABLE
    PROGRESSING SINCE (Progressing's lastTransitionTime) STATUS (Progressing's message)."""
    rows = []
    for d in docs:
        history = (d.get("status") or {}).get("history") or []
        version = next((h.get("version") or "" for h in history if h.get("state") == "Completed"), "")
        rows.append([_name(d), version, _cond(d, "Available", "status"), _cond(d, "Progressing", "status"),
                     _cond_age(d, "Progressing", now), _cond(d, "Progressing", "message")])
    return ["NAME", "VERSION", "AVAILABLE", "PROGRESSING", "SINCE", "STATUS"], rows


def cluster_operators(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    rows = []
    for d in docs:
        version = next((v.get("version") or "" for v in (d.get("status") or {}).get("versions") or ()
                        if v.get("name") == "operator"), "")
        rows.append([_name(d), version, _cond(d, "Available", "status"), _cond(d, "Progressing", "status"),
                     _cond(d, "Degraded", "status"), _cond_age(d, "Available", now)])
    return ["NAME", "VERSION", "AVAILABLE", "PROGRESSING", "DEGRADED", "SINCE"], rows


def machine_config_pools(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    rows = []
    for d in docs:
        status = d.get("status") or {}

        def count(key: str) -> str:
            return "" if status.get(key) is None else str(status.get(key))

        rows.append([_name(d), ((status.get("configuration") or {}).get("name") or ""), _cond(d, "Updated", "status"),
                     _cond(d, "Updating", "status"), _cond(d, "Degraded", "status"), count("machineCount"),
                     count("readyMachineCount"), count("updatedMachineCount"), count("degradedMachineCount"),
                     age((d.get("metadata") or {}).get("creationTimestamp"), now)])
    return (["NAME", "CONFIG", "UPDATED", "UPDATING", "DEGRADED", "MACHINECOUNT", "READYMACHINECOUNT", "UPDATEDMACHINECOUNT",
             "DEGRADEDMACHINECOUNT", "AGE"], rows)


def machine_configs(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    rows = []
    for d in docs:
        annotations = (d.get("metadata") or {}).get("annotations") or {}
        ignition = (((d.get("spec") or {}).get("config") or {}).get("ignition") or {}).get("version") or ""
        rows.append([_name(d), annotations.get("machineconfiguration.openshift.io/generated-by-controller-version", ""),
                     ignition, age((d.get("metadata") or {}).get("creationTimestamp"), now)])
    return ["NAME", "GENERATEDBYCONTROLLER", "IGNITIONVERSION", "AGE"], rows
