"""The one protocol every controller of the simulated cluster follows.

A controller is a small object with a `name` (what `simulate --controllers` and the
docs call it), the kinds it `watches`, and `reconcile(ctx) -> Result`: given the store
and the simulated time, the actions to apply and when it next wants to run
(`Result.next_due`). The event loop (engine.simulation) runs the controllers of its
`CONTROLLERS` list in that order at every instant where something changed or something
is due, until nothing changes.

Controller state belongs to the controller, not to the objects users write: timers
(a NoExecute eviction due at t), drain retries, hook waits, CVO progress are kept in
`ctx.state` (this controller's own JSON-serialisable dict, persisted with the cluster)
and changed only through `SetControllerState` actions, so replacing a Pod never resets
the taint manager's timer, exactly as in Kubernetes.

Every random choice is drawn from `ctx.rng(*identity)`: a generator derived from the
cluster seed and the identity of the decision (a pod's uid and its attempt, an owner's
uid and the number of pods it has created...), never from a stream shared across
decisions, so a scenario gives the same names and placements however the clock is
stepped.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from scheduling.engine.actions import Result
from scheduling.engine.store import Ref, Store

ANY_KIND = "*"  # in `watches`: every kind


def derived_seed(seed: int, *identity: Any) -> int:
    """A 64-bit seed from the cluster seed and a decision's identity (stable across runs
    and processes: no `hash()`)."""
    text = "\x1f".join(str(part) for part in (seed, *identity))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")


def rng_for(seed: int, *identity: Any) -> random.Random:
    return random.Random(derived_seed(seed, *identity))


@dataclass
class Context:
    """What a controller is handed for one run."""

    store: Store
    now: float
    seed: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)  # cluster settings (admission, preemption, ...)
    state: Mapping[str, Any] = field(default_factory=dict)  # this controller's own state (read only)
    # The (kind, namespace, name) of the watched documents that changed since this
    # controller last ran; None: unknown (its first run, or a run resumed after changes
    # the loop did not see): treat everything as changed.
    changed: Sequence[Ref] | None = None

    def rng(self, *identity: Any) -> random.Random:
        return rng_for(self.seed, *identity)


class Controller(Protocol):
    """Made with no arguments (`cls()`), once per Simulation; what it needs comes in the
    Context (settings, state). Attributes set on the instance are a cache for one run of
    the loop only: whatever must survive a stored cluster's next reconcile goes in state."""

    name: str  # e.g. "taint-manager", "cvo", "machine-controller"
    watches: frozenset[str]  # kinds whose changes make it run (ANY_KIND: any kind)

    def reconcile(self, ctx: Context) -> Result: ...


def is_watched(watches: frozenset[str], kind: str) -> bool:
    return ANY_KIND in watches or kind in watches
