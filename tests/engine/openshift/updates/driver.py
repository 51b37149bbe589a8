"""The shared event loop (engine.simulation.Simulation, every controller of CONTROLLERS or
the named ones) for the updates tests, with the cluster's facts in its settings."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.openshift import upgradeable as U
from scheduling.engine.simulation import Simulation

CORE = ["scheduler", "node-lifecycle", "taint-manager", "kubelet", "workloads"]
MCO = CORE + ["mco-node-controller", "mco-daemon"]


def with_acks(docs: Iterable[Mapping[str, Any]]) -> list:
    """The documents, with an admin-acks ConfigMap acknowledging the running release's admin
    gates when they have none (the administrator of these clusters has read the articles: a
    test about the gates gives its own)."""
    docs = list(docs)
    if any(d.get("kind") == "ConfigMap" and (d.get("metadata") or {}).get("name") == U.ACKS_NAME for d in docs):
        return docs
    versions = [((d.get("status") or {}).get("desired") or {}).get("version") or "" for d in docs if d.get("kind") == "ClusterVersion"]
    return docs + [U.acked_config_map(versions)]


def Driver(docs: Iterable[Mapping[str, Any]], controllers: Sequence[str] | None = None,
           facts: Mapping[str, Any] | None = None, seed: int = 0) -> Simulation:
    return Simulation(with_acks(docs), schedulers=[("default-scheduler", default_policy())], seed=seed, explain=False,
                      controllers=controllers, settings={"facts": dict(facts or {})})
