"""Events as the API server returns them (core/v1 Event) and as `oc get events` prints them.

The store's events are the engine's RecordEvents (one per occurrence) or stored events
(scheduling.store.oc_cli.StoredEvent: a row that already counts its repeats, with its first and
last time; from a snapshot, with the Event document as given). `folded` turns them into
the events the API server would hold: client-go's EventCorrelator folds a repeat (same
source, object, type, reason and message) into the first Event, bumping `count` and
`lastTimestamp`; a stored row is one Event already (kept on the row's `folded` attribute
when it has one, so a row read again is not turned into an Event and a document again).

`document` is that Event as `oc get events -o yaml` prints it, the way client-go's legacy
recorder (tools/record makeEvent + generateEvent) creates it: named
`<involved name>.<first time in Unix nanoseconds, hex>` (the nanoseconds within the
second taken from a hash of the event, so that two events of one object in the same
second keep apart and the name stays the same on every read), in the involved object's
namespace (`default` for cluster-scoped objects), `source.component` and
`reportingComponent` the component, `eventTime` null. A snapshot's Event is printed as
given.

`table` is pkg/printers/internalversion printEvent: LAST SEEN TYPE REASON OBJECT MESSAGE,
and with `-o wide` SUBOBJECT and SOURCE before MESSAGE, FIRST SEEN COUNT NAME after it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from scheduling.engine.api.defaults import CLUSTERUI_API_VERSION, KINDS
from scheduling.engine.store import Store

from .output import api_document, human_duration, seconds, timestamp

UNIX_EPOCH_SECONDS = 1767225600  # engine.oc.output.EPOCH (2026-01-01T00:00:00Z) as Unix time
# Objects events name that are not simulated kinds.
OTHER_API_VERSIONS = {"Lease": "coordination.k8s.io/v1", "Timeline": CLUSTERUI_API_VERSION}


@dataclass
class Event:
    """One Event object: its fields on the simulated clock, and its document."""

    type: str
    reason: str
    kind: str
    namespace: str
    name: str
    message: str
    source: str
    count: int
    first: float
    last: float
    given: Mapping[str, Any] | None = None  # a snapshot's Event document
    doc: dict | None = None

    @property
    def event_namespace(self) -> str:
        return self.namespace or "default"


def folded(events: Iterable[Any]) -> list[Event]:
    """The store's events as Event objects: RecordEvents folded by client-go's aggregation
    key, stored rows as they are; oldest last time first (stable)."""
    out: list[Event] = []
    by_key: dict[tuple, Event] = {}
    for e in events:
        stored = hasattr(e, "count")
        kept = getattr(e, "folded", None) if stored else None
        if kept is not None:  # a stored row read before: its Event (and document) as then
            out.append(kept)
            continue
        first = float(getattr(e, "first_time", e.time) if stored else e.time)
        last = float(getattr(e, "last_time", e.time) if stored else e.time)
        count = int(getattr(e, "count", 1) or 1)
        event = Event(e.type, e.reason, e.kind, e.namespace or "", e.name, e.message, e.source or "", count, first, last,
                      getattr(e, "document", None))
        if stored:
            out.append(event)
            if hasattr(e, "folded"):
                e.folded = event
            continue
        key = (event.source, event.kind, event.namespace, event.name, event.type, event.reason, event.message)
        seen = by_key.get(key)
        if seen is None:
            by_key[key] = event
            out.append(event)
        else:
            seen.count += 1
            seen.first = min(seen.first, first)
            seen.last = max(seen.last, last)
    out.sort(key=lambda e: e.last)
    return out


def event_name(e: Event) -> str:
    """`<involved name>.<hex Unix nanoseconds>` of the first occurrence (makeEvent's name)."""
    key = "\x00".join((e.source, e.kind, e.namespace, e.name, e.type, e.reason, e.message))
    within = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % 10**9
    nanos = (UNIX_EPOCH_SECONDS + math.floor(e.first)) * 10**9 + within
    return f"{e.name}.{nanos:x}"


def _api_version(store: Store, e: Event) -> str:
    doc = store.get(e.kind, e.namespace, e.name) if e.kind in KINDS else None
    if doc is not None and isinstance(doc.get("apiVersion"), str):
        return doc["apiVersion"]
    if e.kind in KINDS:
        return KINDS[e.kind].api_versions[0]
    return OTHER_API_VERSIONS.get(e.kind, "")


def document(store: Store, e: Event) -> dict:
    """The Event as the API returns it (see the module docstring)."""
    if e.doc is not None:
        return e.doc
    if e.given is not None:  # as the API serves it again: the fields Go's v1.Event always encodes
        e.doc = {"eventTime": None, "reportingComponent": "", "reportingInstance": "", **api_document(dict(e.given))}
        return e.doc
    involved: dict[str, Any] = {"kind": e.kind, "name": e.name}
    if e.namespace:
        involved["namespace"] = e.namespace
    api_version = _api_version(store, e)
    if api_version:
        involved["apiVersion"] = api_version
    e.doc = {
        "apiVersion": "v1",
        "count": e.count,
        "eventTime": None,
        "firstTimestamp": timestamp(e.first),
        "involvedObject": involved,
        "kind": "Event",
        "lastTimestamp": timestamp(e.last),
        "message": e.message,
        "metadata": {"creationTimestamp": timestamp(e.first), "name": event_name(e), "namespace": e.event_namespace},
        "reason": e.reason,
        "reportingComponent": e.source,
        "reportingInstance": "",
        "source": {"component": e.source} if e.source else {},
        "type": e.type,
    }
    return e.doc


def selectable_fields(doc: Mapping[str, Any]) -> dict:
    """What an Event's field selector reads (pkg/registry/core/event ToSelectableFields:
    `source` is source.component)."""
    source = doc.get("source") if isinstance(doc.get("source"), Mapping) else {}
    return {**doc, "source": source.get("component") or ""}


def _source(doc: Mapping[str, Any]) -> str:
    """formatEventSource: component (or reportingComponent), then `, host` (or instance)."""
    source = doc.get("source") if isinstance(doc.get("source"), Mapping) else {}
    component = source.get("component") or doc.get("reportingComponent") or ""
    instance = source.get("host") or doc.get("reportingInstance") or ""
    return f"{component}, {instance}" if instance else component


def _seen(value: Any, now: float) -> str:
    s = seconds(value)
    return "<unknown>" if s is None else human_duration(now - s)


def row(store: Store, e: Event, now: float, wide: bool) -> list[str]:
    """printEvent's cells."""
    doc = document(store, e)
    involved = doc.get("involvedObject") if isinstance(doc.get("involvedObject"), Mapping) else {}
    kind, name = str(involved.get("kind") or "").lower(), involved.get("name") or ""
    target = f"{kind}/{name}" if name else kind
    if e.given is None:  # times on the simulated clock, as the age columns of every table
        first, last = human_duration(now - e.first), human_duration(now - e.last)
    else:
        first = _seen(doc.get("firstTimestamp") or doc.get("eventTime"), now)
        last = _seen(doc.get("lastTimestamp"), now) if doc.get("lastTimestamp") else first
    message = str(doc.get("message") or "").strip()
    if not wide:
        return [last, str(doc.get("type") or ""), str(doc.get("reason") or ""), target, message.replace("\n", " ")]
    count = doc.get("count") or 1
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    return [last, str(doc.get("type") or ""), str(doc.get("reason") or ""), target, str(involved.get("fieldPath") or ""),
            _source(doc), message.replace("\n", " "), first, str(count), str(meta.get("name") or "")]


HEADERS = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
WIDE_HEADERS = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
