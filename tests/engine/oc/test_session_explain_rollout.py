"""`oc whoami`, `oc version`, `oc config`, `oc logs`, `oc adm top`, `oc explain` and `oc rollout`:
the texts of openshift/oc (pkg/cli/whoami, pkg/cli/version) and kubectl (pkg/cmd/explain with
the plaintext template of pkg/explain/v2, pkg/cmd/rollout with pkg/polymorphichelpers,
pkg/cmd/top), against the upstream OpenAPI descriptions the explain data holds."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.controllers.deployment import REVISION_ANNOTATION
from scheduling.engine.oc import explain, rollout
from scheduling.engine.oc.session import KUSTOMIZE_VERSION, SESSION
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}


def deployment(replicas=3, status=None, paused=False, template=TEMPLATE):
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template}
    if paused:
        spec["paused"] = True
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "uid": "d1"},
            "spec": spec, "status": status or {}}


def replica_set(name, revision, image, cause=None):
    annotations = {REVISION_ANNOTATION: str(revision)}
    if cause:
        annotations["kubernetes.io/change-cause"] = cause
    template = {"metadata": {"labels": {"app": "web", "pod-template-hash": name[-4:]}},
                "spec": {"containers": [{"name": "c", "image": image}]}}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "annotations": annotations,
                         "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": "d1", "controller": True}]},
            "spec": {"replicas": 0, "template": template}}


def run(store, command, files=None, now=600):
    result = oc.run(store, command, now, files=files)
    return result.stdout, result.stderr, result.exit_code


# --- whoami, version, config ------------------------------------------------------------------------------------


def test_whoami_is_the_command_lines_administrator_or_the_session_user():
    assert run(Store([]), "oc whoami") == ("system:admin\n", "", 0)
    assert run(Store([]), "oc whoami", {SESSION: [{"user": "alice", "cluster": "demo"}]}) == ("alice\n", "", 0)
    assert run(Store([]), "oc whoami --show-server", {SESSION: [{"user": "alice", "cluster": "demo"}]}) == (
        "https://api.demo.example.com:6443\n", "", 0)
    assert run(Store([]), "oc whoami", {SESSION: [{"user": "system:anonymous"}]}) == (
        "", 'Error from server (Forbidden): users.user.openshift.io "~" is forbidden: User "system:anonymous" cannot get '
            'resource "users" in API group "user.openshift.io" at the cluster scope\n', 1)


def _release_cluster():
    master = node_doc("master-0", labels={"node-role.kubernetes.io/master": ""})
    master["status"]["nodeInfo"] = {"kubeletVersion": "v1.29.6+aba1e8d"}
    worker = node_doc("worker-0")
    worker["status"]["nodeInfo"] = {"kubeletVersion": "v1.28.9+416ecaf"}
    cv = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
          "status": {"desired": {"version": "4.16.4"},
                     "history": [{"state": "Partial", "version": "4.16.4"}, {"state": "Completed", "version": "4.16.3"}]}}
    return Store([master, worker, cv])


def test_version_prints_ocs_four_lines():
    # openshift/oc pkg/cli/version: Client Version, Kustomize Version, Server Version (the
    # release), Kubernetes Version (the API server's gitVersion)
    assert run(_release_cluster(), "oc version") == (
        f"Client Version: 4.16.3\nKustomize Version: {KUSTOMIZE_VERSION}\nServer Version: 4.16.3\n"
        "Kubernetes Version: v1.29.6+aba1e8d\n", "", 0)
    assert run(_release_cluster(), "oc version --client") == (
        f"Client Version: 4.16.3\nKustomize Version: {KUSTOMIZE_VERSION}\n", "", 0)
    assert run(_release_cluster(), "oc version -o xml")[1:] == ("error: --output must be 'yaml' or 'json'\n", 1)


def test_version_without_a_release_has_no_server_version_line():
    stdout, _, code = run(Store([node_doc("n1")]), "oc version")
    assert code == 0 and "Server Version" not in stdout and stdout.startswith("Client Version: ")


def test_config_view_and_current_context():
    stdout, _, code = run(Store([]), "oc config view", {SESSION: [{"cluster": "demo"}]})
    assert code == 0 and "current-context: admin\n" in stdout and "server: https://api.demo.example.com:6443\n" in stdout
    assert "certificate-authority-data: DATA+OMITTED" in stdout
    assert run(Store([]), "oc config current-context") == ("admin\n", "", 0)


# --- logs, top --------------------------------------------------------------------------------------------------


def _pods():
    waiting = pod_doc("starting", node="n1")
    waiting["status"]["containerStatuses"] = [{"name": waiting["spec"]["containers"][0]["name"],
                                               "state": {"waiting": {"reason": "ContainerCreating"}}}]
    two = pod_doc("two", node="n1", phase="Running")
    two["spec"]["containers"] = [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}]
    return Store([node_doc("n1"), pod_doc("pending"), waiting, two, pod_doc("running", node="n1", phase="Running")])


@pytest.mark.parametrize("command, stdout, stderr, code", [
    ("oc logs nope", "", 'error: error from server (NotFound): pods "nope" not found in namespace "default"\n', 1),
    ("oc logs pending", "", "", 0),  # no node: LogLocation has nowhere to ask, an empty stream
    ("oc logs two -c z", "", "Error from server (BadRequest): container z is not valid for pod two\n", 1),
    ("oc logs", "", "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
                    "POD or TYPE/NAME is a required argument for the logs command\nSee 'oc logs -h' for help and examples\n", 1),
])
def test_logs_answers_as_the_api_server(command, stdout, stderr, code):
    assert run(_pods(), command) == (stdout, stderr, code)


def test_logs_of_a_waiting_container_and_of_a_simulated_one():
    store = _pods()
    name = store.get("Pod", "default", "starting")["spec"]["containers"][0]["name"]
    assert run(store, "oc logs starting") == (
        "", f'Error from server (BadRequest): container "{name}" in pod "starting" is waiting to start: ContainerCreating\n', 1)
    stdout, stderr, code = run(store, "oc logs two")
    assert (stdout, code) == ("", 0)
    assert stderr.startswith('Defaulted container "a" out of: a, b\n') and "wrote no log lines" in stderr


@pytest.mark.parametrize("command", ["oc adm top nodes", "oc adm top node n1", "oc adm top pods -A", "oc adm top pod x"])
def test_top_without_a_metrics_server(command):
    assert run(_pods(), command) == ("", "error: Metrics API not available\n", 1)


# --- explain ----------------------------------------------------------------------------------------------------


def test_explain_a_kind():
    stdout, stderr, code = run(Store([]), "oc explain pods")
    assert (stderr, code) == ("", 0)
    lines = stdout.split("\n")
    assert lines[:4] == ["KIND:       Pod", "VERSION:    v1", "", "DESCRIPTION:"]
    # the upstream description (k8s.io/api core/v1 Pod), wrapped at 76 and indented 4
    assert lines[4:6] == ["    Pod is a collection of containers that can run on a host. This resource is",
                          "    created by clients and scheduled onto hosts."]
    assert "FIELDS:" in lines and "  apiVersion\t<string>" in lines and "  spec\t<PodSpec>" in lines


def test_explain_a_field_of_an_apps_kind_names_its_group():
    stdout, _, code = run(Store([]), "oc explain deployment.spec.strategy")
    assert code == 0
    assert stdout.startswith("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: strategy <DeploymentStrategy>\n")
    assert "  rollingUpdate\t<RollingUpdateDeployment>\n" in stdout


@pytest.mark.parametrize("path, field_line, a_field", [
    ("pod.spec.tolerations", "FIELD: tolerations <[]Toleration>", "  tolerationSeconds\t<integer>"),
    ("po.spec.affinity", "FIELD: affinity <Affinity>", "  nodeAffinity\t<NodeAffinity>"),
    ("pods.spec.topologySpreadConstraints", "FIELD: topologySpreadConstraints <[]TopologySpreadConstraint>",
     "  maxSkew\t<integer> -required-"),
    ("node.spec.taints", "FIELD: taints <[]Taint>", "  key\t<string> -required-"),
    ("deploy.spec", "FIELD: spec <DeploymentSpec>", "  template\t<PodTemplateSpec> -required-"),
    ("pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
     "FIELD: requiredDuringSchedulingIgnoredDuringExecution <NodeSelector>", "  nodeSelectorTerms\t<[]NodeSelectorTerm> -required-"),
])
def test_explain_fields(path, field_line, a_field):
    stdout, stderr, code = run(Store([]), f"oc explain {path}")
    assert (stderr, code) == ("", 0)
    assert field_line + "\n\n\nDESCRIPTION:\n" in stdout  # plaintext.tmpl: the FIELD line, its enum line, a blank line
    assert "\n" + a_field + "\n" in stdout


def test_explain_a_field_through_a_list_and_a_scalar():
    stdout, _, _ = run(Store([]), "oc explain pod.spec.containers.name")
    assert "FIELD: name <string>\n" in stdout and "FIELDS:" not in stdout


def test_explain_priority_class_at_its_served_version():
    stdout, _, code = run(Store([]), "oc explain priorityclass.value")
    assert code == 0 and stdout.startswith("GROUP:      scheduling.k8s.io\nKIND:       PriorityClass\nVERSION:    v1\n\n"
                                           "FIELD: value <integer>\n")


@pytest.mark.parametrize("command, stderr", [
    ("oc explain pdb", "error: GVR (policy/v1, Resource=poddisruptionbudgets) not found in OpenAPI schema\n"),
    ("oc explain pod.spec.nope", 'error: field "nope" does not exist\n'),
    # the template names the LAST element of the path, whichever one is missing
    ("oc explain pod.nope.deeper", 'error: field "deeper" does not exist\n'),
    ("oc explain widgets", 'error: the server doesn\'t have a resource type "widgets"\n'),
    ("oc explain", 'error: You must specify the type of resource to explain. Use "oc api-resources" for a complete list of '
                   "supported resources.\n"),
    ("oc explain pod node", "error: We accept only this format: explain RESOURCE\n"),
])
def test_explain_errors(command, stderr):
    assert run(Store([]), command) == ("", stderr, 1)


@pytest.mark.parametrize("text, limit, wrapped", [
    # github.com/mitchellh/go-wordwrap wordwrap_test.go
    ("", 0, ""),
    ("foo", 0, "foo"),
    ("foobarbaz", 3, "foobarbaz"),
    ("foo bar baz", 3, "foo\nbar\nbaz"),
    ("foo bar baz", 4, "foo\nbar\nbaz"),
    ("foo bar baz", 7, "foo bar\nbaz"),
    ("foo bar    baz", 7, "foo bar\nbaz"),
    ("foo bar\nbaz", 7, "foo bar\nbaz"),
    ("foo bar baz\n", 7, "foo bar\nbaz\n"),
    ("foo bar       ", 7, "foo bar"),
])
def test_wrap_is_go_wordwrap(text, limit, wrapped):
    assert explain.wrap(text, limit) == wrapped


# --- rollout ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status, replicas, message", [
    # polymorphichelpers/rollout_status_test.go TestDeploymentStatusViewerStatus
    ({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 0, "availableReplicas": 1}, 1,
     'Waiting for deployment "web" rollout to finish: 0 out of 1 new replicas have been updated...\n'),
    ({"observedGeneration": 1, "replicas": 2, "updatedReplicas": 1, "availableReplicas": 2}, 1,
     'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...\n'),
    ({"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 1}, 2,
     'Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are available...\n'),
    ({"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 2}, 2,
     'deployment "web" successfully rolled out\n'),
])
def test_rollout_status_messages(status, replicas, message):
    d = deployment(replicas, status)
    d["metadata"]["generation"] = 1
    stdout, stderr, code = run(Store([d]), "oc rollout status deployment/web --watch=false")
    assert (stdout, stderr, code) == (message, "", 0)


def test_rollout_status_waits_for_the_spec_update_and_the_progress_deadline():
    d = deployment(1, {"observedGeneration": 1})
    d["metadata"]["generation"] = 2
    assert run(Store([d]), "oc rollout status deploy/web -w=false")[0] == "Waiting for deployment spec update to be observed...\n"
    d = deployment(1, {"conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]})
    assert run(Store([d]), "oc rollout status deploy web") == ("", 'error: deployment "web" exceeded its progress deadline\n', 1)


def test_rollout_status_follows_a_rollout_until_done():
    d = deployment(2, {"replicas": 2, "updatedReplicas": 1, "availableReplicas": 2})
    store = Store([d])
    result = oc.run(store, "oc rollout status deploy/web --timeout=20s", 100)
    assert result.pending is not None and result.pending["next_due"] == 105
    again = rollout.resume_status(store, result.pending, 105)
    assert (again.stdout, again.pending is not None) == ("", True)  # the same status is not printed twice
    store.get("Deployment", "default", "web")["status"].update(updatedReplicas=2, availableReplicas=2)
    done = rollout.resume_status(store, again.pending, 110)
    assert (done.stdout, done.pending) == ('deployment "web" successfully rolled out\n', None)
    late = rollout.resume_status(Store([deployment(2, {"updatedReplicas": 1})]), result.pending, 120)
    assert (late.stderr, late.exit_code) == ("error: timed out waiting for the condition\n", 1)


def _history():
    return Store([deployment(template=replica_set("web-aaaa", 2, "nginx:2")["spec"]["template"]),
                  replica_set("web-bbbb", 1, "nginx:1", cause="kubectl set image deployment/web c=nginx:1"),
                  replica_set("web-aaaa", 2, "nginx:2")])


def test_rollout_history():
    assert run(_history(), "oc rollout history deployment/web") == (
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         kubectl set image deployment/web c=nginx:1\n2         <none>\n\n",
        "", 0)
    assert run(_history(), "oc rollout history deploy/web --revision=7")[1:] == ("error: unable to find the specified revision\n", 1)
    assert run(Store([deployment()]), "oc rollout history deploy/web") == ("deployment.apps/web \nNo rollout history found.\n", "", 0)


def test_rollout_undo_restores_the_previous_template():
    result = oc.run(_history(), "oc rollout undo deployment/web", 600)
    assert (result.stdout, result.exit_code) == ("deployment.apps/web rolled back\n", 0)
    (action,) = result.actions
    assert action.doc["spec"]["template"] == {"metadata": {"labels": {"app": "web"}},
                                              "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}
    assert run(_history(), "oc rollout undo deployment/web --to-revision=2") == (
        "deployment.apps/web skipped rollback (current template already matches revision 2)\n", "", 0)
    assert run(_history(), "oc rollout undo deployment/web --to-revision=5")[1:] == (
        "error: unable to find specified revision 5 in history\n", 1)
    assert run(Store([deployment()]), "oc rollout undo deploy/web")[1:] == (
        'error: no rollout history found for deployment "web"\n', 1)


def test_rollout_restart_pause_resume():
    result = oc.run(Store([deployment()]), "oc rollout restart deploy/web", 600)
    assert result.stdout == "deployment.apps/web restarted\n"
    assert result.actions[0].doc["spec"]["template"]["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:10:00Z"}
    paused = Store([deployment(paused=True)])
    assert run(paused, "oc rollout restart deploy/web")[1:] == (
        'error: deployments.apps "web" can\'t restart paused deployment (run rollout resume first)\n', 1)
    assert run(paused, "oc rollout pause deploy/web")[1:] == ('error: deployments.apps "web" is already paused\n', 1)
    assert run(Store([deployment()]), "oc rollout resume deploy/web")[1:] == ('error: deployments.apps "web" is not paused\n', 1)
    result = oc.run(Store([deployment()]), "oc rollout pause deploy/web --dry-run=server", 600)
    assert (result.stdout, result.actions, result.would[0].doc["spec"]["paused"]) == (
        "deployment.apps/web paused (server dry run)\n", [], True)
    resumed = oc.run(paused, "oc rollout resume deploy/web", 600)
    assert resumed.stdout == "deployment.apps/web resumed\n" and "paused" not in resumed.actions[0].doc["spec"]
    assert run(paused, "oc rollout undo deploy/web")[1:] == ("error: no rollout history found for deployment \"web\"\n", 1)


# --- oc create namespace|deployment|priorityclass ---------------------------------------------------------------


def test_create_namespace_deployment_priorityclass():
    store = Store([])
    result = oc.run(store, "oc create namespace team-a", 600)
    assert (result.stdout, result.exit_code) == ("namespace/team-a created\n", 0)
    assert result.actions[0].doc["metadata"]["name"] == "team-a"
    result = oc.run(store, "oc create deployment web --image=quay.io/org/nginx:1.25 --replicas=3 -n shop", 600)
    assert result.stdout == "deployment.apps/web created\n"
    doc = result.actions[0].doc
    assert (doc["metadata"]["namespace"], doc["spec"]["replicas"], doc["spec"]["selector"]) == (
        "shop", 3, {"matchLabels": {"app": "web"}})
    assert [(c["name"], c["image"]) for c in doc["spec"]["template"]["spec"]["containers"]] == [("nginx", "quay.io/org/nginx:1.25")]
    result = oc.run(store, "oc create priorityclass high --value=1000 --description=important --dry-run=server", 600)
    assert (result.stdout, result.actions, result.would[0].doc["value"]) == (
        "priorityclass.scheduling.k8s.io/high created (server dry run)\n", [], 1000)
    assert run(store, "oc create deployment web") == ("", 'error: required flag(s) "image" not set\n', 1)
    taken = Store([{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1}])
    assert run(taken, "oc create pc high --value=5") == (
        "", 'Error from server (AlreadyExists): priorityclasses.scheduling.k8s.io "high" already exists\n', 1)
    assert run(Store([]), "oc create ns default", {SESSION: [{"cluster": "demo"}]}) == (
        "", 'Error from server (AlreadyExists): namespaces "default" already exists\n', 1)
