"""A cluster without nodes: every way into a scheduling cycle answers with 1.11's
ErrNoNodesAvailable, "no nodes available to schedule pods" (a MachineSet scaled to 0 can
leave a cluster with none)."""

from __future__ import annotations

import random

from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.scheduler.scheduler import run_queue, schedule, schedule_cached

POD = Pod.from_doc({"kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Pending"}})


def test_every_path_says_no_nodes_are_available():
    state = ClusterState(pods=[POD])
    messages = [
        schedule(POD, state, {}, default_policy(), random.Random(0)).message,
        schedule(POD, state, {}, default_policy(), random.Random(0), explain=True).message,
        schedule_cached(POD, state, SchedulerCache({}, state), default_policy(), random.Random(0)).message,
        run_queue(state, default_policy(), random.Random(0))[-1].message,
    ]
    assert messages == ["no nodes available to schedule pods"] * 4
