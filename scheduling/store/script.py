"""The script on screen: a cluster's Timeline steps in play order, with their simulated
times and descriptions, where the script ends, and how simulated times read.

A cluster loaded from a built-in scenario (engine/scenarios) is recognised by the names of
its Timelines; its script ends at the scenario's `until` (the time needed to see the whole
example), else at its last step.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scheduling.store import kube
from scheduling.engine.timeline import sim_time_text
from scheduling.engine import scenarios
from scheduling.engine.timeline import TIMELINE_KIND, load_timeline
from scheduling.models import Cluster, ClusterScript


@dataclass(frozen=True)
class ScriptStep:
    at: float
    text: str  # the step's description, else what it does ("apply Pod default/web")
    action: str  # what it does, always

    @property
    def time_text(self) -> str:
        return sim_time_text(self.at)


@dataclass(frozen=True)
class Script:
    steps: tuple[ScriptStep, ...]
    end: float
    title: str = ""
    go_on: bool = False

    @property
    def end_text(self) -> str:
        return sim_time_text(self.end)

    def next_stop(self, now: float) -> float | None:
        """The next step's time after `now`, else the end if not reached yet, else None."""
        times = [s.at for s in self.steps]
        i = bisect.bisect_right(times, now)
        if i < len(times):
            return times[i]
        return self.end if now < self.end else None

    def current_index(self, now: float) -> int | None:
        """The index of the last step due by `now` (None before the first)."""
        i = bisect.bisect_right([s.at for s in self.steps], now)
        return i - 1 if i else None


@cache
def _scenario_by_timeline() -> dict[str, scenarios.Scenario]:
    out = {}
    for scenario in scenarios.SCENARIOS:
        text = Path(scenarios.path(scenario)).read_text()
        for doc in kube.parse_documents(text, scenario.file):
            if doc.get("kind") == TIMELINE_KIND:
                out[doc["metadata"]["name"]] = scenario
    return out


def scenario_of(cluster: Cluster) -> scenarios.Scenario | None:
    names = [(d.get("metadata") or {}).get("name") for d in (cluster.controller_state or {}).get("timelines") or []]
    found = [_scenario_by_timeline().get(n) for n in names]
    return next((s for s in found if s is not None), None)


def cluster_script(cluster: Cluster) -> Script | None:
    """The script of the cluster's Timelines, or None when it has none."""
    docs = (cluster.controller_state or {}).get("timelines") or []
    if not docs:
        return None
    steps = []
    for doc in docs:
        for step in load_timeline(doc).steps:
            steps.append(ScriptStep(step.at, step.description or step.describe(), step.describe()))
    steps.sort(key=lambda s: s.at)  # stable: same time keeps document order
    scenario = scenario_of(cluster)
    end = max([s.at for s in steps] + [scenario.until if scenario else 0.0])
    go_on = ClusterScript.objects.filter(cluster=cluster).values_list("go_on", flat=True).first() or False
    return Script(tuple(steps), end, scenario.title if scenario else "", go_on)


def set_go_on(cluster: Cluster, go_on: bool) -> None:
    """Let the clock run past the end of the script (or stop there again)."""
    ClusterScript.objects.update_or_create(cluster=cluster, defaults={"go_on": go_on})
