"""Run the controllers of one stored cluster up to its clock, through the engine.

The same `engine.simulation.Simulation` that plays `simulate --until` runs here: the
stored documents go in, the controllers of engine.simulation.CONTROLLERS run from
`reconciled_to` to the cluster's `now`, and what changed comes back as documents and
events, written in one transaction.

What the loop must carry from one run to the next is kept in `Cluster.controller_state`:
* `controllers`: every controller's own state (`Simulation.store.controller_state`:
  the taint manager's timers, the scheduler's unschedulable queue and attempts, the
  workload controllers' name counters, the node lifecycle controller's zones, ...),
  handed back to the next Simulation (`controller_state=`);
* `due`: when each controller asked to run again (`Simulation.due`);
* `steps_played`, `timelines`: the Timeline steps already played, and the Timelines;
* `revision`: the cluster revision the last run wrote. The next run resumes the loop
  where it stopped (`resumed=True`: the controllers run exactly when they would have in
  one long run) and hands the controllers what users wrote since: the rows whose
  resource version is past `revision` and the deletions of `Cluster.journal`, as if the
  writes had been Timeline steps at `reconciled_to` (a user's write is taken at the clock:
  services.at_clock runs `catch_up` first). A settings change (policy, admission,
  descheduler, facts) puts ["resync"] in the journal: then every controller looks at
  everything once at the first instant. This is what makes a stored cluster stepped in
  any increments, with the same writes at the same times, end where `simulate --until` ends;
* `next_due`: the earliest of `due` (for `is_due`), and `zones`: the zones as the
  cluster page shows them (derived from the node lifecycle controller's state).
A stored cluster from before controller state (Zone documents in `zones`, timers in pod
annotations) is migrated when read (engine.controllers.legacy).

The random generator is derived from `Cluster.seed` alone (and each decision's identity,
engine.controller.rng_for), never from the time of the run.

Idempotent by construction: all controller state lives in the documents and in
`controller_state`; the write is a compare-and-swap on the cluster revision read at the
start (someone else wrote meanwhile: nothing is written, the next run starts again from
the new state); and a run with nothing due and nothing changed since the last one
only moves `reconciled_to` to the clock.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from django.conf import settings as django_settings
from django.db import transaction

from scheduling.store import node_selection, services
from scheduling.engine.controllers import node_lifecycle
from scheduling.engine.controllers.descheduler_v1alpha2 import operator as kube_operator
from scheduling.engine.framework.config import ConfigError, select_schedulers
from scheduling.engine import actions as A
from scheduling.engine.simulation import Simulation
from scheduling.engine.timeline import load_timeline
from scheduling.models import KIND_MODELS, Cluster
from scheduling.store.snapshots import take_snapshot_if_due
from scheduling.store.state import (
    cluster_state,
    keep_read,
    read_after_writes,
    shared_documents,
    with_usable_documents,
)
from scheduling.engine.api.validation import INVALID_OBJECT_REASON, invalid_object_message

logger = logging.getLogger(__name__)
EPSILON = 1e-9


@dataclass(frozen=True)
class Outcome:
    ran: bool  # the controllers ran
    written: int = 0  # objects created, replaced or deleted
    events: int = 0
    conflict: bool = False  # someone wrote meanwhile; nothing was written
    failed: bool = False  # the run raised: nothing was written (see `stopped`)


# A run that fails (raises, or dies with its process) is counted in the journal before it
# starts, as ["attempt", revision, n, message]; a run that writes clears the journal. After
# RECONCILE_MAX_FAILURES attempts at one revision the cluster is stopped there: its
# reconciles are refused (a Warning event `ReconcileFailed` with the reason, and
# `stopped(cluster)` for the pages) until a user's write moves the revision on.
ATTEMPT, STOPPED = "attempt", "stopped"
FAILED_REASON = "ReconcileFailed"


def stopped(cluster: Cluster) -> dict | None:
    """The condition of a cluster whose reconciles stopped at its current revision
    ({"type": "Reconciling", "status": "False", "reason", "message"}), or None."""
    for entry in cluster.journal or ():
        if entry and entry[0] == STOPPED and entry[1] == cluster.revision:
            return {"type": "Reconciling", "status": "False", "reason": FAILED_REASON, "message": entry[2]}
    return None


def _attempts(journal: list, revision: int) -> tuple[int, str]:
    """(failed or unfinished runs at `revision`, the last one's message)."""
    for entry in journal:
        if entry and entry[0] == ATTEMPT and entry[1] == revision:
            return int(entry[2]), str(entry[3] or "")
    return 0, ""


def _set_attempt(cluster_id: int, revision: int, n: int, message: str, stop: bool = False) -> bool:
    """Note the n-th attempt at `revision` (and stop there when `stop`); False when the
    cluster moved on meanwhile (nothing noted)."""
    with transaction.atomic():
        locked = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
        if locked is None or locked.revision != revision:
            return False
        journal = [e for e in locked.journal or [] if not (e and e[0] in (ATTEMPT, STOPPED))]
        journal.append([ATTEMPT, revision, n, message])
        if stop:
            journal.append([STOPPED, revision, message])
        Cluster.objects.filter(pk=cluster_id).update(journal=journal)
    return True


def _clear_attempts(cluster_id: int) -> None:
    """Forget the attempts (the caller holds the cluster's row)."""
    journal = Cluster.objects.values_list("journal", flat=True).get(pk=cluster_id) or []
    kept = [e for e in journal if not (e and e[0] in (ATTEMPT, STOPPED))]
    if kept != journal:
        Cluster.objects.filter(pk=cluster_id).update(journal=kept)


def _stop(cluster: Cluster, message: str) -> None:
    _set_attempt(cluster.pk, cluster.revision, int(django_settings.RECONCILE_MAX_FAILURES), message, stop=True)
    services.record_event(cluster, reason=FAILED_REASON, type="Warning", kind="Cluster", name=cluster.name,
                          source="clusterui", message=f"reconcile stopped after {django_settings.RECONCILE_MAX_FAILURES} "
                                                      f"failed attempts: {message}")


def _comparable(doc: dict) -> dict:
    """A document without the fields the store manages."""
    meta = {k: v for k, v in (doc.get("metadata") or {}).items() if k != "resourceVersion"}
    return {**doc, "metadata": meta}


def _schedulers(cluster: Cluster, docs: list[dict] = ()):
    """The cluster's schedulers (its stored configuration; its ClusterVersion decides
    between the 3.11 scheduler and the framework)."""
    configs = [cluster.policy, *(cluster.scheduler_policies or {}).values()]
    try:
        return select_schedulers(configs, [d for d in docs if d.get("kind") == "ClusterVersion"])
    except ConfigError:  # stored configurations were validated; keep running on the defaults
        logger.exception("cluster %s has an invalid scheduler configuration; using the default", cluster.pk)
        return select_schedulers([], [d for d in docs if d.get("kind") == "ClusterVersion"])


def is_due(cluster: Cluster) -> bool:
    """Something changed since the last run, or a controller asked to run by now."""
    state = cluster.controller_state or {}
    if state.get("revision") != cluster.revision:
        return True
    due = [t for t in (state.get("next_due"), _next_step_time(state)) if t is not None]
    return bool(due) and cluster.now >= min(due)


def enqueue_due() -> list[int]:
    """Ask for a reconcile of every cluster with work due (run when the server starts: a
    reconcile enqueued by a process without a worker, say `manage.py load_demo`, was lost,
    and a paused clock never asks again). Returns their ids."""
    due = [c.pk for c in Cluster.objects.order_by("pk") if is_due(c)]
    for cluster_id in due:
        services.request_reconcile(cluster_id)
    return due


def _next_step_time(state: dict) -> float | None:
    """When the next Timeline step not yet played is due."""
    times = sorted(float(step.get("at") or 0) for doc in state.get("timelines") or [] for step in doc.get("steps") or [])
    played = int(state.get("steps_played") or 0)
    return times[played] if played < len(times) else None


def reconcile(cluster_id: int, *, force: bool = False, inside_write: bool = False) -> Outcome:
    """Run the controllers of the cluster up to its clock and write what they changed.
    `inside_write`: run inside a user's write transaction (catch_up), which may still roll
    back: what this run read is kept for the process only once it commits."""
    with transaction.atomic():  # one consistent snapshot of the cluster
        cluster = Cluster.objects.filter(pk=cluster_id).first()
        if cluster is None:
            return Outcome(ran=False)
        if not force and not is_due(cluster):
            # nothing due and nothing written: the loop would only move its clock
            if cluster.now > cluster.reconciled_to + EPSILON:
                Cluster.objects.filter(pk=cluster_id, revision=cluster.revision,
                                       reconciled_to=cluster.reconciled_to).update(reconciled_to=cluster.now)
            return Outcome(ran=False)
        if stopped(cluster) is not None:
            return Outcome(ran=False, failed=True)
        docs, memo = shared_documents(cluster)
    until = max(cluster.now, cluster.reconciled_to)
    if inside_write:  # a user's write waits on it: any failure is the write's
        sim, docs = _run(cluster, docs, memo, until)
        return _write(cluster, docs, sim, until, inside_write)
    failures, last = _attempts(cluster.journal or [], cluster.revision)
    if failures >= int(django_settings.RECONCILE_MAX_FAILURES):
        _stop(cluster, last or "the run did not finish")  # the process died in it, time after time
        return Outcome(ran=False, failed=True)
    _set_attempt(cluster.pk, cluster.revision, failures + 1, "the run did not finish")
    try:
        sim, docs = _run(cluster, docs, memo, until)
        return _write(cluster, docs, sim, until, inside_write)
    except Exception as exc:  # noqa: BLE001 - counted, then stopped: never a crash loop
        logger.exception("reconcile of cluster %s failed", cluster_id)
        message = f"{type(exc).__name__}: {exc}"[:1000]
        if failures + 1 >= int(django_settings.RECONCILE_MAX_FAILURES):
            _stop(cluster, message)
        else:
            _set_attempt(cluster.pk, cluster.revision, failures + 1, message)
        return Outcome(ran=True, failed=True)


def catch_up(cluster_id: int) -> None:
    """Run the controllers up to the cluster's clock before a user's write
    (services.at_clock), so that the write is taken at the clock: nothing is ever processed
    in the past. A cluster whose clock moved with nothing due and nothing written since
    its last run only has `reconciled_to` moved (what a run would do, without the run).
    A run that fails here does not fail the user's write (say, the scale that fixes what
    made it fail): it is rolled back to its savepoint, and the reconcile the write asks for
    counts the failure (and stops the cluster after RECONCILE_MAX_FAILURES)."""
    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if cluster is not None and cluster.now > cluster.reconciled_to + EPSILON:
        try:
            with transaction.atomic():  # a savepoint: a failed run leaves the user's write alone
                reconcile(cluster_id, inside_write=True)
        except Exception:  # noqa: BLE001 - the write goes on; the run it asks for counts the failure
            logger.warning("catching cluster %s up to its clock failed; the write is taken at %s", cluster_id,
                           cluster.reconciled_to, exc_info=True)


def loop_at_clock(cluster: Cluster, *, explain: bool = False) -> Simulation:
    """The cluster's loop, run up to its clock exactly as the next reconcile would run it,
    writing nothing: what a preview applies a change to and runs on (engine.preview)."""
    with transaction.atomic():
        cluster = Cluster.objects.get(pk=cluster.pk)
        docs, memo = shared_documents(cluster)
    sim, _ = _run(cluster, docs, memo, max(cluster.now, cluster.reconciled_to), explain=explain)
    return sim


def _run(cluster: Cluster, docs: list[dict], memo: dict, until: float, *, explain: bool = False
         ) -> tuple[Simulation, list[dict]]:
    """The loop of one stored cluster from `reconciled_to` to `until`, over the shared
    documents: (the Simulation, the documents it started from, less any it had to skip).

    A stored cluster is the loop paused at its clock. When controller state was kept, the
    run resumes it: the controllers run exactly when they would have in one long run, and
    what users wrote since the last run (rows past its revision, deletions and settings in
    the journal) is handed to the controllers that watch it, as a Timeline step played at
    `reconciled_to` would be (a user's write is taken at the clock: services.at_clock)."""
    stored = cluster.controller_state or {}
    timelines = [load_timeline(doc) for doc in stored.get("timelines") or []]
    start = cluster.reconciled_to
    has_state = "controllers" in stored
    journal = list(cluster.journal or [])
    resumed = has_state and ["resync"] not in journal
    legacy_zones = [] if has_state else list(stored.get("zones") or [])

    def run(usable: list[dict]) -> Simulation:
        changes = written_since(usable, stored.get("revision"), journal) if resumed else ()
        sim = _simulation(cluster, usable + legacy_zones, stored, timelines, resumed, changes, dict(memo), explain)
        sim.now = start
        sim.run_until(until)
        return sim

    # An object stored before the rules that keep the engine safe existed is skipped and
    # reported, and the rest of the cluster goes on (its own documents stay as they are).
    sim, skipped = with_usable_documents(docs, run)
    if skipped:
        bad = {id(doc) for doc, _ in skipped}
        docs = [d for d in docs if id(d) not in bad]
        for doc, problem in skipped:
            meta = doc.get("metadata") or {}
            sim.store.events.append(A.RecordEvent(
                until, "Warning", INVALID_OBJECT_REASON, str(doc.get("kind")), meta.get("namespace") or "",
                str(meta.get("name") or ""), invalid_object_message(doc, problem), "clusterui"))
    return sim, docs


def written_since(docs: list[dict], revision: int | None, journal: list) -> list[tuple[str, str, str]]:
    """The objects users wrote since the run that wrote `revision`: the documents whose
    resourceVersion is past it (created or replaced), then the deletions of the journal."""
    if revision is None:
        return []
    refs = []
    for doc in docs:
        meta = doc.get("metadata") or {}
        if int(meta.get("resourceVersion") or 0) > revision:
            refs.append((doc.get("kind") or "", meta.get("namespace") or "", meta.get("name") or ""))
    refs += [(entry[1], entry[2] or "", entry[3]) for entry in journal if entry and entry[0] == "delete"]
    return refs


def _simulation(cluster: Cluster, docs: list[dict], stored: dict, timelines: list, resumed: bool, changes,
                memo: dict, explain: bool = False) -> Simulation:
    """The Simulation of one run over the shared documents (state.shared_documents: never
    copied, never changed; `memo` the engine objects built from them)."""
    return Simulation(
        docs,
        schedulers=_schedulers(cluster, docs),
        seed=cluster.seed,
        admission=cluster.admission or None,
        settings={
            "node_selection": node_selection.config_of(cluster),
            "user": node_selection.web_user(cluster),
            "descheduler": cluster.descheduler or None,
            # the OpenShift Scheduler's profile, which the descheduler operator checks its profiles against
            "openshift_scheduler_profile": kube_operator.scheduler_profile([cluster.policy, *(cluster.scheduler_policies or {}).values()]),
            "facts": cluster.facts or {},  # what update risks query (scheduling.engine.openshift.facts)
            "limits": {"pods": int(django_settings.CLUSTER_MAX_PODS)},  # a ResourceQuota on pods
        },
        explain=explain,
        preemption=cluster.preemption_enabled,
        timelines=timelines,
        steps_played=int(stored.get("steps_played") or 0),
        controller_state=stored.get("controllers") or {},
        due=stored.get("due") or {},
        resumed=resumed,
        changes=changes,
        memo=memo,
    )


def zone_docs(controller_state: dict) -> list[dict]:
    """The zones of the node lifecycle controller as the cluster page lists them."""
    zones = node_lifecycle.recorded_zones(controller_state.get(node_lifecycle.NAME) or {})
    return [{"metadata": {"name": name}, "status": status} for name, status in sorted(zones.items())]


def _pending_pods_with_the_schedulers_word(sim: Simulation, until: float) -> dict[int, dict]:
    """Pods that are still pending carry the scheduler's last word, as the API shows it:
    id(the store's document) -> the document to write instead."""
    pending: dict[int, dict] = {}
    for key, result in sim.last_results().items():
        ns, _, name = key.partition("/")
        doc = sim.store.get("Pod", ns, name)
        if doc is not None and result.node is None and result.message and not (doc.get("spec") or {}).get("nodeName"):
            pending[id(doc)] = _with_unschedulable_condition(doc, result.message, until)
    return pending


def _object_writes(old: dict, new: dict) -> list[services.Write]:
    """The creates, deletes and replaces that turn the rows `old` into `new` (both keyed by
    (kind, namespace, name)). Kinds in store order; within a kind the stored objects first,
    then the new ones in the order the controllers created them (the order the next run
    reads them in)."""
    order = {kind: i for i, kind in enumerate(KIND_MODELS)}
    keys = list(old) + [k for k in new if k not in old]
    writes: list[services.Write] = []
    for key in sorted(keys, key=lambda k: order.get(k[0], len(order))):
        before_doc, after_doc = old.get(key), new.get(key)
        if key[0] not in KIND_MODELS:
            continue
        if before_doc is after_doc:
            continue  # the store puts a new document for every change: this one did not change
        if before_doc is None:
            writes.append(("create", None, after_doc))
        elif after_doc is None:
            writes.append(("delete", before_doc, None))
        elif _comparable(after_doc) != _comparable(before_doc):
            writes.append(("replace", before_doc, after_doc))
    return writes


def _controller_state(cluster: Cluster, sim: Simulation, revision: int) -> dict:
    """The cluster's controller_state after a run: the controllers' own state, what is due
    and the revision the run wrote."""
    return {
        **(cluster.controller_state or {}),
        "controllers": sim.store.controller_state,
        "due": sim.due,
        "zones": zone_docs(sim.store.controller_state),
        "next_due": sim.next_due,
        "revision": revision,
        "steps_played": sim.steps_played,
    }


def _write(cluster: Cluster, before: list[dict], sim: Simulation, until: float, inside_write: bool = False) -> Outcome:
    after = [d for kind in sim.store.kinds() if kind in KIND_MODELS for d in sim.store.list(kind)]
    pending = _pending_pods_with_the_schedulers_word(sim, until)
    # The store puts a new document for every change and the documents read are never
    # changed: a document of `before` still in the store is unchanged, so only the others
    # (and the pending pods') are keyed and compared, in the order of `before` and of the store.
    before_ids, after_ids = set(map(id, before)), set(map(id, after))
    old = {_key(d): d for d in before if id(d) not in after_ids or id(d) in pending}
    new = {_key(d): pending.get(id(d), d) for d in after if id(d) not in before_ids or id(d) in pending}
    written = 0
    with transaction.atomic(), services.controller_writes():
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if locked.revision != cluster.revision:
            _clear_attempts(cluster.pk)  # (not a failure: the next run starts from the new state)
            return Outcome(ran=True, conflict=True)
        writes = _object_writes(old, new)
        written = len(writes)
        written_rows: dict[str, tuple[list[int], list[int]]] = {}
        revision = services.write_batch(cluster, writes, written_rows)
        # The shared read at the revision written, from the rows just written (nothing else
        # wrote in between: the lock is held since the revision was checked).
        read = read_after_writes(cluster, cluster.revision, revision, written_rows)
        services.record_events(cluster, sim.events)
        Cluster.objects.filter(pk=cluster.pk).update(
            reconciled_to=until, journal=[], controller_state=_controller_state(cluster, sim, revision))
    if inside_write:  # kept once the user's transaction, which holds this run's writes, commits
        transaction.on_commit(functools.partial(keep_read, cluster, read))
    else:
        keep_read(cluster, read)
    take_snapshot_if_due(cluster)  # training mode: a snapshot every snapshots.INTERVAL simulated seconds
    # What the pages ask next (the explainer, a preview) reads the state just written: read
    # it now, while the documents it shares with this run are at hand (state.cluster_state).
    written_cluster = Cluster.objects.filter(pk=cluster.pk).first()
    if written_cluster is not None:
        cluster_state(written_cluster)
    return Outcome(ran=True, written=written, events=len(sim.events))


def _key(doc: dict) -> tuple[str, str, str]:
    meta = doc.get("metadata") or {}
    return doc.get("kind") or "", meta.get("namespace") or "", meta.get("name") or ""


def _with_unschedulable_condition(doc: dict, message: str, now: float) -> dict:
    """The pod with status.conditions PodScheduled=False, reason Unschedulable, as the 1.11
    scheduler records a pod it could not place (a new document: the store's are shared)."""
    status = dict(doc.get("status") or {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    previous = next((c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
    if previous and previous.get("status") == "False" and previous.get("message") == message:
        conditions.append(previous)
    else:
        conditions.append(
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
             "lastTransitionTime": now}
        )
    status["conditions"] = conditions
    return {**doc, "status": status}
