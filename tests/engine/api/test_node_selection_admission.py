"""PodNodeConstraints, the project node selector (OriginPodNodeEnvironment) and
PodNodeSelector (OpenShift 3.11's controlling pod placement): accept and refuse paths with the API server's texts."""

from __future__ import annotations

import pytest

from scheduling.engine.api.admission import PLUGIN_NAMES, admit
from scheduling.engine.api.node_selection_admission import (
    NodeSelectionConfig,
    NodeSelectionContext,
    UserInfo,
    inherited_node_selector,
)
from scheduling.engine.api.priority import AdmissionError


def pod(name="hello-pod", namespace="ns1", node_selector=None, node_name="", annotations=None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "busybox"}]}
    if node_selector is not None:
        spec["nodeSelector"] = dict(node_selector)
    if node_name:
        spec["nodeName"] = node_name
    meta: dict = {"name": name, "namespace": namespace}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def deployment(api_version="apps/v1", node_selector=None, name="web") -> dict:
    return {"apiVersion": api_version, "kind": "Deployment", "metadata": {"name": name, "namespace": "ns1"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox"}], "nodeSelector": dict(node_selector or {})}}}}


def namespace(name="ns1", **annotations) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "annotations": annotations}}


def context(config_docs=(), namespaces=(), user=UserInfo()) -> NodeSelectionContext:
    return NodeSelectionContext.build(NodeSelectionConfig.from_documents(config_docs), namespaces, user)


PNC = {"apiVersion": "v1", "kind": "PodNodeConstraintsConfig", "nodeSelectorLabelBlacklist": ["kubernetes.io/hostname", "region"]}
PNC_DEFAULTED = {"apiVersion": "v1", "kind": "PodNodeConstraintsConfig"}
# The documentation's PodNodeSelector configuration.
PNS = {"apiVersion": "v1", "kind": "PodNodeSelectorConfig",
       "podNodeSelectorPluginConfig": {"clusterDefaultNodeSelector": "k3=v3", "ns1": "region=west,env=test,infra=fedora,os=fedora"}}


def admitted_selector(doc, ctx) -> dict:
    return (admit(doc, (), None, ctx).get("spec") or {}).get("nodeSelector") or {}


def refusal(doc, ctx) -> str:
    with pytest.raises(AdmissionError) as exc:
        admit(doc, (), None, ctx)
    return str(exc.value)


def test_the_plugins_are_registered_in_the_api_servers_order():
    assert PLUGIN_NAMES[:3] == ("PodNodeConstraints", "OriginPodNodeEnvironment", "PodNodeSelector")


# --- PodNodeConstraints -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc, ctx, message", [
    pytest.param(pod(node_name="node1"), context([PNC]),
                 'pods "hello-pod" is forbidden: node selection by nodeName is prohibited by policy for your role',
                 id="a pod setting nodeName is refused to a user who may not bind"),
    pytest.param(pod(node_selector={"region": "us-east"}), context([PNC]),
                 'pods "hello-pod" is forbidden: node selection by label(s) [region] is prohibited by policy for your role',
                 id="a blacklisted nodeSelector label is refused (the documentation's region example)"),
    pytest.param(pod(node_selector={"region": "us-east", "kubernetes.io/hostname": "n1"}, node_name="n1"), context([PNC]),
                 'pods "hello-pod" is forbidden: node selection by nodeName and label(s) [region kubernetes.io/hostname] '
                 "is prohibited by policy for your role",
                 id="nodeName and blacklisted labels are refused together"),
    pytest.param(pod(node_selector={"kubernetes.io/hostname": "n1"}), context([PNC_DEFAULTED]),
                 'pods "hello-pod" is forbidden: node selection by label(s) [kubernetes.io/hostname] is prohibited by policy for your role',
                 id="the blacklist defaults to kubernetes.io/hostname"),
    pytest.param(deployment("extensions/v1beta1", {"region": "us-east"}), context([PNC]),
                 'deployments.extensions "web" is forbidden: node selection by label(s) [region] is prohibited by policy for your role',
                 id="a deployment's pod template is checked too"),
    pytest.param(pod(name="", node_name="n1"), context([PNC]),
                 'pods "Unknown" is forbidden: node selection by nodeName is prohibited by policy for your role',
                 id="an object without a name is Unknown (admission.NewForbidden)"),
    pytest.param({**pod(name="web-5d4f-x1y2z", node_selector={"region": "us-east"}),
                  "metadata": {"name": "web-5d4f-x1y2z", "generateName": "web-5d4f-", "namespace": "ns1"}}, context([PNC]),
                 'pods "web-5d4f-" is forbidden: node selection by label(s) [region] is prohibited by policy for your role',
                 id="a pod named by generateName is named by its generateName (its name is not generated yet)"),
    pytest.param({**deployment("apps/v1", {"region": "us-east"}), "kind": "StatefulSet"}, context([PNC]),
                 'statefulsets.apps "web" is forbidden: node selection by label(s) [region] is prohibited by policy for your role',
                 id="apps StatefulSets are checked"),
])
def test_pod_node_constraints_refuses(doc, ctx, message):
    assert refusal(doc, ctx) == message


@pytest.mark.parametrize("doc, ctx", [
    pytest.param(pod(node_name="node1"), context([PNC], user=UserInfo("admin", can_bind=True)),
                 id="a user who may create pods/binding may set nodeName"),
    pytest.param(pod(node_selector={"superregion": "us"}), context([PNC]), id="a label off the blacklist is allowed"),
    pytest.param(pod(node_name="node1"), context(), id="without its configuration the plugin is off"),
    pytest.param(pod(node_name="n1", annotations={"kubernetes.io/config.mirror": "x"}),
                 context([PNC], user=UserInfo("system:node:n1", ("system:nodes",))),
                 id="a node creating a mirror pod bound to itself passes"),
    pytest.param({**deployment(), "kind": "DaemonSet", "spec": {"template": {"spec": {"nodeName": "n1"}}}}, context([PNC]),
                 id="DaemonSets are not checked"),
    pytest.param(deployment("apps/v1", {"region": "us-east"}), context([PNC]),
                 id="apps/v1 Deployments are not checked (3.11 lists deployments under extensions only)"),
    pytest.param({**deployment("apps/v1", {"region": "us-east"}), "kind": "ReplicaSet"}, context([PNC]),
                 id="apps/v1 ReplicaSets are not checked either"),
])
def test_pod_node_constraints_accepts(doc, ctx):
    admit(doc, (), None, ctx)


def test_a_node_creating_a_mirror_pod_for_another_node_is_refused():
    ctx = context([PNC], user=UserInfo("system:node:n2", ("system:nodes",)))
    assert refusal(pod(node_name="n1", annotations={"kubernetes.io/config.mirror": "x"}), ctx) == (
        'pods "hello-pod" is forbidden: node selection by nodeName is prohibited by policy for your role')


# --- the project node selector (OriginPodNodeEnvironment) ---------------------------------------------------------------


MASTER = {"apiVersion": "v1", "kind": "MasterConfig", "projectConfig": {"defaultNodeSelector": "type=user-node"}}


@pytest.mark.parametrize("doc, ctx, expected", [
    pytest.param(pod(), context(namespaces=[namespace(**{"openshift.io/node-selector": "superregion=us"})]), {"superregion": "us"},
                 id="the project's node selector is merged into the pod"),
    pytest.param(pod(node_selector={"disk": "ssd"}), context(namespaces=[namespace(**{"openshift.io/node-selector": "superregion=us"})]),
                 {"superregion": "us", "disk": "ssd"}, id="the pod keeps its own labels"),
    pytest.param(pod(), context([MASTER]), {"type": "user-node"}, id="the master's defaultNodeSelector applies to projects without one"),
    pytest.param(pod(), context([MASTER], [namespace(**{"openshift.io/node-selector": ""})]), {},
                 id="an empty project node selector overrides the default"),
    pytest.param(pod(), context([MASTER], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test"})]), {},
                 id="a namespace with the PodNodeSelector annotation is left to PodNodeSelector"),
])
def test_the_project_node_selector_is_merged(doc, ctx, expected):
    assert admitted_selector(doc, ctx) == expected


def test_a_pod_conflicting_with_its_project_node_selector_is_refused():
    ctx = context(namespaces=[namespace(**{"openshift.io/node-selector": "region=west"})])
    assert refusal(pod(node_selector={"region": "east"}), ctx) == (
        'pods "hello-pod" is forbidden: pod node label selector conflicts with its project node label selector')


# --- PodNodeSelector --------------------------------------------------------------------------------------------------------


def test_pod_node_selector_merges_the_namespace_annotation_seed_example():
    # The documentation's PodNodeSelector example: ns1 annotated env=test,infra=fedora; the pod asks env=test,os=fedora.
    ctx = context([PNS], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test,infra=fedora"})])
    assert admitted_selector(pod(node_selector={"env": "test", "os": "fedora"}), ctx) == {"env": "test", "infra": "fedora", "os": "fedora"}


@pytest.mark.parametrize("doc, ctx, message", [
    pytest.param(pod(node_selector={"env": "production"}),
                 context([PNS], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test,infra=fedora"})]),
                 'pods "hello-pod" is forbidden: pod node label selector conflicts with its namespace node label selector',
                 id="a pod conflicting with its namespace's selector is refused"),
    pytest.param(pod(node_selector={"gpu": "true"}),
                 context([PNS], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test"})]),
                 'pods "hello-pod" is forbidden: pod node label selector labels conflict with its namespace whitelist',
                 id="a label outside the namespace whitelist is refused"),
])
def test_pod_node_selector_refuses(doc, ctx, message):
    assert refusal(doc, ctx) == message


@pytest.mark.parametrize("doc, ctx, expected", [
    pytest.param(pod(namespace="other"), context([PNS]), {"k3": "v3"}, id="the cluster default applies to namespaces without the annotation"),
    pytest.param(pod(namespace="other", node_selector={"gpu": "true"}), context([PNS]), {"k3": "v3", "gpu": "true"},
                 id="a namespace without a whitelist allows any label"),
    pytest.param(pod(node_selector={"env": "production"}), context(namespaces=[namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test"})]),
                 {"env": "production"}, id="without its configuration the plugin is off"),
])
def test_pod_node_selector_accepts(doc, ctx, expected):
    assert admitted_selector(doc, ctx) == expected


def test_a_bad_namespace_annotation_is_reported():
    ctx = context([PNS], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env"})])
    assert refusal(pod(), ctx) == "invalid selector: [env]"


def test_plugins_switched_off_do_not_run():
    ctx = context([PNC])
    admit(pod(node_name="n1"), (), {"PodNodeConstraints": False}, ctx)


# --- what a namespace's pods inherit (the namespace page) --------------------------------------------------------------------


@pytest.mark.parametrize("ctx, ns, expected", [
    pytest.param(context(namespaces=[namespace(**{"openshift.io/node-selector": "region=west"})]), "ns1",
                 ({"region": "west"}, "annotation openshift.io/node-selector"), id="from the project annotation"),
    pytest.param(context([MASTER]), "ns1", ({"type": "user-node"}, "projectConfig.defaultNodeSelector"), id="from the master default"),
    pytest.param(context([PNS], [namespace(**{"scheduler.alpha.kubernetes.io/node-selector": "env=test"})]), "ns1",
                 ({"env": "test"}, "annotation scheduler.alpha.kubernetes.io/node-selector"), id="from the PodNodeSelector annotation"),
    pytest.param(context(), "ns1", ({}, ""), id="nothing"),
])
def test_the_selector_a_namespaces_pods_inherit(ctx, ns, expected):
    assert inherited_node_selector(ctx, ns) == expected
