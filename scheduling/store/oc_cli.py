"""`oc` on the Django side: the same engine commands (scheduling.engine.oc) against a
stored cluster or a snapshot, for `manage.py oc` and the browser console.

Stored clusters: the command reads the stored objects and events; its actions are
applied to a copy of them and every object that changed is written through
services.py (validation for created/replaced objects, a compare-and-swap on each
object's resourceVersion, events, reconcile, live push), exactly like the web pages.
`oc adm drain` continues on the cluster's clock: while pods are still to go, the
command steps the stored cluster's clock to the drain's next instant (clock.step),
runs the controllers (reconcile) and resumes the drain (engine.oc.drain.resume), so
`manage.py oc --cluster` returns when kubectl would, with kubectl's output, and the
pages watch the drain happen.

Snapshots (`-f FILE`): the objects exactly as given (no defaults, no admission, no
controllers; `managedFields` dropped, Lists unpacked, kinds the simulator does not know
skipped). Mutating commands print what oc prints and change nothing; a drain on a
snapshot lets only the pods' own grace periods pass (nothing replaces or removes pods).

Times: stored clusters count simulated seconds; second 0 is engine.oc.output.EPOCH
(2026-01-01T00:00:00Z), so `--now 2026-01-01T00:10:00Z` is simulated second 600.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Sequence

from django.db import transaction
from django.db.models import Count, Max, Sum

from scheduling.store import clock, kube, reconcile, services
from scheduling.engine import actions as A
from scheduling.engine.api.defaults import KINDS
from scheduling.engine.api.validation import decode_only, excerpt, invalid_object_message
from scheduling.engine.api.validation.field import as_str
from scheduling.engine.oc import commands, drain, get, rollout, session
from scheduling.engine.oc.session import ADMIN
from scheduling.engine.oc.core import BY_KIND, OcResult, find_resource
from scheduling.engine.oc.create import source_name
from scheduling.engine.oc.output import EPOCH, parse_time, seconds
from scheduling.engine.store import CONTROLLER_STATE_KIND, Store, time_value
from scheduling.models import KIND_MODELS, Cluster, Event
from scheduling.store.permissions import can_edit
from scheduling.store.state import cluster_documents, documents_where, shared_documents, with_usable_documents

MAX_DRAIN_STEPS = 720  # an hour of 5 s PDB retries without --timeout
SETTINGS_FACTS = "cluster-facts"  # the "file" that carries a stored cluster's facts to the commands


@dataclass
class StoredEvent:
    """An Event row as engine.oc.describe reads it (repeats counted)."""

    time: float
    type: str
    reason: str
    kind: str
    namespace: str
    name: str
    message: str
    source: str
    count: int = 1
    first_time: float = 0.0
    last_time: float = 0.0
    document: dict | None = None  # a snapshot's Event, as given (`oc get events -o yaml` prints it)
    folded: Any = field(default=None, repr=False, compare=False)  # engine.oc.events.folded's Event of it, kept


def wall_now() -> float:
    """The wall clock on the simulated scale (snapshots' default `now`)."""
    return (datetime.now(timezone.utc) - EPOCH).total_seconds()


def parse_now(text: str) -> float:
    """`--now` (RFC 3339) -> simulated seconds; ValueError with Go's message."""
    return parse_time(text)


# --- reading ---------------------------------------------------------------------------------------------------


# The events of each cluster this process read, with what they were read at: a command
# that reads the events again reads only the fingerprint when none was recorded, bumped,
# replaced or deleted since (ten thousand rows cost a third of a CPU second to read). The
# rows are shared, never changed in place (a command appends to its own list).
_EVENTS_READ: dict[int, tuple[tuple, list[StoredEvent]]] = {}
_EVENT_FIELDS = ("last_time", "type", "reason", "involved_kind", "involved_namespace", "involved_name", "message", "source",
                 "count", "first_time")


def _events_fingerprint(cluster: Cluster) -> tuple:
    """What changes whenever a cluster's event rows do: their number, the last id, and the
    sums of the counts and times (a bump adds to the count and moves the last time; a rewind
    deletes rows and puts counts back)."""
    found = Event.objects.filter(cluster=cluster).aggregate(
        n=Count("id"), top=Max("id"), counts=Sum("count"), lasts=Sum("last_time"), firsts=Sum("first_time"))
    return (found["n"], found["top"], found["counts"], found["lasts"], found["firsts"])


def _event_rows(rows) -> list[StoredEvent]:
    return [StoredEvent(last, type_, reason, kind, namespace, name, message, source, count, first, last)
            for last, type_, reason, kind, namespace, name, message, source, count, first in
            rows.order_by("last_time", "id").values_list(*_EVENT_FIELDS)]


def _stored_events(cluster: Cluster) -> list[StoredEvent]:
    fingerprint = _events_fingerprint(cluster)
    read = _EVENTS_READ.get(cluster.pk)
    if read is not None and read[0] == fingerprint:
        return list(read[1])
    events = _event_rows(Event.objects.filter(cluster=cluster))
    if len(_EVENTS_READ) >= MAX_EVENT_READS_KEPT:
        _EVENTS_READ.pop(next(iter(_EVENTS_READ)))
    _EVENTS_READ[cluster.pk] = (fingerprint, events)
    return list(events)


MAX_EVENT_READS_KEPT = 8  # clusters whose events a process keeps


def cluster_store(cluster: Cluster) -> Store:
    """The stored cluster's objects and events; an object the engine cannot use (stored before a
    rule existed, or written around the API) is left out, as the reconcile skips it."""
    store, _skipped = with_usable_documents(cluster_documents(cluster), Store)
    store.events = _stored_events(cluster)
    return store


class StoredEvents(list):
    """The cluster's events, read from the database the first time a command looks at them
    (most commands never do: a label or a taint should not read ten thousand events)."""

    def __init__(self, cluster: Cluster):
        super().__init__()
        self._cluster: Cluster | None = cluster

    def _load(self) -> None:
        if self._cluster is not None:
            cluster, self._cluster = self._cluster, None
            super().extend(_stored_events(cluster))

    def __iter__(self):
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, index):
        self._load()
        return super().__getitem__(index)

    def append(self, item) -> None:
        self._load()
        super().append(item)

    def extend(self, items) -> None:
        self._load()
        super().extend(items)


def described_nodes(argv: Sequence[str]) -> list[str] | None:
    """The names of `oc describe node NAME...` (or `node/NAME ...`), when that is the whole
    command: kubectl then reads those nodes, the pods bound to them and their events, not
    the cluster. None for any other command (or a describe with flags)."""
    path, rest = commands.resolve(argv[0], argv[1:]) if argv else (None, [])
    if path != ("describe",) or not rest or any(w.startswith("-") for w in rest):
        return None
    if all("/" in w for w in rest):
        pairs = [w.partition("/") for w in rest]
        if all(find_resource(r) is not None and find_resource(r).kind == "Node" and n for r, _, n in pairs):
            return [n for _, _, n in pairs]
        return None
    resource = find_resource(rest[0])
    if resource is None or resource.kind != "Node" or len(rest) < 2 or any("/" in w for w in rest[1:]):
        return None
    return list(rest[1:])


def _nodes_read(cluster: Cluster, names: list[str]) -> tuple[list[dict], list[StoredEvent]]:
    """What `oc describe node` of `names` reads: the nodes, the pods bound to them, the
    nodes' events."""
    docs = documents_where(cluster, "Node", name__in=names) + documents_where(cluster, "Pod", node_name__in=names)
    return docs, _event_rows(Event.objects.filter(cluster=cluster, involved_kind="Node", involved_name__in=names))


def _run_stored(cluster: Cluster, run: Callable[[Store], OcResult], emit: Emit,
                nodes: list[str] | None = None) -> tuple[Store, OcResult]:
    """run(store) on the stored cluster; when it fails on an object the engine cannot use, again
    without such objects, each named in a warning (the reconcile skips and reports them too:
    state.with_usable_documents), so a command never dies of the cluster's data. The store
    holds the process's shared read of the cluster (state.shared_documents: documents never
    changed in place, so nothing is copied); for `oc describe node` of `nodes`, only what
    that reads (described_nodes)."""
    if nodes is not None:
        docs, events = _nodes_read(cluster, nodes)
        memo: dict = {}
    else:
        events = StoredEvents(cluster)
        docs, memo = shared_documents(cluster)

    def attempt(usable: list[dict]) -> tuple[Store, OcResult]:
        store = Store(usable, copy=False, memo=dict(memo))
        store.events = events
        return store, run(store)

    (store, result), skipped = with_usable_documents(docs, attempt)
    for doc, problem in skipped:
        emit("stderr", f"Warning: {invalid_object_message(doc, problem)}\n")
    return store, result


def snapshot_documents(text: str, source: str) -> tuple[list[dict], list[dict], list[str]]:
    """(objects of simulated kinds, Event documents, skipped "Kind ns/name" notes) from
    `oc get -o yaml` output or a must-gather file, exactly as given.

    Each document is decoded as a typed client decodes a file (Go's types, no defaults,
    no validation; engine.api.validation.decode_only): a value of the wrong type, or a
    quantity that does not parse, refuses the whole file with kubectl's
    `unable to decode "FILE": ...` (a DocumentError), naming the object and the field."""
    objects, events, skipped = [], [], []
    for doc in kube.parse_documents(text, source):
        doc = kube.without_managed_fields(doc)
        kind = doc.get("kind")
        if kind == "Event" or kind in KINDS:
            doc = decoded(doc, source)
        if kind == "Event":
            events.append(doc)
        elif kind in KINDS:
            objects.append(doc)
        else:
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            where = f"{meta.get('namespace')}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
            skipped.append(f"{kind} {where}")
    return objects, events, skipped


def decoded(doc: dict, source: str) -> dict:
    """`doc` as Go's types decode it (engine.api.validation.decode_only); a DocumentError with
    kubectl's `unable to decode "FILE": ...` (naming the object and the field) when they cannot."""
    doc, problem = decode_only(doc)
    if problem is not None:
        raise kube.DocumentError([f'unable to decode "{source_name(source)}": {_object_name(doc)}: {problem}'])
    return doc


def _object_name(doc: Mapping[str, Any]) -> str:
    """`Kind "name"` of a document for a message (the name cut short, as every refusal quotes
    it; the kind alone when the name is not a string)."""
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    kind = as_str(doc.get("kind"))
    return f"{kind} {excerpt(name)}" if isinstance(name, str) else kind


def snapshot_store(objects: Sequence[dict], events: Sequence[dict] = ()) -> Store:
    store = Store(objects)
    for e in events:
        involved = e.get("involvedObject") or {}
        first = seconds(e.get("firstTimestamp") or e.get("eventTime") or (e.get("metadata") or {}).get("creationTimestamp"))
        last = seconds(e.get("lastTimestamp")) or first or 0.0
        store.events.append(StoredEvent(
            last, e.get("type") or "Normal", e.get("reason") or "", involved.get("kind") or "",
            involved.get("namespace") or "", involved.get("name") or "", e.get("message") or "",
            (e.get("source") or {}).get("component") or e.get("reportingComponent") or "", int(e.get("count") or 1),
            first if first is not None else last, last, e))
    return store


# --- writing ---------------------------------------------------------------------------------------------------


class WriteError(Exception):
    """What the API server answers instead of writing; str() is oc's text."""


class ConflictError(WriteError):
    """The API server's 409: the object moved on since the version the write names."""


# Commands kubectl sends as patches (label, annotate, taint, cordon, uncordon, patch: no
# resourceVersion precondition, the server applies the patch to the latest object) or
# wraps in a retry on conflict (scale): a conflict is retried on a fresh read, at most
# CONFLICT_RETRIES times, so concurrent writers of different fields never see one. A
# precondition the user gives (--resource-version) is checked by the command on each read:
# that conflict is the API server's message.
RETRIED_ON_CONFLICT = frozenset({"label", "annotate", "taint", "cordon", "uncordon", "patch", "scale"})
CONFLICT_RETRIES = 20


def sources_of(files: Mapping[str, Sequence[Mapping[str, Any]]] | None) -> dict[tuple[str, str], str]:
    """(kind, name) -> the source kubectl names in an error about that object (the file
    it came from, "STDIN" for `-f -`)."""
    out: dict[tuple[str, str], str] = {}
    for filename, docs in (files or {}).items():
        for doc in docs if isinstance(docs, (list, tuple)) else ():
            if isinstance(doc, Mapping):
                out.setdefault((str(doc.get("kind") or ""), str((doc.get("metadata") or {}).get("name") or "")),
                               source_name(filename))
    return out


def admission_refusal(problems: Sequence[str], source: str) -> str:
    """kubectl's text for an object the API server's admission refused on create:
    `Error from server (Forbidden): error when creating "<file>": pods "x" is forbidden: ...`
    (an admission error that is not a Forbidden status has no reason)."""
    lines = []
    for message in problems:
        reason = " (Forbidden)" if " is forbidden: " in message or message.startswith("forbidden: ") else ""
        where = f'error when creating "{source}": ' if source else ""
        lines.append(f"Error from server{reason}: {where}{message}")
    return "\n".join(lines)


def checked_writes(cluster: Cluster, store: Store, actions: Sequence[Any],
                   sources: Mapping[tuple[str, str], str] | None = None) -> tuple[list[services.Write], list[A.RecordEvent]]:
    """The command's actions applied to a copy of `store`, every changed object as the API
    server would take it: ([("create"|"replace"|"delete", stored document, new document)],
    the command's events). A created object goes through validation and the cluster's
    admission plugins (a refusal is kubectl's text, naming the object's file from `sources`
    ((kind, name) -> file)); a replaced one through the update rules. WriteError when the
    API server would refuse one; nothing is written here."""
    after = store.copy(events=False)
    changed: list[tuple[str, str, str]] = []
    updated: set[tuple[str, str, str]] = set()  # replaced by the user (oc replace/apply): the API server's update rules
    events: list[A.RecordEvent] = []
    for action in actions:
        if isinstance(action, A.RecordEvent):
            events.append(action)
        else:
            refs = after.apply(action)
            changed.extend(refs)
            if isinstance(action, A.ReplaceObject):
                updated.update(refs)
    writes: list[services.Write] = []
    try:
        for kind, ns, name in dict.fromkeys(changed):
            if kind == CONTROLLER_STATE_KIND or kind not in KIND_MODELS:
                continue
            before, doc = store.get(kind, ns, name), after.get(kind, ns, name)
            if doc is None:
                if before is not None:
                    writes.append(("delete", before, None))
            elif before is None:
                checked = kube.check_documents([doc], f"{kind} {name}", extra_kinds=())[0]
                try:
                    admitted = services.admit_documents(cluster, [checked])[0]
                except kube.DocumentError as exc:
                    raise WriteError(admission_refusal(exc.problems, (sources or {}).get((kind, name), ""))) from exc
                writes.append(("create", None, admitted))
            else:
                doc = {**doc, "metadata": {k: v for k, v in (doc.get("metadata") or {}).items() if k != "resourceVersion"}}
                if before.get("spec") != doc.get("spec") or before.get("metadata", {}).get("labels") != doc["metadata"].get("labels"):
                    doc = kube.check_documents([doc], f"{kind} {name}", extra_kinds=())[0]
                if (kind, ns, name) in updated:
                    doc = services.updated_document(cluster, doc, before)
                writes.append(("replace", before, doc))
    except services.Invalid as exc:
        raise WriteError(exc.error.cli_message()) from exc
    except kube.DocumentError as exc:
        raise WriteError("\n".join(p.split(": ", 1)[1] if ": " in p else p for p in exc.problems)) from exc
    return writes, events


def checked_actions(cluster: Cluster, store: Store, actions: Sequence[Any],
                    sources: Mapping[tuple[str, str], str] | None = None) -> list:
    """The command's writes (checked_writes) as the engine's actions, for a preview: the
    loop takes exactly the documents the services would store (a created one stamped with
    the clock, as the API server stamps it)."""
    writes, events = checked_writes(cluster, store, actions, sources)
    out: list = []
    for op, before, doc in writes:
        if op == "delete":
            meta = before.get("metadata") or {}
            out.append(A.DeleteObject(before["kind"], meta.get("namespace") or "", meta.get("name") or ""))
        else:
            if op == "create":
                doc = {**doc, "metadata": {"creationTimestamp": time_value(cluster.now), **(doc.get("metadata") or {})}}
            out.append(A.ReplaceObject(doc))
    return out + list(events)


def write_actions(cluster: Cluster, store: Store, actions: Sequence[Any],
                  sources: Mapping[tuple[str, str], str] | None = None) -> None:
    """Write the command's actions (checked_writes) through the services, each with a
    compare-and-swap on the version it was read at, and record its events."""
    writes, events = checked_writes(cluster, store, actions, sources)
    try:
        with transaction.atomic():
            for op, before, doc in writes:
                if op == "delete":
                    meta = before.get("metadata") or {}
                    kind = before["kind"]
                    model_ns = (meta.get("namespace") or "") if KIND_MODELS[kind].NAMESPACED else ""
                    services.delete_object(cluster, kind, meta.get("name") or "", model_ns,
                                           expected_version=int(meta.get("resourceVersion") or 0))
                elif op == "create":
                    services.create_object(cluster, doc)
                else:
                    expected = int((before.get("metadata") or {}).get("resourceVersion") or 0)
                    services.replace_object(cluster, doc, expected_version=expected)
            for e in events:
                services.record_event(cluster, reason=e.reason, message=e.message, kind=e.kind, name=e.name,
                                      namespace=e.namespace, type=e.type, source=e.source, time=e.time)
    except services.Conflict as exc:
        raise ConflictError(f"Error from server (Conflict): {exc}") from exc
    except services.Invalid as exc:
        raise WriteError(exc.error.cli_message()) from exc
    except services.Forbidden as exc:
        raise WriteError(f"Error from server (Forbidden): {exc}") from exc
    except services.StoreError as exc:
        raise WriteError(f"Error from server: {exc}") from exc


def check_updates(cluster: Cluster, store: Store, actions: Sequence[Any]) -> None:
    """A server dry run's update checks: the user's replaced pods (oc replace/apply) through
    the API server's update admission and validation (services.updated_document), nothing
    written; WriteError when it refuses one."""
    after = store.copy(events=False)
    for action in actions:
        if isinstance(action, A.RecordEvent):
            continue
        refs = after.apply(action)
        if not isinstance(action, A.ReplaceObject):
            continue
        for kind, ns, name in refs:
            before, doc = store.get(kind, ns, name), after.get(kind, ns, name)
            if kind == "Pod" and before is not None and doc is not None:
                try:
                    services.updated_document(cluster, doc, before)
                except services.Invalid as exc:
                    raise WriteError(exc.error.cli_message()) from exc


# --- permissions ---------------------------------------------------------------------------------------------


_VERBS = {"label": "patch", "annotate": "patch", "scale": "patch", "delete": "delete", "create": "create", "apply": "patch",
          "replace": "update", "taint": "patch", "cordon": "patch", "uncordon": "patch", "drain": "patch"}


def _function(argv: Sequence[str]) -> Any:
    path, _ = commands.resolve(argv[0], argv[1:])
    try:
        return commands.load(commands.COMMANDS[path]) if path is not None else None
    except (ImportError, AttributeError):
        return None


def has_dry_run(argv: Sequence[str]) -> bool:
    """Whether the command takes --dry-run (the console previews such writes first); a
    command function without the flag says so with `dry_run = False` (`oc adm upgrade`)."""
    return getattr(_function(argv), "dry_run", True)


def forbidden(username: str, argv: Sequence[str]) -> str:
    """The API server's Forbidden answer for a user who may only read (as the command prints
    it: a command function with `refused(username, args)` words its own, e.g. `oc adm
    upgrade`'s "error: Unable to upgrade: clusterversions... is forbidden: ...")."""
    path, args = commands.resolve(argv[0], argv[1:])
    refused = getattr(_function(argv), "refused", None)
    if refused is not None:
        return refused(username, args)
    verb = _VERBS.get(path[-1] if path else "", "patch")
    words = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] not in ("-n", "--namespace"))]
    resource, name = BY_KIND["Node"], ""
    if path and path[-1] in ("taint", "cordon", "uncordon", "drain"):
        name = next((w.partition("/")[2] or w for w in words if w not in ("node", "nodes", "no")), "")
    elif words:
        if "/" in words[0]:
            t, _, name = words[0].partition("/")
            resource = find_resource(t) or resource
        else:
            resource = find_resource(words[0]) or resource
            name = words[1] if len(words) > 1 and "=" not in words[1] else ""
    namespace = "default"
    for i, word in enumerate(args):
        if word in ("-n", "--namespace") and i + 1 < len(args):
            namespace = args[i + 1]
        elif word.startswith("--namespace=") or (word.startswith("-n") and len(word) > 2):
            namespace = word.split("=", 1)[1] if "=" in word else word[2:]
    scope = f'in the namespace "{namespace}"' if resource.namespaced else "at the cluster scope"
    what = f'{resource.resource_string} "{name}" is forbidden' if name else f"{resource.resource_string} is forbidden"
    return (f'Error from server (Forbidden): {what}: User "{username}" cannot {verb} resource "{resource.plural}" '
            f'in API group "{resource.group}" {scope}\n')


def is_mutating(argv: Sequence[str]) -> bool:
    """Whether the API server would authorize the command as a write: a server dry run
    is authorized like the real request; a client dry run never reaches the server. A
    command function may say itself with a `writes(args) -> bool` attribute (`oc adm
    upgrade` reads, `oc adm upgrade --to=4.14.27` writes); otherwise commands.MUTATING
    and commands.READ_ONLY decide, and any other `adm` command counts as a write."""
    path, args = commands.resolve(argv[0], argv[1:])
    if path is None:
        return False
    flags = args[:list(args).index("--")] if "--" in args else args  # (after `--`: a container's command)
    if any(a in ("--dry-run", "--dry-run=client", "--dry-run=true") for a in flags):
        return False
    try:
        writes = getattr(commands.load(commands.COMMANDS[path]), "writes", None)
    except (ImportError, AttributeError):
        writes = None
    if writes is not None:
        return bool(writes(args))
    if path in commands.MUTATING:
        return True
    return path not in commands.READ_ONLY and path[:1] == ("adm",)


# --- running ---------------------------------------------------------------------------------------------------


Emit = Callable[[str, str], None]  # (stream "stdout"|"stderr", text)


def emit_result(result: OcResult, emit: Emit) -> None:
    """Print a result's output through `emit`, in the order the command wrote it."""
    _emit_result(result, emit)


def _emit_result(result: OcResult, emit: Emit) -> None:
    if result.lines:
        for stream, text in result.lines:
            emit(stream, text)
    else:
        if result.stdout:
            emit("stdout", result.stdout)
        if result.stderr:
            emit("stderr", result.stderr)


def run_on_cluster(cluster: Cluster, argv: Sequence[str], emit: Emit, *, now: float | None = None, user=None,
                   files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None, wait: bool = True) -> OcResult:
    """Run one command against a stored cluster; `user` None = the command line's own
    administrator. With `wait`, a drain plays the cluster's clock until it ends. A write is
    taken at the cluster's clock: the controllers first run up to it (services.at_clock), so
    the command reads what a write would meet."""
    if user is None or can_edit(user):
        services.at_clock(cluster.pk)
    cluster.refresh_from_db()
    facts = {**(files or {}), SETTINGS_FACTS: [dict(cluster.facts or {})],
             session.SESSION: [{"user": ADMIN if user is None else (user.get_username() or "system:anonymous"),
                                "cluster": cluster.name}]}
    if user is not None and is_mutating(argv) and not can_edit(user):
        if getattr(_function(argv), "refused", None) is not None:
            # oc reads the ClusterVersion and checks its flags first: only a patch is refused
            _, result = _run_stored(cluster, lambda store: commands.run(store, argv, cluster.now, files=facts), emit)
            if not result.actions:
                _emit_result(result, emit)
                return result
        text = forbidden(user.get_username() or "system:anonymous", argv)
        emit("stderr", text)
        return OcResult(stderr=text, exit_code=1)
    # --now pins the ages a command prints; a write always happens at the cluster's clock.
    at = cluster.now if now is None or is_mutating(argv) else now
    # the cluster's settings facts (what update risks and the simulated alerts read), for the
    # commands that read them (oc adm upgrade recommend)
    path, _ = commands.resolve(argv[0], argv[1:])
    retries = CONFLICT_RETRIES if path and path[-1] in RETRIED_ON_CONFLICT else 0
    warned: set[str] = set()

    def emit_once(stream: str, text: str) -> None:  # (a retry reads again: its warnings were said)
        if (stream, text) not in warned:
            warned.add((stream, text))
            emit(stream, text)

    nodes = described_nodes(argv)
    for attempt in range(retries + 1):
        store, result = _run_stored(cluster, lambda store: commands.run(store, argv, at, files=facts), emit_once, nodes)
        try:
            if result.actions:
                write_actions(cluster, store, result.actions, sources_of(files))
            elif result.would:
                check_updates(cluster, store, result.would)
        except ConflictError as exc:
            if attempt < retries:
                cluster.refresh_from_db()  # re-read and apply again (the patch meets the latest object)
                continue
            emit("stderr", f"{exc}\n")
            return OcResult(stderr=f"{exc}\n", exit_code=1)
        except WriteError as exc:
            emit("stderr", f"{exc}\n")
            return OcResult(stderr=f"{exc}\n", exit_code=1)
        break
    _emit_result(result, emit)
    if wait and result.pending is not None and result.pending.get("watch") == "get":
        return follow_get(cluster, result, emit)
    if wait and result.pending is not None and result.pending.get("watch") and user is not None and not can_edit(user):
        # following a rollout moves the cluster's clock: a user who may only read sees the status once
        emit("stderr", "error: following the rollout moves the cluster's clock, which this user may not do; "
                       "give --watch=false\n")
        return OcResult(stdout=result.stdout, stderr=result.stderr, exit_code=1)
    steps = 0
    while wait and result.pending is not None and steps < MAX_DRAIN_STEPS:
        steps += 1
        result = continue_drain(cluster, result.pending, emit)
    if result.pending is not None and wait:
        what = "rollout status" if result.pending.get("watch") else "drain"
        emit("stderr", f"error: the {what} is still waiting after the simulator's limit of "
                       f"{MAX_DRAIN_STEPS} steps; give --timeout to bound it\n")
        result.exit_code = 1
    return result


def follow_get(cluster: Cluster, result: OcResult, emit: Emit, poll: float = 1.0, stop: Callable[[], bool] | None = None) -> OcResult:
    """`oc get -w` on the command line: kubectl's watch follows until interrupted (Ctrl-C); here
    it looks at the stored cluster every `poll` wall seconds and prints what changed once the
    cluster's clock (run by the beat) has passed the next look. Nothing moves the clock."""
    pending = result.pending
    try:
        while pending is not None and not (stop is not None and stop()):
            time.sleep(poll)
            cluster.refresh_from_db()
            if cluster.now + 1e-9 < pending["next_due"]:
                continue
            _, step = _run_stored(cluster, lambda store: _resume(store, pending, cluster.now), emit)
            _emit_result(step, emit)
            pending = step.pending
    except KeyboardInterrupt:
        pass
    return OcResult()


def continue_drain(cluster: Cluster, pending: Mapping[str, Any], emit: Emit) -> OcResult:
    """Step the cluster's clock to the drain's next instant, run the controllers, resume."""
    cluster.refresh_from_db()
    due = pending.get("next_due")
    if due is not None and due > cluster.now + 1e-9:
        clock.step(cluster, due - cluster.now)
        cluster.refresh_from_db()
    reconcile.reconcile(cluster.pk, force=True)
    return resume_drain(cluster, pending, emit)


def resume_drain(cluster: Cluster, pending: Mapping[str, Any], emit: Emit) -> OcResult:
    """Resume a pending drain at the cluster's current time (the console polls this as
    the clock runs)."""
    cluster.refresh_from_db()
    store, result = _run_stored(cluster, lambda store: _resume(store, pending, cluster.now), emit)
    try:
        if result.actions:
            write_actions(cluster, store, result.actions)
    except WriteError as exc:
        emit("stderr", f"{exc}\n")
        return OcResult(stderr=f"{exc}\n", exit_code=1)
    _emit_result(result, emit)
    return result


def _resume(store: Store, pending: Mapping[str, Any], now: float) -> OcResult:
    """The next pass of a command that goes on: a followed `oc rollout status`, `oc get -w`,
    else a drain."""
    if pending.get("watch") == "rollout-status":
        return rollout.resume_status(store, pending, now)
    if pending.get("watch") == "get":
        return get.resume_watch(store, pending, now)
    return drain.resume(store, pending, now)


def run_on_snapshot(store: Store, argv: Sequence[str], emit: Emit, *, now: float,
                    files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> OcResult:
    """Run one command against snapshot objects: print, change nothing on disk. The commands
    are told (files["snapshot"]) that no cluster stands behind the objects (no alerts to ask)."""
    result = commands.run(store, argv, now, files={**(files or {}), "snapshot": []})
    _emit_result(result, emit)
    if result.pending is not None and result.pending.get("watch") == "get":
        return result  # nothing changes in a snapshot: the watch has nothing more to print
    if result.pending is not None and result.pending.get("watch"):
        emit("stderr", "error: nothing changes in a snapshot (no controllers run), so this rollout would be watched forever; "
                       "give --watch=false\n")
        result.exit_code = 1
        return result
    scratch = store.copy()
    scratch.apply_all(result.actions)
    steps = 0
    while result.pending is not None and steps < MAX_DRAIN_STEPS:
        steps += 1
        due = result.pending.get("next_due") or now
        now = max(now, due)
        for pod in list(scratch.list("Pod")):  # only the grace periods pass: no controllers
            gone_at = seconds((pod.get("metadata") or {}).get("deletionTimestamp"))
            if gone_at is not None and gone_at <= now:
                scratch.remove("Pod", (pod.get("metadata") or {}).get("namespace") or "default", pod["metadata"]["name"])
        result = drain.resume(scratch, result.pending, now)
        scratch.apply_all(result.actions)
        _emit_result(result, emit)
    if result.pending is not None:
        emit("stderr", "error: nothing changes in a snapshot (no controllers run), so this drain would wait forever; "
                       "give --timeout to bound it\n")
        result.exit_code = 1
    return result


def stdio_emit(stdout=None, stderr=None) -> Emit:
    out, err = stdout or sys.stdout, stderr or sys.stderr

    def emit(stream: str, text: str) -> None:
        (out if stream == "stdout" else err).write(text)
        (out if stream == "stdout" else err).flush()

    return emit
