"""The event loop of engine.simulation (its CONTROLLERS, the machine controllers among
them) driven step by step for the machine tests: act (`apply` what a user or an owner
does), `settle` at the current instant, `run_until` a later time."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulation import Simulation, controller_names

MACHINE_CONTROLLERS = ("machineset-controller", "control-plane-machine-set-controller", "machine-controller",
                       "machine-drain-controller", "machinehealthcheck-controller", "etcd-quorum-guard",
                       "machine-hook-owners", "cluster-autoscaler")


class Driver:
    def __init__(self, docs: Iterable[Mapping[str, Any]], controllers: Sequence[str] | None = None, seed: int = 0):
        self.sim = Simulation(list(docs), schedulers=[(DEFAULT_SCHEDULER, default_policy())], seed=seed, controllers=controllers)
        self.store = self.sim.store
        self.sim.run_until(0)

    @property
    def now(self) -> float:
        return self.sim.now

    def apply(self, actions: Iterable[Any]) -> list:
        return self.sim.apply([a for a in actions if a is not None])

    def settle(self) -> None:
        self.sim.run_until(self.sim.now)

    def run_until(self, until: float) -> None:
        self.sim.run_until(until)

    def events(self, *reasons: str) -> list[tuple[float, str, str, str]]:
        return [(e.time, e.reason, e.object, e.message) for e in self.store.events if not reasons or e.reason in reasons]


def all_controllers_but(*names: str) -> list[str]:
    return [n for n in controller_names() if n not in names]
