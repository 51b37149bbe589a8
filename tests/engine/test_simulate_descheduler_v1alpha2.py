"""`simulate` with a `descheduler/v1alpha2` DeschedulerPolicy and with OpenShift's
KubeDescheduler (docs/commands.md, "The descheduler"): one cycle at time 0 after the
scheduler's first pass, then every interval; Predictive mode evicts nothing and says where
each pod would land; `--objects` shows the operator's ConfigMap."""

from __future__ import annotations

import pytest
import yaml

from scheduling.engine.simulate import SimulationError, simulate

from .test_simulate_descheduler_admission import CLUSTER, events, load

V2_DUPLICATES = """\
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metadata: {name: dupes}
profiles:
- name: balance
  pluginConfig:
  - name: RemoveDuplicates
  plugins:
    balance:
      enabled: [RemoveDuplicates]
"""

KUBE_DESCHEDULER = """\
apiVersion: operator.openshift.io/v1
kind: KubeDescheduler
metadata: {name: cluster, namespace: openshift-kube-descheduler-operator}
spec:
  mode: {mode}
  deschedulingIntervalSeconds: 600
  profiles: [TopologyAndDuplicates]
"""


def test_a_v1alpha2_policy_runs_at_time_0_and_names_the_plugin():
    out = simulate(load(CLUSTER, V2_DUPLICATES), explain="none", until=30)
    assert events(out, "Descheduled", "DeschedulerRun") == [
        ("Descheduled", "Pod/default/web-b", "pod eviction from node1 node by sigs.k8s.io/descheduler (RemoveDuplicates)"),
        ("DeschedulerRun", "DeschedulerPolicy/dupes", "1 pods evicted"),
    ]
    pods = {p["pod"]: (p["node"], p["phase"]) for p in out["pods"]}
    [replacement] = [k for k in pods if k not in ("default/web-a", "default/web-b")]
    assert pods[replacement] == ("node2", "Running")


def test_an_invalid_v1alpha2_policy_is_refused_with_the_descheduler_s_message():
    bad = V2_DUPLICATES.replace("- name: RemoveDuplicates", "- name: RemoveDuplicates\n    args: {namespaces: {include: [a], exclude: [b]}}")
    with pytest.raises(SimulationError) as exc:
        simulate(load(CLUSTER, bad))
    assert str(exc.value) == "in profile balance: only one of Include/Exclude namespaces can be set"


def test_predictive_mode_evicts_nothing_and_says_where_the_pod_would_land():
    out = simulate(load(CLUSTER, KUBE_DESCHEDULER.replace("{mode}", "Predictive")), explain="none", until=1300)
    runs = events(out, "Descheduled", "DeschedulerRun")
    assert runs == [("DeschedulerRun", "KubeDescheduler/openshift-kube-descheduler-operator/cluster", "would evict 1 pods")] * 3
    assert [e["time"] for e in out["events"] if e["reason"] == "DeschedulerRun"] == [0.0, 600.0, 1200.0]
    assert {p["pod"]: p["phase"] for p in out["pods"]} == {"default/web-a": "Running", "default/web-b": "Running"}
    [entry] = out["descheduler"]["evictions"]
    assert (entry["pod"], entry["strategy"], entry["wouldLandOn"]) == ("default/web-b", "RemoveDuplicates", "node2")
    assert out["descheduler"]["mode"] == "Predictive"


def test_automatic_mode_evicts_and_the_configmap_holds_the_rendered_policy():
    out = simulate(load(CLUSTER, KUBE_DESCHEDULER.replace("{mode}", "Automatic")), explain="none", until=30, objects=True)
    assert events(out, "Descheduled") == [
        ("Descheduled", "Pod/default/web-b", "pod eviction from node1 node by sigs.k8s.io/descheduler (RemoveDuplicates)")]
    [cm] = [o for o in out["objects"] if o["kind"] == "ConfigMap"]
    assert (cm["metadata"]["namespace"], cm["metadata"]["name"]) == ("openshift-kube-descheduler-operator", "cluster")
    policy = yaml.safe_load(cm["data"]["policy.yaml"])
    assert policy["kind"] == "DeschedulerPolicy" and policy["apiVersion"] == "descheduler/v1alpha2"
    assert [p["name"] for p in policy["profiles"]] == ["TopologyAndDuplicates"]
    assert policy["profiles"][0]["plugins"]["balance"]["enabled"] == ["RemovePodsViolatingTopologySpreadConstraint", "RemoveDuplicates"]


def test_a_profile_the_operator_refuses_is_a_failed_run():
    out = simulate(load(CLUSTER, KUBE_DESCHEDULER.replace("{mode}", "Automatic").replace("TopologyAndDuplicates", "CompactAndScale")),
                   explain="none")
    assert events(out, "FailedDeschedulerRun") == [(
        "FailedDeschedulerRun", "KubeDescheduler/openshift-kube-descheduler-operator/cluster",
        "enabling Descheduler CompactAndScale with Scheduler LowNodeUtilization may cause an eviction/scheduling hot loop")]


def test_the_landings_ask_a_framework_scheduler_through_its_own_queue():
    """A cluster running the OpenShift 4 scheduler: the dry run places the evicted pods with
    the framework's run_queue (a profile without plugins here: every node fits, the first
    one scored wins), not with the 3.11 queue."""
    from scheduling.engine.api.objects import DEFAULT_SCHEDULER
    from scheduling.engine.controllers.descheduler import Flags, preview
    from scheduling.engine.framework.runtime import Profile
    from scheduling.engine.store import Store

    docs = [d for d in load(CLUSTER) if d["kind"] != "ReplicaSet"]
    profile = Profile(DEFAULT_SCHEDULER, {}, {})
    result = preview(Store(docs), 0.0, load(V2_DUPLICATES)[0], Flags(), schedulers=[(DEFAULT_SCHEDULER, profile)])
    [landing] = result.landings
    assert landing.eviction.key == "default/web-b"
    assert landing.node in ("node1", "node2") and landing.message is None


def test_without_an_interval_the_operator_runs_no_descheduler():
    doc = KUBE_DESCHEDULER.replace("{mode}", "Automatic").replace("  deschedulingIntervalSeconds: 600\n", "")
    out = simulate(load(CLUSTER, doc), explain="none", until=5000)
    assert events(out, "Descheduled", "DeschedulerRun", "FailedDeschedulerRun") == [(
        "FailedDeschedulerRun", "KubeDescheduler/openshift-kube-descheduler-operator/cluster",
        "descheduler should have an interval set and it should be greater than 0")]


def test_the_operator_applies_its_configmap_where_the_store_keeps_configmaps():
    """ApplyConfigMap: created once, left alone while the rendering is the same, replaced when
    it changes (a store whose kinds table has ConfigMap)."""
    from types import SimpleNamespace

    from scheduling.engine import actions as A
    from scheduling.engine.controllers import descheduler
    from scheduling.engine.controllers.descheduler_v1alpha2 import operator
    kd = yaml.safe_load(KUBE_DESCHEDULER.replace("{mode}", "Automatic"))
    cm = operator.config_map(kd, operator.render_policy(kd))
    docs: dict = {}  # a store that keeps ConfigMaps by namespace (as the kinds table does once it has the kind)
    store = SimpleNamespace(get=lambda kind, ns, name: docs.get((kind, ns, name)))
    ctx = SimpleNamespace(store=store, now=5.0)
    [create] = descheduler.Descheduler._apply_config_map(ctx, cm)
    assert isinstance(create, A.CreateObject) and create.doc["metadata"]["creationTimestamp"] == 5
    docs[("ConfigMap", "openshift-kube-descheduler-operator", "cluster")] = create.doc
    assert descheduler.Descheduler._apply_config_map(ctx, cm) == []
    other = operator.config_map(kd, operator.render_policy({**kd, "spec": {**kd["spec"], "profiles": ["AffinityAndTaints"]}}))
    [replace] = descheduler.Descheduler._apply_config_map(ctx, other)
    assert isinstance(replace, A.ReplaceObject) and replace.doc["data"] == other["data"]
    assert replace.doc["metadata"]["creationTimestamp"] == 5
