"""`oc get machines|machinesets|machinehealthchecks`: the additionalPrinterColumns of the
Machine API CRDs (openshift/api machine/v1beta1: types_machine.go, types_machineset.go,
types_machinehealthcheck.go), printed as kubectl prints a custom resource's table.

The API server builds that table (apiextensions-apiserver registry/customresource/
tableconvertor): a column whose JSONPath finds nothing gets a nil cell, and kubectl's table
printer writes nothing for a nil cell. So a missing value is an EMPTY cell here, not the
`<none>` kubectl's own printers write for the built-in kinds (a MachineSet scaled to 0 has
no readyReplicas: READY is blank). A `date` column prints the age of its timestamp.
`table(docs, now, wide) -> (headers, rows)` as scheduling.engine.oc.printers; registered
in scheduling.engine.api.kinds.TABLE.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.oc.output import age

Doc = Mapping[str, Any]
Table = tuple[list[str], list[list[str]]]

INSTANCE_TYPE = "machine.openshift.io/instance-type"
REGION = "machine.openshift.io/region"
ZONE = "machine.openshift.io/zone"
INSTANCE_STATE = "machine.openshift.io/instance-state"


def cell(value: Any) -> str:
    """One cell of a CRD column: nothing found (nil) prints empty; a boolean as Go prints it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def date(value: Any, now: float) -> str:
    """A `date` column: the age of the timestamp; empty when the field is absent."""
    return "" if value is None else age(value, now)


def _meta(d: Doc) -> Mapping[str, Any]:
    return d.get("metadata") or {}


def _spec(d: Doc) -> Mapping[str, Any]:
    return d.get("spec") or {}


def _status(d: Doc) -> Mapping[str, Any]:
    return d.get("status") or {}


def machines(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """NAME PHASE TYPE REGION ZONE AGE; -o wide adds the priority-1 NODE PROVIDERID STATE."""
    headers = ["NAME", "PHASE", "TYPE", "REGION", "ZONE", "AGE"] + (["NODE", "PROVIDERID", "STATE"] if wide else [])
    rows = []
    for d in docs:
        labels = _meta(d).get("labels") or {}
        row = [_meta(d).get("name") or "", cell(_status(d).get("phase")), cell(labels.get(INSTANCE_TYPE)),
               cell(labels.get(REGION)), cell(labels.get(ZONE)), date(_meta(d).get("creationTimestamp"), now)]
        if wide:
            row += [cell((_status(d).get("nodeRef") or {}).get("name")), cell(_spec(d).get("providerID")),
                    cell((_meta(d).get("annotations") or {}).get(INSTANCE_STATE))]
        rows.append(row)
    return headers, rows


def machine_sets(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """NAME DESIRED CURRENT READY AVAILABLE AGE (readyReplicas and availableReplicas are
    omitempty: a zero count is absent and prints empty)."""
    rows = [[_meta(d).get("name") or "", cell(_spec(d).get("replicas")), cell(_status(d).get("replicas")),
             cell(_status(d).get("readyReplicas")), cell(_status(d).get("availableReplicas")),
             date(_meta(d).get("creationTimestamp"), now)] for d in docs]
    return ["NAME", "DESIRED", "CURRENT", "READY", "AVAILABLE", "AGE"], rows


def machine_health_checks(docs: Sequence[Doc], now: float, wide: bool) -> Table:
    """NAME MAXUNHEALTHY EXPECTEDMACHINES CURRENTHEALTHY (no AGE column in this CRD)."""
    rows = [[_meta(d).get("name") or "", cell(_spec(d).get("maxUnhealthy")), cell(_status(d).get("expectedMachines")),
             cell(_status(d).get("currentHealthy"))] for d in docs]
    return ["NAME", "MAXUNHEALTHY", "EXPECTEDMACHINES", "CURRENTHEALTHY"], rows
