"""Training mode: an instructor drives a cluster, a room follows read-only.

Sessions with a short join code; attendees known by the name they chose; what the
instructor shows (page and side panel) pushed to everyone following; questions generated
from the engine's own preview, answered on the attendees' devices and revealed with the
tally; rewinding a cluster to an earlier simulated moment (or forking it from there) and
restarting a scenario in place. Views call these; every push goes out after commit
(training_broadcast).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any, Mapping

from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from scheduling.store import clock, kube, reconcile, services, snapshots
from scheduling.pages import previews, whatif
from scheduling.training import broadcast as training_broadcast
from scheduling.training.fragments import tally  # noqa: F401 (the tally of a question, used by callers of this module)
from scheduling.engine.openshift import mco

from scheduling.engine.simulate import build_state
from scheduling.engine.store import Store
from scheduling.models import Answer, Attendee, Cluster, Event, Question, TrainingSession
from scheduling.store.script import cluster_script, sim_time_text
from scheduling.store.state import cluster_documents

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read off a projector
CODE_LENGTH = 8  # 32^8 codes, and guesses are rate-limited (training.limits)
NAME_MAX = 40
MAX_CHOICES = 8
NONE_OF_THEM = "none of them"
STAYS_PENDING = "it stays Pending"


class TrainingError(ValueError):
    """A training action that cannot be done; str() is the message for the user."""


# --- sessions ------------------------------------------------------------------------------------


def start_session(cluster: Cluster, instructor) -> TrainingSession:
    """A new session on the cluster with a fresh join code (the cluster's open sessions end)."""
    snapshots.record_start(cluster)
    with transaction.atomic():
        for old in TrainingSession.objects.filter(cluster=cluster, closed_at__isnull=True):
            close_session(old)
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if not TrainingSession.objects.filter(code=code).exists():
                break
        return TrainingSession.objects.create(
            cluster=cluster, code=code, instructor=instructor if instructor.is_authenticated else None,
            view={"url": f"/clusters/{cluster.pk}/", "panel": ""},
        )


def normalise_code(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


def open_session(code: str) -> TrainingSession | None:
    return TrainingSession.objects.select_related("cluster").filter(code=normalise_code(code), closed_at__isnull=True).first()


def join(session: TrainingSession, name: str) -> Attendee:
    name = " ".join((name or "").split())
    if not name:
        raise TrainingError("choose a name the instructor will see")
    if len(name) > NAME_MAX:
        raise TrainingError(f"a name has at most {NAME_MAX} characters")
    if not session.is_open:
        raise TrainingError("this training session has ended")
    return Attendee.objects.create(session=session, name=name)


def close_session(session: TrainingSession) -> None:
    """End the session: every attendee's view ends (their pages are told at once)."""
    with transaction.atomic():
        if TrainingSession.objects.filter(pk=session.pk, closed_at__isnull=True).update(closed_at=timezone.now()):
            session.closed_at = timezone.now()
            training_broadcast.after_commit(session.pk, closed=True)


def is_followable_path(url: str) -> bool:
    """A path of this site (never another site's address: attendees' pages go there)."""
    return bool(url) and url.startswith("/") and not url.startswith("//") and "\\" not in url and len(url) <= 500


def set_view(session: TrainingSession, url: str, panel: str = "") -> dict:
    """What the instructor shows now: the page and the side panel (or none)."""
    if not is_followable_path(url) or (panel and not is_followable_path(panel)):
        raise TrainingError("only pages of this site can be shown to the room")
    view = {"url": url, "panel": panel or ""}
    with transaction.atomic():
        TrainingSession.objects.filter(pk=session.pk).update(view=view)
        session.view = view
        training_broadcast.after_commit(session.pk, follow=view)
    return view


def attendee_connected(attendee_id: int, delta: int) -> None:
    """An attendee's session socket opened (+1) or closed (-1); the instructor is told."""
    with transaction.atomic():
        Attendee.objects.filter(pk=attendee_id).update(connections=F("connections") + delta)
        Attendee.objects.filter(pk=attendee_id, connections__lt=0).update(connections=0)
        session_id = Attendee.objects.filter(pk=attendee_id).values_list("session_id", flat=True).first()
        if session_id is not None:
            training_broadcast.after_commit(session_id, presence=True)


# --- predict, then reveal ------------------------------------------------------------------------


def _short(key: str) -> str:
    """A pod as the room reads it: web-1, or kube-system/dns-1 outside the default namespace."""
    return key[len("default/"):] if key.startswith("default/") else key


def edit_preview(cluster: Cluster, doc: dict) -> whatif.LoopPreview:
    """The loop's preview of replacing the stored object with `doc` (a checked document),
    exactly as the what-if editor computes it: the document as the API server would store
    it (services.updated_document), applied at the clock, the controllers run on."""
    meta = doc["metadata"]
    obj = services.get_object(cluster, doc["kind"], meta["name"], meta.get("namespace", ""))
    try:
        stored = services.updated_document(cluster, doc, obj.document)
    except services.Invalid:  # the API server refuses it: the loop sees no change (Apply says why)
        return whatif.LoopPreview(at=cluster.now, until=cluster.now)
    return previews.preview_documents(cluster, [(obj, stored)])


@dataclass(frozen=True)
class Draft:
    text: str
    choices: list[str]
    correct: list[str]
    multiple: bool


def question_from_preview(preview: whatif.LoopPreview, state_nodes: list[str], running: dict[str, str]) -> Draft:
    """The question the loop's preview answers: where a pod goes when one starts, else which
    pods are evicted at once. Choices come from the cluster: its nodes, or the pods on the
    changed nodes (and the evicted ones)."""
    placed = [p for p in preview.scheduled if p.after]
    if placed:
        pod = placed[0]
        nodes = [n for n in state_nodes][: MAX_CHOICES - 1]
        if pod.after not in nodes:
            nodes[-1:] = [pod.after]
        return Draft(f"Where will {_short(pod.pod)} be scheduled?", sorted(nodes) + [STAYS_PENDING], [pod.after], False)
    evicted = [_short(e.pod) for e in preview.evicted_now]
    candidates = [_short(k) for k, node in running.items() if node in preview.changed_nodes]
    candidates += [_short(k) for k in preview.changed_pods if k in running]
    pool = list(dict.fromkeys(evicted + sorted(candidates)))[: MAX_CHOICES]
    for name in evicted:
        if name not in pool:
            pool[-1:] = [name]
    return Draft("Which pods will be evicted now?", sorted(pool) + [NONE_OF_THEM], evicted or [NONE_OF_THEM], True)


def ask_about_edit(session: TrainingSession, doc: dict, resource_version: int) -> Question:
    """Ask the room what an edit (a document the what-if editor previewed) will do."""
    cluster = session.cluster
    try:
        doc = previews.check(doc)
    except kube.DocumentError as exc:
        raise TrainingError(str(exc)) from exc
    try:
        preview = edit_preview(cluster, doc)
    except services.NotFound as exc:
        raise TrainingError(str(exc)) from exc
    state = build_state(cluster_documents(cluster, ("Node", "Pod")))
    running = {p.key: p.node_name for p in state.pods if p.node_name and not p.is_terminating}
    draft = question_from_preview(preview, sorted(n.name for n in state.nodes), running)
    action = {"kind": "edit", "document": doc, "resource_version": int(resource_version)}
    return _ask(session, draft, action)


def _ask(session: TrainingSession, draft: Draft, action: dict) -> Question:
    if not session.is_open:
        raise TrainingError("this training session has ended")
    with transaction.atomic():
        question = Question.objects.create(
            session=session, text=draft.text, choices=draft.choices, correct=draft.correct, multiple=draft.multiple,
            action=action, asked_at_time=session.cluster.now,
        )
        training_broadcast.after_commit(session.pk, question=True)
    return question


def answer(question: Question, attendee: Attendee, choices: list[str]) -> None:
    """An attendee's answer (a new one replaces theirs); refused once revealed."""
    if question.revealed:
        raise TrainingError("the answer has been revealed: answers are closed")
    if attendee.session_id != question.session_id or not question.session.is_open:
        raise TrainingError("this question is not part of your session")
    choices = [c for c in dict.fromkeys(choices) if c in question.choices]
    if not choices:
        raise TrainingError("choose an answer")
    if not question.multiple:
        choices = choices[:1]
    with transaction.atomic():
        Answer.objects.update_or_create(question=question, attendee=attendee, defaults={"choices": choices})
        training_broadcast.after_commit(question.session_id, answers=True)


def reveal(question: Question) -> None:
    with transaction.atomic():
        Question.objects.filter(pk=question.pk).update(revealed=True)
        question.revealed = True
        training_broadcast.after_commit(question.session_id, question=True)


def apply_question(question: Question) -> str:
    """After the reveal, do what the question was about. Returns what happened."""
    if not question.revealed:
        raise TrainingError("reveal the answer first")
    if question.applied:
        raise TrainingError("already applied")
    cluster = question.session.cluster
    action = question.action or {}
    if action.get("kind") == "edit":
        doc = action["document"]
        try:
            services.update_object(cluster, doc, expected_version=action["resource_version"])
        except services.StoreError as exc:
            raise TrainingError(str(exc)) from exc
        done = f"{doc['kind'].lower()}/{doc['metadata']['name']} replaced"
    elif action.get("kind") == "step":
        try:
            done = f"ran to {sim_time_text(clock.run_to_next_step(cluster))}"
        except ValueError as exc:
            raise TrainingError(str(exc)) from exc
    elif action.get("kind") == "pool":
        raise TrainingError("nothing to apply: request the update from the update page, the room watches the pool")
    else:
        raise TrainingError("nothing to apply")
    with transaction.atomic():
        # what happened is kept with the question: every instructor's page shows it
        question.action = {**action, "done": done}
        Question.objects.filter(pk=question.pk).update(applied=True, action=question.action)
        question.applied = True
        training_broadcast.after_commit(question.session_id, question=True)
    return done


# --- rewind, fork from a moment, restart ---------------------------------------------------------


# Going back discards what happened since: the user is told what first, and nothing changes until
# they confirm. The confirmation names the revision they were shown (Discard.revision): a cluster
# that changed meanwhile asks again, so nothing is discarded that the user was not told about.
SHOWN_REASONS = 3  # the reasons named in the question; the rest are "and N more"


@dataclass(frozen=True)
class Discard:
    """What going back to `at` forgets: everything after it up to now, told by the objects
    written since (the cluster's revisions after the latest snapshot at or before `at`: one per
    object created, changed or deleted, the controllers' and the users') and the events recorded
    since (each event row whose last time is after `at`), by reason."""

    verb: str  # "Rewind" or "Restart"
    at: float
    now: float
    revision: int
    writes: int
    reasons: tuple[tuple[str, int], ...]
    stale: bool = False  # a confirmation was given, for a revision the cluster has left

    @property
    def changes(self) -> int:
        return self.writes + sum(n for _, n in self.reasons)

    @property
    def question(self) -> str:
        to = sim_time_text(self.at)
        span = f"everything after {to} up to {sim_time_text(self.now)}"
        asked = f"{self.verb} {'to' if self.verb == 'Rewind' else 'from'} {to}?"
        if not self.changes:
            return f"{asked} This discards {span} (nothing was written or recorded in that time)."
        named = [f"{self.writes} object write{'s' if self.writes != 1 else ''}"] if self.writes else []
        named += [f"{n} {reason}" for reason, n in self.reasons[:SHOWN_REASONS]]
        rest = sum(n for _, n in self.reasons[SHOWN_REASONS:])
        detail = ", ".join(named) + (f" and {rest} more event{'s' if rest != 1 else ''}" if rest else "")
        plural = "s" if self.changes != 1 else ""
        return f"{asked} This discards {self.changes} later change{plural} ({detail}): {span}."

    @property
    def refusal(self) -> str:
        why = "the cluster changed since you confirmed" if self.stale else "going back needs your confirmation"
        return f"Not {'rewound' if self.verb == 'Rewind' else 'restarted'}: {why}. {self.question}"


class ConfirmFirst(TrainingError):
    """Going back would discard later state and was not confirmed (for the cluster as it is now)."""

    def __init__(self, discard: Discard):
        super().__init__(discard.refusal)
        self.discard = discard


def discards(cluster: Cluster, at: float, verb: str = "Rewind") -> Discard:
    """What going back to `at` would discard (read only)."""
    rows = (Event.objects.filter(cluster=cluster, last_time__gt=at).values("reason")
            .annotate(n=Count("id")).order_by("-n", "reason"))
    snapshot = snapshots.latest_at_or_before(cluster, at)
    writes = max(0, cluster.revision - snapshot.revision) if snapshot is not None and at < cluster.now else 0
    return Discard(verb, at, cluster.now, cluster.revision, writes, tuple((r["reason"], r["n"]) for r in rows))


def _confirmed(cluster: Cluster, at: float, verb: str, confirmed: int | None) -> None:
    """Raise ConfirmFirst unless going back to `at` discards nothing or was confirmed for the
    cluster's current revision."""
    if at >= cluster.now and not Event.objects.filter(cluster=cluster, last_time__gt=at).exists():
        return
    if confirmed != cluster.revision:
        discard = discards(cluster, at, verb)
        raise ConfirmFirst(replace(discard, stale=confirmed is not None))


def rewind(cluster: Cluster, at: float, *, who: str = "", confirmed: int | None = None) -> float:
    """Go back to simulated time `at` (0 <= at <= now) and continue from there: the latest
    snapshot at or before `at` is restored and the controllers run forward to `at`. The
    rewind is recorded as an event. Returns the time now shown.

    Going back discards what happened after `at`: unless `confirmed` is the cluster's revision
    (the one the user was shown `discards` for), ConfirmFirst is raised and nothing changes."""
    cluster.refresh_from_db()
    if at < 0 or at > cluster.now:
        raise TrainingError(f"choose a moment between t=0 s and {sim_time_text(cluster.now)}")
    snapshot = snapshots.latest_at_or_before(cluster, at)
    if snapshot is None:
        raise TrainingError("no snapshot this early: this cluster's history starts later")
    _confirmed(cluster, at, "Rewind", confirmed)
    came_from = cluster.now
    snapshots.restore(cluster, snapshot)
    _run_forward(cluster, at)
    services.record_event(
        cluster, reason="Rewound", kind="Cluster", name=cluster.name, source="clusterui",
        message=f"Rewound from {sim_time_text(came_from)} to {sim_time_text(at)}" + (f" by {who}" if who else ""), time=at,
    )
    return at


def _run_forward(cluster: Cluster, at: float) -> None:
    """From the restored snapshot to `at`: the controllers run when something was due by
    then (else the snapshot is the state at `at`, as the event-driven engine would leave it)."""
    if at > cluster.now:
        Cluster.objects.filter(pk=cluster.pk).update(now=at)
    cluster.refresh_from_db()
    if reconcile.is_due(cluster):
        reconcile.reconcile(cluster.pk, force=True)
        cluster.refresh_from_db()


def fork_at(cluster: Cluster, at: float, name: str) -> Cluster:
    """A new cluster holding this one as it was at `at` (this one is left as it is)."""
    cluster.refresh_from_db()
    if at < 0 or at > cluster.now:
        raise TrainingError(f"choose a moment between t=0 s and {sim_time_text(cluster.now)}")
    snapshot = snapshots.latest_at_or_before(cluster, at)
    if snapshot is None:
        raise TrainingError("no snapshot this early: this cluster's history starts later")
    with transaction.atomic():
        fork = services.create_cluster(name, cluster.description, cluster.seed)
        Cluster.objects.filter(pk=fork.pk).update(speed=cluster.speed)
        snapshots.restore(fork, snapshot, events_from=cluster)
    fork.refresh_from_db()
    _run_forward(fork, at)
    snapshots.take_snapshot_if_due(fork)  # the fork's own start, to restart or rewind to
    services.record_event(
        fork, reason="Forked", kind="Cluster", name=fork.name, source="clusterui",
        message=f"Forked from cluster {cluster.name} at {sim_time_text(at)}", time=at,
    )
    return fork


def restart(cluster: Cluster, *, who: str = "", confirmed: int | None = None) -> None:
    """Replay in place: the same cluster back to its first snapshot (t=0), paused; recorded
    as an event. Confirmed as a rewind is (ConfirmFirst)."""
    cluster.refresh_from_db()
    snapshot = snapshots.first(cluster)
    if snapshot is None:
        raise TrainingError("this cluster has no recorded start to go back to")
    _confirmed(cluster, snapshot.at, "Restart", confirmed)
    came_from = cluster.now
    snapshots.restore(cluster, snapshot)
    _run_forward(cluster, snapshot.at)
    services.record_event(
        cluster, reason="Restarted", kind="Cluster", name=cluster.name, source="clusterui", time=snapshot.at,
        message=f"Restarted at {sim_time_text(snapshot.at)} from {sim_time_text(came_from)}" + (f" by {who}" if who else ""),
    )


def _run_on_copy(cluster: Cluster, until: float) -> tuple[list[dict], list[dict]]:
    """The cluster's documents at its clock and after its loop ran on a copy to `until`
    (previews.preview_actions with no change: the Timeline steps due play as they will);
    nothing is written."""
    seen: dict[str, list[dict]] = {}

    def nothing(store) -> list:
        seen["before"] = list(store.all())
        return []

    result = previews.preview_actions(cluster, nothing, max(0.0, until - cluster.now))
    return seen["before"], list(result.sim.store.all())


def _pods(docs) -> dict[str, tuple[str, bool]]:
    """{pod key: (node name, terminating)}."""
    out = {}
    for d in docs:
        if d.get("kind") == "Pod":
            m = d.get("metadata") or {}
            out[f"{m.get('namespace') or 'default'}/{m.get('name')}"] = (
                (d.get("spec") or {}).get("nodeName") or "", bool(m.get("deletionTimestamp")),
            )
    return out


def question_about_run(before: dict[str, tuple[str, bool]], after: dict[str, tuple[str, bool]], nodes: list[str], at: str) -> Draft:
    """What running the clock does to the pods: which running pods are evicted (gone or
    terminating), else where a pending (or new) pod is placed."""
    running = [k for k, (node, gone) in before.items() if node and not gone]
    evicted = [k for k in running if k not in after or after[k][1]]
    if evicted:
        pool = list(dict.fromkeys([_short(k) for k in evicted] + sorted(_short(k) for k in running)))[:MAX_CHOICES]
        return Draft(f"Which pods will be evicted by {at}?", sorted(pool) + [NONE_OF_THEM], sorted(_short(k) for k in evicted), True)
    placed = [k for k, (node, gone) in after.items() if node and not gone and not (before.get(k) or ("", False))[0]]
    if placed:
        pod, node = placed[0], after[placed[0]][0]
        choices = nodes[: MAX_CHOICES - 1]
        if node not in choices:
            choices[-1:] = [node]
        return Draft(f"Where will {_short(pod)} be scheduled at {at}?", sorted(choices) + [STAYS_PENDING], [node], False)
    pool = sorted(_short(k) for k in running)[:MAX_CHOICES]
    return Draft(f"Which pods will be evicted by {at}?", pool + [NONE_OF_THEM], [NONE_OF_THEM], True)


def ask_about_next_step(session: TrainingSession) -> Question:
    """Before the script's next step plays: ask what running the clock to it will do."""
    cluster = Cluster.objects.get(pk=session.cluster_id)
    the_script = cluster_script(cluster)
    target = the_script.next_stop(cluster.now) if the_script else None
    if target is None:
        raise TrainingError("the script has ended: no step left to ask about" if the_script else "this cluster has no script")
    before, after = _run_on_copy(cluster, target)
    nodes = sorted((d.get("metadata") or {}).get("name") for d in before if d.get("kind") == "Node")
    draft = question_about_run(_pods(before), _pods(after), nodes, sim_time_text(target))
    return _ask(session, draft, {"kind": "step", "until": target})


def question_about_pool(pool: Mapping[str, Any], nodes: list[dict]) -> Draft:
    """How many nodes of a MachineConfigPool the MCO's node controller takes for an update
    at once: maxUnavailable (a number, or a percentage of the pool's nodes rounded down;
    at least 1), never more than the pool has, none while the pool is paused."""
    count = len(nodes)
    paused = bool((pool.get("spec") or {}).get("paused"))
    at_once = 0 if paused or not count else min(mco.max_unavailable(pool, count), count)
    choices = [str(n) for n in range(0, min(count, MAX_CHOICES - 1) + 1)]
    if str(at_once) not in choices:
        choices[-1] = str(at_once)
    name = (pool.get("metadata") or {}).get("name") or ""
    return Draft(f"How many nodes of the {name} pool will be updating at once?", choices, [str(at_once)], False)


def ask_about_pool(session: TrainingSession, pool_name: str = "worker") -> Question:
    """Before an update rolls through a pool: ask how many of its nodes update at once."""
    cluster = Cluster.objects.get(pk=session.cluster_id)
    store = Store(cluster_documents(cluster, ("Node", "MachineConfigPool")))
    pool = store.get("MachineConfigPool", "", pool_name)
    if pool is None:
        raise TrainingError(f'this cluster has no MachineConfigPool "{pool_name}"')
    draft = question_about_pool(pool, mco.pool_nodes(store, pool))
    return _ask(session, draft, {"kind": "pool", "pool": pool_name})


def delete_scenario_copies(name: str) -> int:
    """Delete the clusters loaded again from scenario `name` (name-2, name-3, ...)."""
    copies = [c for c in Cluster.objects.filter(name__startswith=f"{name}-") if c.name[len(name) + 1:].isdigit()]
    for cluster in copies:
        services.delete_cluster(cluster)
    return len(copies)
