"""The incremental controllers equal full recomputation.

Every controller of the loop keeps what it worked out from one run to the next (the
scheduler's Snapshot and cache, the workload controllers' pod facts, the MCO's pool
counts, the kubelet's terminating pods...) and reads the store's indexes and memo instead
of scanning the cluster. The reference run here turns all of that off:

* every controller but the scheduler is handed `changed=None` ("treat everything as
  changed": it works everything out again from the store) on every run;
* the scheduler is handed the refs that changed (they decide its queues, as in
  kube-scheduler) but builds its Snapshot again from the store on every run;
* the store's memo keeps nothing (every engine object is built again from its document);
* the store answers its index queries (pods by node, by owner, by label, orphans, names,
  in_order) by scanning its documents.

The loop decides who runs when exactly as in the incremental run. Both runs must give the
same events, the same objects, the same controller state and the same clock.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

import pytest

from scheduling.engine import scenarios
from scheduling.engine import simulate as simulate_module
from scheduling.engine.controllers.scheduling import NAME as SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulate import simulate
from scheduling.engine.simulation import Simulation
from scheduling.engine.store import Store, controller_ref, namespace_of, name_of
from scheduling.engine.timeline import load_timeline
from scheduling.store.kube import load_documents
from scheduling.bench import update as bench
from scheduling.engine.openshift.mco import DAEMON, NODE_CONTROLLER

# --- the reference: nothing kept, nothing indexed ------------------------------------------------


class NoMemo(dict):
    """A memo that remembers nothing: every object is built again from its document."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return default


class ScanStore(Store):
    """A Store whose index queries scan its documents (what the indexes stand for)."""

    def _pod_keys_where(self, test) -> dict[tuple[str, str], None]:
        return {key: None for key, doc in self._docs.get("Pod", {}).items() if test(doc)}

    def in_order(self, kind: str, keys: Iterable[tuple[str, str]]) -> list[dict]:
        wanted = set(keys)
        return [doc for key, doc in self._docs.get(kind, {}).items() if key in wanted]

    def names(self, kind: str, namespace: str) -> Mapping[str, None]:
        return {name: None for ns, name in self._docs.get(kind, {}) if ns == namespace}

    def pods_on_node(self, node: str) -> Mapping[tuple[str, str], None]:
        return self._pod_keys_where(lambda d: ((d.get("spec") or {}).get("nodeName") or "") == node) if node else {}

    def pods_of(self, namespace: str, kind: str, name: str) -> Mapping[tuple[str, str], None]:
        def owned(doc):
            ref = controller_ref(doc)
            return (namespace_of(doc) == namespace and ref is not None
                    and (ref.get("kind") or "") == kind and (ref.get("name") or "") == name)
        return self._pod_keys_where(owned)

    def orphan_pods(self, namespace: str) -> Mapping[tuple[str, str], None]:
        return self._pod_keys_where(lambda d: namespace_of(d) == namespace and controller_ref(d) is None)

    def pods_labelled(self, namespace: str, key: str, value: str) -> Mapping[tuple[str, str], None]:
        return self._pod_keys_where(lambda d: namespace_of(d) == namespace
                                    and key in ((d.get("metadata") or {}).get("labels") or {})
                                    and d["metadata"]["labels"][key] == value)


def _full(controller, handed: list) -> None:
    run = controller.reconcile
    if controller.name == SCHEDULER:
        def reconcile(ctx):
            controller._snapshot = None  # the NodeInfos, Pod objects and cache from the store again
            handed.append((controller.name, ctx.changed))
            return run(ctx)
    else:
        def reconcile(ctx):
            handed.append((controller.name, None))
            return run(dataclasses.replace(ctx, changed=None))
    controller.reconcile = reconcile


RUNS: list[Simulation] = []


class Incremental(Simulation):
    """The loop as it is, remembered for the comparison."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        RUNS.append(self)


class Reference(Incremental):
    """The loop with every controller recomputing everything, no memo, no indexes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.store.__class__ = ScanStore
        self.store.memo = NoMemo()
        self.handed: list[tuple[str, Any]] = []  # (controller, the changed refs it was handed), run by run
        for c in self.controllers:
            _full(c, self.handed)


def outcome(sim: Simulation) -> dict:
    return {
        "events": list(sim.events),
        "objects": sorted(((d.get("kind"), namespace_of(d), name_of(d)), d) for d in sim.store.all()),
        "object order": {kind: [name_of(d) for d in sim.store.list(kind)] for kind in sim.store.kinds()},
        "controller state": sim.store.controller_state,
        "due": sim.due,
        "instants": sim.instants,
        "now": sim.now,
        "pods": [(key, sim.phase(key)) for key in sim.pod_keys],
        "results": [(r.pod.key, r.node, r.message, r.time, r.filters, r.scores, r.tied, r.error) for r in sim.results],
    }


def assert_same(incremental: Simulation, reference: Simulation) -> None:
    a, b = outcome(incremental), outcome(reference)
    assert a["events"], "a run with nothing happening proves nothing"
    for key in a:
        assert a[key] == b[key], f"{key} differ between the incremental run and full recomputation"


def both(make) -> tuple[Simulation, Simulation]:
    return make(Incremental), make(Reference)


# --- (a) an update end to end ----------------------------------------------------------------------


def test_an_update_with_pdbs_end_to_end_equals_full_recomputation():
    """The update bench's cluster, small: the CVO runlevel by runlevel, then the MCO rolling
    three pools (maxUnavailable 1 and 10%), drains through PDBs, replacements scheduled."""
    docs = bench.build(24, 240, seed=3)

    def make(cls):
        sim = cls(docs, schedulers=[("default-scheduler", default_policy())], seed=3, explain=False)
        sim.run_until(4 * 3600)
        return sim

    inc, ref = both(make)
    assert sum(1 for e in inc.events if e.reason == "NodeDone") == 24  # every node updated
    assert any(e.reason == "Killing" for e in inc.events)
    assert_same(inc, ref)


# --- (b) a mixed Timeline ------------------------------------------------------------------------


def _node(name: str, zone: str, role: str = "worker", cpu: str = "4") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                                                  f"node-role.kubernetes.io/{role}": ""}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "20"}}}


def _workload(kind: str, name: str, replicas: int, cpu: str = "500m", **spec: Any) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": "shop"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, **spec,
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"terminationGracePeriodSeconds": 20,
                                           "containers": [{"name": name, "image": f"example/{name}:1",
                                                           "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}]}}}}


MIXED = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}},
    *[_node(f"node{i}", f"zone-{'ab'[i % 2]}") for i in range(1, 6)],
    _node("master0", "zone-a", role="master"),
    _workload("Deployment", "web", 6),
    _workload("ReplicaSet", "cache", 3, cpu="1"),
    {**_workload("StatefulSet", "db", 2), "spec": {**_workload("StatefulSet", "db", 2)["spec"], "serviceName": "db"}},
    {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "shop"},
     "spec": {"selector": {"matchLabels": {"app": "agent"}},
              "template": {"metadata": {"labels": {"app": "agent"}},
                           "spec": {"containers": [{"name": "agent", "image": "example/agent:1"}]}}}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
     "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lonely", "namespace": "shop", "labels": {"app": "web"}},
     "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]}},
    {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "mixed"}, "steps": [
        {"at": 60, "run": "oc adm taint nodes node1 dedicated=db:NoExecute"},
        {"at": 120, "apply": {**_node("node2", "zone-b"), "metadata": {
            **_node("node2", "zone-b")["metadata"], "annotations": {"clusterui.io/heartbeat-stopped-at": "120"}}}},
        {"at": 200, "run": "oc scale deployment/web -n shop --replicas=9"},
        {"at": 300, "run": "oc adm drain node3 --ignore-daemonsets --delete-emptydir-data"},
        {"at": 450, "delete": {"kind": "Pod", "namespace": "shop", "name": "lonely"}},
        {"at": 500, "apply": _node("node6", "zone-a", cpu="8")},
        {"at": 600, "run": "oc adm uncordon node3"},
        {"at": 700, "apply": _node("node2", "zone-b")},
        {"at": 800, "run": "oc adm taint nodes node1 dedicated-"},
        {"at": 900, "delete": {"kind": "Node", "name": "node4"}},
        {"at": 1000, "delete": {"kind": "ReplicaSet", "namespace": "shop", "name": "cache"}},
    ]},
]


def test_a_mixed_timeline_equals_full_recomputation():
    """Taints, a node that stops reporting and comes back, scaling, a drain through a PDB,
    deletions of a pod, a node and a workload, a new node."""
    timelines = [load_timeline(d) for d in MIXED if d["kind"] == "Timeline"]
    docs = simulate_module.admit([d for d in MIXED if d["kind"] != "Timeline"])

    def make(cls):
        sim = cls(docs, schedulers=[("default-scheduler", default_policy())], timelines=timelines, seed=7)
        sim.run_until(2400)
        return sim

    inc, ref = both(make)
    reasons = {e.reason for e in inc.events}
    assert {"TaintManagerEviction", "NodeNotReady", "Scheduled", "SuccessfulCreate", "CommandOutput"} <= reasons, reasons
    assert "FailedApply" not in reasons and "CommandFailed" not in reasons
    assert_same(inc, ref)


# --- (c) every built-in scenario -----------------------------------------------------------------


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_equals_full_recomputation(scenario, monkeypatch):
    with open(scenarios.path(scenario), encoding="utf-8") as f:
        docs = load_documents(f.read(), scenario.file)
    outputs = []
    for cls in (Incremental, Reference):
        RUNS.clear()
        monkeypatch.setattr(simulate_module, "Simulation", cls)
        outputs.append((simulate(docs, until=scenario.until, objects=True), RUNS[-1]))
    (out_inc, inc), (out_ref, ref) = outputs
    assert out_inc == out_ref
    assert_same(inc, ref)


# --- the switch itself ---------------------------------------------------------------------------


def test_the_reference_run_recomputes_and_scans():
    """The reference really turns the incremental machinery off (else the comparisons above
    compare a run with itself)."""
    docs = bench.build(6, 30, seed=1)
    sim = Reference(docs, schedulers=[("default-scheduler", default_policy())], explain=False)
    sim.run_until(600)
    assert isinstance(sim.store, ScanStore) and not sim.store.memo
    assert sim.store.pods_on_node("worker-0000") and not sim.store._index.on_node.keys() - {
        (d.get("spec") or {}).get("nodeName") for d in sim.store.list("Pod")}
    ran = {name for name, _ in sim.handed}
    assert {NODE_CONTROLLER, DAEMON, "workloads", "kubelet", "cvo", "taint-manager", "node-lifecycle"} <= ran
    assert all(changed is None for name, changed in sim.handed if name != SCHEDULER)
    assert any(changed for name, changed in sim.handed if name == SCHEDULER)


def _batch_template(command: str, restart: str = "Never") -> dict:
    return {"spec": {"restartPolicy": restart, "containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", command], "resources": {"requests": {"cpu": "500m"}}}]}}


BATCH = [
    *[_node(f"node{i}", f"zone-{'ab'[i % 2]}") for i in range(1, 4)],
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "work", "namespace": "default"},
     "spec": {"completions": 5, "parallelism": 2, "template": _batch_template("sleep 30")}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bad", "namespace": "default"},
     "spec": {"backoffLimit": 3, "template": _batch_template("sleep 5; exit 1")}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "flaky", "namespace": "default"},
     "spec": {"backoffLimit": 4, "ttlSecondsAfterFinished": 100, "template": _batch_template("sleep 7; exit 3", "OnFailure")}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick", "namespace": "default"},
     "spec": {"schedule": "*/2 * * * *", "concurrencyPolicy": "Replace", "successfulJobsHistoryLimit": 1,
              "jobTemplate": {"spec": {"template": _batch_template("sleep 100", "OnFailure")}}}},
    {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "batch"}, "steps": [
        {"at": 45, "run": "oc adm drain node1 --ignore-daemonsets --delete-emptydir-data --force"},
        {"at": 400, "run": "oc create job manual --from=cronjob/tick"},
        {"at": 500, "run": "oc adm uncordon node1"},
    ]},
]


def test_jobs_and_cronjobs_equal_full_recomputation():
    """Jobs running their pods to an end (completions, back-off, restarts, TTL), a CronJob
    replacing its runs, a drain evicting Job pods and a Job made from the CronJob."""
    timelines = [load_timeline(d) for d in BATCH if d["kind"] == "Timeline"]
    docs = simulate_module.admit([d for d in BATCH if d["kind"] != "Timeline"])

    def make(cls):
        sim = cls(docs, schedulers=[("default-scheduler", default_policy())], timelines=timelines, seed=3)
        sim.run_until(1300)
        return sim

    inc, ref = both(make)
    reasons = {e.reason for e in inc.events}
    assert {"Completed", "BackoffLimitExceeded", "SawCompletedJob", "SuccessfulDelete", "CommandOutput"} <= reasons, reasons
    assert "CommandFailed" not in reasons
    assert_same(inc, ref)
