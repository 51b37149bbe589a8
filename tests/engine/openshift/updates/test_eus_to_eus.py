"""EUS to EUS as OpenShift documents it, on the shipped clusters: pause every pool but master,
update the control plane through the odd release, then to the next EUS release, unpause; the
worker pools roll once. `oc adm upgrade`, `oc adm upgrade status`, `oc get mcp|co|nodes` tell
the same story at each step; the admin gates and the kubelet version skew say what waits on
what."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scheduling.engine import oc, scenarios
from scheduling.engine.simulate import simulate
from scheduling.store.kube import load_documents

from .driver import Driver

DEMO = Path(__file__).resolve().parents[4] / "scheduling" / "demo" / "openshift4-cluster.yaml"
MCO_NS = "openshift-machine-config-operator"


def run(d, command: str) -> str:
    result = oc.run(d.store, command, d.now)
    assert result.exit_code == 0, result.stderr
    d.apply(result.actions)
    return result.stdout


def table(text: str) -> dict[str, dict[str, str]]:
    lines = text.splitlines()
    heads = re.split(r"\s{2,}", lines[0].strip())
    return {row[0]: dict(zip(heads, row)) for row in (re.split(r"\s{2,}", line.strip()) for line in lines[1:])}


def reboots(d) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in d.events:
        if e.reason == "Reboot":
            out[e.name] = out.get(e.name, 0) + 1
    return out


@pytest.fixture(scope="module")
def demo():
    docs = load_documents(DEMO.read_text(), DEMO.name)
    d = Driver(docs)  # the demo brings its own (empty) admin-acks ConfigMap
    d.run_until(0)
    return d


def test_the_demo_is_an_openshift_4_cluster_at_4_18_on_eus(demo):
    nodes = table(run(demo, "oc get nodes"))
    assert len(nodes) == 12 and {n["VERSION"] for n in nodes.values()} == {"v1.31.15+7de76a5"}
    roles = sorted(n["ROLES"] for n in nodes.values())
    assert roles.count("control-plane,master") == 3 and roles.count("infra,worker") == 3 and roles.count("worker") == 6
    zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in demo.store.list("Node")}
    assert zones == {"us-east-1a", "us-east-1b", "us-east-1c"}
    infra = [n for n in demo.store.list("Node") if "node-role.kubernetes.io/infra" in n["metadata"]["labels"]]
    assert all({"key": "node-role.kubernetes.io/infra", "effect": "NoSchedule"} in n["spec"]["taints"] for n in infra)
    pools = table(run(demo, "oc get mcp"))
    assert {p: (r["MACHINECOUNT"], r["UPDATED"]) for p, r in pools.items()} == {
        "infra": ("3", "True"), "master": ("3", "True"), "worker": ("6", "True")}
    assert all(mc["metadata"]["annotations"]["machineconfiguration.openshift.io/release-image-version"] == "4.18.44"
               for mc in demo.store.list("MachineConfig") if mc["metadata"]["name"].startswith(("00-", "rendered-")))
    cos = table(run(demo, "oc get co"))
    assert len(cos) == 34 and {r["VERSION"] for r in cos.values()} == {"4.18.44"} and "olm" in cos
    assert run(demo, "oc adm upgrade").startswith("Cluster version is 4.18.44\n\nUpgradeable=False\n\n  Reason: AdminAckRequired\n")
    # the infra workloads run on the tainted infra nodes
    infra_names = {n["metadata"]["name"] for n in infra}
    for pod in demo.store.list("Pod"):
        if pod["metadata"]["namespace"] in ("openshift-ingress", "openshift-monitoring", "openshift-image-registry"):
            assert pod["spec"]["nodeName"] in infra_names


def test_eus_4_18_to_4_20_waits_on_each_admin_gate_and_then_on_the_kubelets(demo):
    d = demo
    run(d, "oc adm upgrade channel eus-4.20")
    run(d, "oc patch mcp/worker --type merge -p '{\"spec\":{\"paused\":true}}'")
    run(d, "oc patch mcp/infra --type merge -p '{\"spec\":{\"paused\":true}}'")
    d.run_until(d.now + 30)
    # the 4.18 gate blocks the minor update: the CVO refuses it until the ack
    run(d, "oc adm upgrade --to 4.19.41")
    d.run_until(d.now + 120)
    blocked = [e.message for e in d.events if e.reason == "PreconditionBlock"]
    assert blocked and "Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs" in blocked[-1]
    run(d, "oc -n openshift-config patch cm admin-acks --type=merge "
           "-p '{\"data\":{\"ack-4.18-kube-1.32-api-removals-in-4.19\":\"true\"}}'")
    d.run_until(d.now + 3 * 3600)
    assert run(d, "oc get clusterversion").splitlines()[1].split()[1] == "4.19.41"
    nodes = table(run(d, "oc get nodes"))
    assert {n: r["VERSION"][:6] for n, r in nodes.items() if "master" not in r["ROLES"]} == {
        n: "v1.31." for n, r in nodes.items() if "master" not in r["ROLES"]}
    assert {r["VERSION"][:6] for r in nodes.values() if "master" in r["ROLES"]} == {"v1.32."}
    status = run(d, "oc adm upgrade status")
    assert "worker        Excluded     0% (0/6)" in status and "infra         Excluded     0% (0/3)" in status
    assert "Outdated nodes in a paused pool 'worker' will not be updated" in status
    # at 4.19 the 4.19 gate waits; the 4.18 kubelets are behind but still supported after 4.20
    upgrade = run(d, "oc adm upgrade")
    assert "Reason: AdminAckRequired\n  Message: The admissionregistration.k8s.io/v1beta1 group version is deprecated in 4.19" in upgrade
    kas = table(run(d, "oc get co kube-apiserver"))["kube-apiserver"]
    assert kas["VERSION"] == "4.19.41"
    run(d, "oc -n openshift-config patch cm admin-acks --type=merge "
           "-p '{\"data\":{\"ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20\":\"true\"}}'")
    d.run_until(d.now + 30)
    run(d, "oc adm upgrade --to 4.20.33")
    d.run_until(d.now + 3 * 3600)
    # at 4.20 the workers' 1.31 kubelets would be unsupported after another minor update
    upgrade = run(d, "oc adm upgrade")
    assert upgrade.startswith("Cluster version is 4.20.33\n\nUpgradeable=False\n\n"
                              "  Reason: KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade\n"
                              "  Message: Cluster operator kube-apiserver should not be upgraded between minor versions: "
                              "KubeletMinorVersionUpgradeable: Kubelet minor versions on 9 nodes will not be supported in the next "
                              "OpenShift minor version upgrade.\n")
    assert table(run(d, "oc get mcp"))["worker"]["UPDATED"] == "False"
    before = reboots(d)
    run(d, "oc patch mcp/worker --type merge -p '{\"spec\":{\"paused\":false}}'")
    run(d, "oc patch mcp/infra --type merge -p '{\"spec\":{\"paused\":false}}'")
    d.run_until(d.now + 4 * 3600)
    after = reboots(d)
    workers = [n["metadata"]["name"] for n in d.store.list("Node") if "node-role.kubernetes.io/master" not in n["metadata"]["labels"]]
    masters = [n["metadata"]["name"] for n in d.store.list("Node") if "node-role.kubernetes.io/master" in n["metadata"]["labels"]]
    assert {w: after.get(w, 0) for w in workers} == {w: 1 for w in workers}  # one reboot, 4.18 -> 4.20
    assert {m: after.get(m, 0) for m in masters} == {m: 2 for m in masters} and before.keys() == set(masters)
    assert {r["VERSION"][:6] for r in table(run(d, "oc get nodes")).values()} == {"v1.33."}
    assert {p: r["UPDATED"] for p, r in table(run(d, "oc get mcp")).items()} == {"infra": "True", "master": "True", "worker": "True"}
    assert "Upgradeable=False" not in run(d, "oc adm upgrade")


def test_the_eus_scenario_rolls_each_worker_once_from_4_16_to_4_18():
    scenario = scenarios.BY_NAME["eus-to-eus-update"]
    docs = load_documents(Path(scenarios.path(scenario)).read_text(), scenario.file)
    assert sum(d["kind"] == "Node" for d in docs) == 9
    result = simulate(docs, until=scenario.until, objects=True, explain="none")
    out = {e["time"]: e["message"] for e in result["events"] if e["object"].startswith("Command/")}
    # at 4.17 no admin gate (4.16 and 4.17 ship none) and the 4.16 kubelets stay supported after 4.18
    assert out[7200].startswith("Cluster version is 4.17.56\n\nUpstream is unset")
    assert "4.18.52" in out[7200]
    assert out[14400].startswith("Cluster version is 4.18.52\n\nUpgradeable=False\n\n  Reason: MultipleReasons\n")
    assert "Kubelet minor versions on 6 nodes will not be supported in the next OpenShift minor version upgrade." in out[14400]
    [cv] = [o for o in result["objects"] if o["kind"] == "ClusterVersion"]
    assert [(h["state"], h["version"]) for h in cv["status"]["history"]] == [
        ("Completed", "4.18.52"), ("Completed", "4.17.56"), ("Completed", "4.16.60")]
    count: dict[str, int] = {}
    for e in result["events"]:
        if e["reason"] == "Reboot":
            count[e["object"].rsplit("/", 1)[1]] = count.get(e["object"].rsplit("/", 1)[1], 0) + 1
    nodes = [o for o in result["objects"] if o["kind"] == "Node"]
    for n in nodes:
        master = "node-role.kubernetes.io/master" in n["metadata"]["labels"]
        assert count[n["metadata"]["name"]] == (2 if master else 1)
        assert n["status"]["nodeInfo"]["kubeletVersion"].startswith("v1.31.")
