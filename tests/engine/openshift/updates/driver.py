"""The shared event loop (engine.simulation.Simulation, every controller of CONTROLLERS or
the named ones) for the updates tests, with the cluster's facts in its settings."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulation import Simulation

CORE = ["scheduler", "node-lifecycle", "taint-manager", "kubelet", "workloads"]
MCO = CORE + ["mco-node-controller", "mco-daemon"]


def Driver(docs: Iterable[Mapping[str, Any]], controllers: Sequence[str] | None = None,
           facts: Mapping[str, Any] | None = None, seed: int = 0) -> Simulation:
    return Simulation(list(docs), schedulers=[("default-scheduler", default_policy())], seed=seed, explain=False,
                      controllers=controllers, settings={"facts": dict(facts or {})})
