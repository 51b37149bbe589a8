"""`oc adm drain` and the drain API (engine.oc.drain): kubectl's refusals, warnings, dry
runs, evictions through the eviction API with PDB retries every 5 s, over simulated time."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.oc import drain
from scheduling.engine.scheduler.policy import schedulers_for
from scheduling.engine.simulation import Simulation
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
             "spec": {"selector": {"matchLabels": {"a": "b"}},
                      "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
REPLICASET = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}


def node1_pods(*names: str) -> Store:
    pods = {
        "agent": pod_doc("agent-x", node="node1", namespace="kube-system", owner=("DaemonSet", "agent")),
        "bare": pod_doc("bare", node="node1"),
        "cache": pod_doc("cache", node="node1", owner=("ReplicaSet", "web")),
        "web": pod_doc("web-1", node="node1", owner=("ReplicaSet", "web")),
        "mirror": pod_doc("etcd-node1", node="node1", namespace="kube-system"),
        "elsewhere": pod_doc("other", node="node2"),
    }
    pods["cache"]["spec"]["volumes"] = [{"name": "v", "emptyDir": {}}]
    pods["mirror"]["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    return Store([node_doc("node1"), node_doc("node2"), DAEMONSET, REPLICASET, *(pods[n] for n in names)])


def refused(error: str, node: str = "node1") -> str:
    return (f'error: unable to drain node "{node}" due to error: {error}, continuing command...\n'
            f"There are pending nodes to be drained:\n {node}\nerror: {error}\n")


DS_ERROR = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/agent-x"
BARE_ERROR = "cannot delete cannot delete Pods that declare no controller (use --force to override): default/bare"
LOCAL_ERROR = "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache"


@pytest.mark.parametrize(
    "pods, flags, stderr",
    [
        pytest.param(("agent",), "", refused(DS_ERROR), id="a DaemonSet pod without --ignore-daemonsets"),
        pytest.param(("bare",), "", refused(BARE_ERROR),
                     id="a pod without controller without --force (current kubectl says 'cannot delete' twice)"),
        pytest.param(("cache",), "", refused(LOCAL_ERROR), id="an emptyDir pod without --delete-emptydir-data"),
        pytest.param(("bare", "cache", "agent"), "", refused(f"[{BARE_ERROR}, {LOCAL_ERROR}, {DS_ERROR}]"),
                     id="several refusals are aggregated"),
        pytest.param(("agent", "cache"), "--ignore-daemonsets", refused(LOCAL_ERROR), id="the other refusals remain"),
    ],
)
def test_drain_refusals(pods, flags, stderr):
    result = oc.run(node1_pods(*pods), f"oc adm drain node1 {flags}", 100)
    assert (result.stdout, result.stderr, result.exit_code, result.pending) == ("node/node1 cordoned\n", stderr, 1, None)
    assert result.actions == [A.SetUnschedulable("node1", True)]  # the node stays cordoned, as with kubectl


def test_drain_prints_warnings_then_evicts_and_waits_for_the_pods_to_go():
    store = node1_pods("agent", "bare", "web", "mirror", "elsewhere")
    result = oc.run(store, "oc adm drain node1 --ignore-daemonsets --force", 100)
    assert result.stdout == "node/node1 cordoned\nevicting pod default/bare\nevicting pod default/web-1\n"
    assert result.stderr == ("Warning: deleting Pods that declare no controller: default/bare; "
                             "ignoring DaemonSet-managed Pods: kube-system/agent-x\n")
    assert (result.exit_code, result.pending["next_due"]) == (0, 130)  # the pods' 30 s grace periods
    assert A.SetPodDeletion("default", "web-1", 100, 30, "Evicted") in result.actions
    store.apply_all(result.actions)
    store.remove("Pod", "default", "bare")
    store.remove("Pod", "default", "web-1")
    done = drain.resume(store, result.pending, 130)
    assert (done.stdout, done.stderr, done.exit_code, done.pending) == (
        "pod/bare evicted\npod/web-1 evicted\nnode/node1 drained\n", "", 0, None)


@pytest.mark.parametrize(
    "flag, stdout",
    [
        pytest.param("--dry-run=client", "node/node1 cordoned (dry run)\nevicting pod default/web-1 (dry run)\n"
                     "node/node1 drained (dry run)\n", id="client"),
        pytest.param("--dry-run=server", "node/node1 cordoned (server dry run)\nevicting pod default/web-1 (server dry run)\n"
                     "node/node1 drained (server dry run)\n", id="server"),
    ],
)
def test_drain_dry_runs_change_nothing(flag, stdout):
    result = oc.run(node1_pods("web", "agent"), f"oc adm drain node1 --ignore-daemonsets {flag}", 100)
    assert (result.stdout, result.exit_code, result.actions, result.pending) == (stdout, 0, [], None)


def test_plan_is_the_api_for_other_controllers():
    p = drain.plan(node1_pods("agent", "cache", "web", "mirror"), "node1",
                   drain.DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True))
    assert [(x.namespace, x.name) for x in p.pods] == [("default", "cache"), ("default", "web-1")]
    assert (p.errors, p.warnings) == ([], "ignoring DaemonSet-managed Pods: kube-system/agent-x")
    assert drain.DrainPlan.from_dict(p.to_dict()) == p


# --- a PodDisruptionBudget over simulated time ------------------------------------------------------------------------------

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "uid": "d1"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def pdb(min_available: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "web"}}}}


def play(sim: Simulation, result, until: float, changes=()):
    """Run the clock as `manage.py oc --cluster` does: to each next_due, then resume."""
    lines = [(sim.now, stream, text) for stream, text in result.lines]
    sim.apply(result.actions)
    while result.pending and sim.now < until:
        due = result.pending["next_due"]
        for at, doc in changes:
            if sim.now < at <= due:
                sim.run_until(at)
                sim.apply([A.ReplaceObject(doc, keep_status=True)])
        sim.run_until(due)
        result = drain.resume(sim.store, result.pending, sim.now)
        sim.apply(result.actions)
        lines += [(sim.now, stream, text) for stream, text in result.lines]
    return result, lines


def test_a_drain_blocked_by_a_pdb_retries_every_5s_and_completes_when_the_pdb_allows():
    sim = Simulation([node_doc("node1"), DEPLOYMENT, pdb(2)], schedulers=schedulers_for([]))
    sim.run_until(60)
    sim.apply([A.CreateObject(node_doc("node2"))])
    sim.run_until(61)
    pods = sorted(p["metadata"]["name"] for p in sim.store.list("Pod"))
    first = oc.run(sim.store, "oc adm drain node1", sim.now)
    blocked = 'error when evicting pods/"{}" -n "default" (will retry after 5s): ' \
              "Cannot evict pod as it would violate the pod's disruption budget.\n"
    assert first.stdout == f"node/node1 cordoned\nevicting pod default/{pods[0]}\nevicting pod default/{pods[1]}\n"
    assert first.stderr == blocked.format(pods[0]) + blocked.format(pods[1])
    # at 80 the budget is relaxed to minAvailable 1: the next retry (at 81) evicts one pod,
    # its replacement starts on node2, and the retry after that evicts the other.
    result, lines = play(sim, first, 400, changes=[(80, pdb(1))])
    assert result.exit_code == 0 and result.pending is None
    a, b = pods
    attempt = lambda t, pod: [(t, "stdout", f"evicting pod default/{pod}\n"), (t, "stderr", blocked.format(pod))]  # noqa: E731
    assert lines == [
        (61, "stdout", "node/node1 cordoned\n"), *attempt(61, a), *attempt(61, b),
        *attempt(66, a), *attempt(66, b), *attempt(71, a), *attempt(71, b), *attempt(76, a), *attempt(76, b),
        (81, "stdout", f"evicting pod default/{a}\n"), *attempt(81, b),  # the budget now allows one
        (86, "stdout", f"evicting pod default/{b}\n"),  # a's replacement runs on node2
        (111, "stdout", f"pod/{a} evicted\n"), (116, "stdout", f"pod/{b} evicted\n"), (116, "stdout", "node/node1 drained\n"),
    ]
    assert not any(p["spec"].get("nodeName") == "node1" for p in sim.store.list("Pod"))


def test_a_drain_times_out_with_kubectls_global_timeout():
    sim = Simulation([node_doc("node1"), DEPLOYMENT, pdb(2)], schedulers=schedulers_for([]))
    sim.run_until(60)
    first = oc.run(sim.store, "oc adm drain node1 --timeout=12s", sim.now)
    result, lines = play(sim, first, 400)
    a, b = sorted(p["metadata"]["name"] for p in sim.store.list("Pod"))
    error = (f'[error when evicting pods/"{a}" -n "default": global timeout reached: 12s, '
             f'error when evicting pods/"{b}" -n "default": global timeout reached: 12s]')
    assert result.exit_code == 1 and result.pending is None
    # the deadline (72) is noticed at the next attempt (75), as kubectl's goroutines do
    assert lines[-9:] == [
        (75, "stdout", f"evicting pod default/{a}\n"), (75, "stdout", f"evicting pod default/{b}\n"),
        (75, "stderr", f'There are pending pods in node "node1" when an error occurred: {error}\n'),
        (75, "stderr", f"pod/{a}\n"), (75, "stderr", f"pod/{b}\n"),
        (75, "stderr", f'error: unable to drain node "node1" due to error: {error}, continuing command...\n'),
        (75, "stderr", "There are pending nodes to be drained:\n"), (75, "stderr", " node1\n"),
        (75, "stderr", f"error: {error}\n"),
    ]


def test_a_timeline_drain_records_its_output_and_the_drain_controller_continues_it():
    from scheduling.engine.controller import Context
    from scheduling.engine.timeline import load_timeline

    timeline = load_timeline({"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                              "steps": [{"at": 61, "run": "oc adm drain node1"}]})
    sim = Simulation([node_doc("node1"), node_doc("node2"), DEPLOYMENT, pdb(1)], schedulers=schedulers_for([]),
                     timelines=[timeline])
    sim.run_until(61)
    first = [e for e in sim.events if e.reason == "CommandOutput"]
    assert [(e.object, e.message.splitlines()[0]) for e in first] == [("Command/0", "node/node1 cordoned")]
    controller = drain.DrainController()
    while sim.store.state_of("drain"):
        due = sim.store.state_of("drain")["Command/0"]["next_due"]
        sim.run_until(due)
        result = controller.reconcile(Context(sim.store, sim.now, state=sim.store.state_of("drain")))
        sim.apply(result.actions)
    outputs = [e.message for e in sim.events if e.reason == "CommandOutput"]
    assert outputs[-1].endswith("node/node1 drained\n")
    assert not any(p["spec"].get("nodeName") == "node1" for p in sim.store.list("Pod"))


@pytest.mark.parametrize(
    "command, stdout, stderr, code",
    [
        pytest.param("oc adm drain node2", "node/node2 cordoned\nnode/node2 drained\n", "", 0, id="a node without pods"),
        pytest.param("oc adm drain node1 --pod-selector app=web --delete-emptydir-data --dry-run=client",
                     "node/node1 cordoned (dry run)\nevicting pod default/cache (dry run)\nevicting pod default/web-1 (dry run)\n"
                     "node/node1 drained (dry run)\n", "", 0, id="--pod-selector leaves the other pods alone"),
        pytest.param("oc adm drain node9", "", 'Error from server (NotFound): nodes "node9" not found\n', 1, id="a missing node"),
        pytest.param("oc adm drain node1 --delete-local-data", "",
                     "error: unknown flag: --delete-local-data\nSee 'oc adm drain --help' for usage.\n", 1,
                     id="the 3.11 flag is gone from current oc"),
        pytest.param("oc adm drain node1 -l a=b", "",
                     "error: cannot specify both a node name and a --selector option\n"
                     "See 'oc adm drain -h' for help and examples\n", 1, id="a name and a selector"),
    ],
)
def test_drain_arguments(command, stdout, stderr, code):
    store = node1_pods("bare", "web", "cache")
    for name in ("web-1", "cache"):
        store.get("Pod", "default", name)["metadata"]["labels"] = {"app": "web"}
    result = oc.run(store, command, 100)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, stderr, code)


def test_a_timeline_drain_blocked_by_a_pdb_completes_in_the_loop_when_a_later_step_relaxes_the_budget():
    from scheduling.engine.timeline import load_timeline

    timeline = load_timeline({"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                              "steps": [{"at": 61, "run": "oc adm drain node1"}, {"at": 80, "apply": pdb(1)}]})
    sim = Simulation([node_doc("node1"), DEPLOYMENT, pdb(2)], schedulers=schedulers_for([]), timelines=[timeline])
    sim.run_until(60)
    sim.apply([A.CreateObject(node_doc("node2"))])
    sim.run_until(400)
    outputs = [(e.time, e.message) for e in sim.events if e.reason == "CommandOutput" and e.object == "Command/0"]
    assert outputs[0][0] == 61 and outputs[0][1].startswith("node/node1 cordoned\n")
    assert outputs[-1][1].endswith("node/node1 drained\n") and outputs[-1][0] > 80
    # until the budget is relaxed at 80, every retry is refused (on stderr, which a Timeline
    # records only for a command that fails): no pod leaves node1 before the retry at 81
    evicted = [e.time for e in sim.events if e.reason == "Killing"]
    assert evicted and min(evicted) >= 81
    assert not any(p["spec"].get("nodeName") == "node1" for p in sim.store.list("Pod"))
    assert sim.store.state_of("drain") == {}
