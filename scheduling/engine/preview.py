"""A preview is the loop on a copy: a change applied at the clock, then the same controllers.

`run_preview(sim, actions, for_seconds)` takes a Simulation already run up to the clock of the
cluster it stands for (a stored cluster: scheduling.store.reconcile.loop_at_clock; a file:
`Simulation(...).run_until(t)`), applies the change's actions at that instant exactly as a
write at the clock is taken (the controllers that watch what changed run at once), and runs
the loop on for `for_seconds` (None: until nothing more happens, at most MAX_SECONDS). The
Simulation is the preview's own: nothing else sees it, so nothing is written anywhere.

The result is what the cluster would record if the same change were applied then and the
clock advanced by the same time: the events from the change on (the change's own first,
then the controllers'), and every pod at the end. The pages summarise it for people
(evicted now or later, started where, preempted by whom) from these events and pods; there
is no second engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from .simulation import Simulation, fewer_collections
from .store import CONTROLLER_STATE_KIND

__all__ = ["MAX_SECONDS", "PreviewResult", "run_preview"]

MAX_SECONDS = 3600.0  # how far a preview looks when not told (the contract's bound)
EPSILON = 1e-9


@dataclass
class PreviewResult:
    at: float  # the clock the change is applied at
    until: float  # the time the preview ran to
    events: list[dict] = field(default_factory=list)  # {"time","type","reason","object","message"}, time order
    pods: list[dict] = field(default_factory=list)  # {"pod","node","phase","terminating"}, every pod at `until`
    sim: Simulation | None = field(default=None, repr=False)  # the loop after the run (for details: scores)
    changed: list[tuple[str, str, str]] = field(default_factory=list)  # what the change itself wrote

    def to_doc(self) -> dict:
        """The JSON document of `manage.py preview`."""
        return {"at": self.at, "until": self.until, "events": self.events, "pods": self.pods}

    def events_of(self, reason: str) -> list[dict]:
        return [e for e in self.events if e["reason"] == reason]


def run_preview(sim: Simulation, actions: Iterable[Any], for_seconds: float | None = None) -> PreviewResult:
    """Apply `actions` (engine.actions: what a command or an edit writes, its events
    included) at `sim.now` and run on. With `for_seconds` None the loop runs until the last
    instant at which something changed (a document or an event) within MAX_SECONDS."""
    at = sim.now
    first_event = len(sim.events)
    with fewer_collections():  # the whole preview makes objects by the thousand: as the loop's runs do
        changed = [r for r in sim.apply(list(actions)) if r[0] != CONTROLLER_STATE_KIND]
        if for_seconds is not None:
            sim.run_until(at + max(0.0, float(for_seconds)))
            until = sim.now
        else:
            until = _run_until_quiet(sim, at)
        events = [e.to_doc() for e in sim.events[first_event:]]
        events.sort(key=lambda e: e["time"])  # stable: the order recorded within an instant
        pods = pods_of(sim)
    return PreviewResult(at=at, until=until, events=events, pods=pods, sim=sim, changed=changed)


def _run_until_quiet(sim: Simulation, at: float) -> float:
    """Run instant by instant up to at + MAX_SECONDS; the time of the last instant that
    changed a document or recorded an event (`at` when none did). Periodic controllers
    (the node lifecycle monitor) keep asking to run: only what they change counts."""
    horizon = at + MAX_SECONDS
    sim.run_until(at)
    last = at
    while True:
        nxt = _next_instant(sim)
        if nxt is None or nxt > horizon + EPSILON:
            break
        revision, events = sim.document_changes, len(sim.events)
        sim.run_until(nxt)
        if sim.document_changes != revision or len(sim.events) != events:
            last = nxt
    sim.run_until(horizon)
    return last


def _next_instant(sim: Simulation) -> float | None:
    times = [t for t in (sim.next_step_time, sim.next_due) if t is not None and t > sim.now + EPSILON]
    return min(times) if times else None


def pods_of(sim: Simulation) -> list[dict]:
    """Every pod in the store, in store order, as the contract lists them (the phase as
    Simulation.phase_of words it, from the document at hand)."""
    out = []
    for doc in sim.store.list("Pod"):
        meta = doc.get("metadata") or {}
        out.append({"pod": f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}",
                    "node": (doc.get("spec") or {}).get("nodeName") or None,
                    "phase": sim.phase_of(doc), "terminating": meta.get("deletionTimestamp") is not None})
    return out
