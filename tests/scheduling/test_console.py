"""The oc console over HTTP (scheduling/console/views.py): output exactly as `manage.py oc`
prints it, reads for everyone, writes only for editors (checked on the server), the
what-if preview before a change, CSRF, and a drain followed as the clock runs. The answers
are the console's htmx partials; `answer()` reads what the page shows from them."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from scheduling.store import clock, reconcile, services
from scheduling.models import Cluster, Node, Pod
from tests.scheduling.test_oc_command import CLUSTER, DRAIN


@pytest.fixture
def cluster(db):
    return services.import_new_cluster("demo", CLUSTER, "cluster.yaml")


class _Answer(HTMLParser):
    """What an answer of the console shows: the output spans appended to #oc-output
    (stream, text), the command echoed, the exit code, the out-of-band preview (its HTML and
    the command its Apply form posts back) and the drain follower's token."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.result = {"lines": [], "echo": None, "exit_code": None}
        self.stack: list[tuple[str, dict]] = []
        self.preview_depth = None
        self.preview_parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.preview_depth is not None:
            self.preview_parts.append(self.get_starttag_text())
        self.stack.append((tag, attrs))
        if attrs.get("id") == "oc-preview":
            self.preview_depth = len(self.stack)
            self.result["preview"] = ""
        if "data-exit-code" in attrs:
            self.result["exit_code"] = int(attrs["data-exit-code"])
        if attrs.get("id") == "oc-drain":
            self.result["done"] = True
        if tag == "input" and attrs.get("name") == "drain":
            self.result["drain"], self.result["done"] = attrs["value"], False
        if tag == "input" and attrs.get("name") == "command" and self.preview_depth is not None:
            self.result["confirm"] = attrs["value"]
        if tag == "input":
            self.stack.pop()

    def handle_endtag(self, tag):
        if self.preview_depth is not None and len(self.stack) == self.preview_depth:
            self.preview_depth = None
            self.result["preview"] = "".join(self.preview_parts)
        elif self.preview_depth is not None:
            self.preview_parts.append(f"</{tag}>")
        self.stack.pop()

    def handle_data(self, data):
        if self.preview_depth is not None:
            self.preview_parts.append(data)
        if not self.stack:
            return
        cls = self.stack[-1][1].get("class", "")
        if cls in ("oc-stdout", "oc-stderr"):
            self.result["lines"].append([cls[3:], data])
        elif cls == "oc-command":
            self.result["echo"] = data


def answer(response) -> dict:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    parser = _Answer()
    parser.feed(response.content.decode())
    result = parser.result
    if not result.get("preview"):
        result.pop("preview", None)
    return result


def run(client, cluster, command: str, **extra):
    """The answer of a command, with the echo of the command checked and left out."""
    response = client.post(reverse("console-run", args=[cluster.pk]), {"command": command, **extra}, HTTP_HX_REQUEST="true")
    result = answer(response)
    assert result.pop("echo") == f"$ {command}\n"
    return result


def test_the_console_is_on_every_cluster_page(client, cluster):
    html = client.get(reverse("cluster-detail", args=[cluster.pk])).content.decode()
    assert 'id="oc-console"' in html and reverse("console-run", args=[cluster.pk]) in html
    html = client.get(reverse("node-detail", args=[cluster.pk, "node1"])).content.decode()
    assert 'id="oc-console"' in html
    assert 'id="oc-console"' not in client.get(reverse("cluster-list")).content.decode()


def test_anyone_may_read(client, cluster):
    result = run(client, cluster, "oc get nodes -o name")
    assert result == {"lines": [["stdout", "node/node1\nnode/node2\n"]], "exit_code": 0}


def test_the_oc_word_may_be_left_out(client, cluster):
    assert run(client, cluster, "get no node1 -o name")["lines"] == [["stdout", "node/node1\n"]]


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_writes_are_refused_on_the_server_without_edit_rights(client, viewer, cluster, who):
    if who == "viewer":
        client.force_login(viewer)
    name = "viewer" if who == "viewer" else "system:anonymous"
    for command in ("oc adm taint nodes node1 k=v:NoExecute", "oc adm taint nodes node1 k=v:NoExecute --dry-run=server"):
        result = run(client, cluster, command, confirm="1")
        assert result == {"lines": [["stderr", f'Error from server (Forbidden): nodes "node1" is forbidden: User "{name}" '
                                               'cannot patch resource "nodes" in API group "" at the cluster scope\n']],
                          "exit_code": 1}
    assert "taints" not in Node.objects.get(cluster=cluster, name="node1").spec


def test_a_write_is_previewed_first_then_applied(editor_client, cluster):
    result = run(editor_client, cluster, "oc adm taint nodes node1 k=v:NoExecute")
    assert result["lines"] == [["stdout", "node/node1 tainted (server dry run)\n"]]
    assert result["confirm"] == "oc adm taint nodes node1 k=v:NoExecute"  # what Apply posts back
    assert 'data-evicted="default/web"' in result["preview"]  # web does not tolerate the taint
    assert "taints" not in Node.objects.get(cluster=cluster, name="node1").spec
    result = run(editor_client, cluster, result["confirm"], confirm="1")
    assert result == {"lines": [["stdout", "node/node1 tainted\n"]], "exit_code": 0}  # the preview emptied
    assert Node.objects.get(cluster=cluster, name="node1").spec["taints"] == [{"key": "k", "value": "v", "effect": "NoExecute"}]


@pytest.mark.parametrize("command, message", [
    ("oc create -f -", "error: no objects passed to create\n"),
    ("oc apply -f -", "error: no objects passed to apply\n"),
    ("oc replace -f -", "error: no objects passed to replace\n"),
    ("oc create -f pod.yaml", 'error: the path "pod.yaml" does not exist\n'),
])
def test_create_apply_replace_without_objects_answer_ocs_error(editor_client, cluster, command, message):
    """The console has no files and no stdin: oc's own error, never a server error."""
    for extra in ({}, {"confirm": "1"}):
        result = run(editor_client, cluster, command, **extra)
        assert (result["lines"], result["exit_code"]) == ([["stderr", message]], 1)


def test_the_console_needs_the_csrf_token(editor, cluster):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(reverse("console-run", args=[cluster.pk]), {"command": "oc get nodes"}).status_code == 403


def test_command_output_is_escaped(editor_client, cluster):
    result = editor_client.post(reverse("console-run", args=[cluster.pk]),
                                {"command": "oc get nodes <b>x</b>"}, HTTP_HX_REQUEST="true")
    html = result.content.decode()
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "nodes &quot;&lt;b&gt;x&lt;/b&gt;&quot; not found" in html


def test_completion_lists_commands_kinds_and_names(client, cluster):
    data = client.get(reverse("console-complete", args=[cluster.pk])).json()
    assert {"get", "describe", "adm", "label"} <= set(data["commands"]) and "drain" in data["adm"]
    assert data["names"]["no"] == ["node1", "node2"] and data["names"]["pods"] == ["web"]


def test_completion_knows_subcommands_flags_and_the_system_namespaces(client, cluster):
    data = client.get(reverse("console-complete", args=[cluster.pk])).json()
    assert {"explain", "rollout", "whoami", "version", "logs", "config"} <= set(data["commands"])
    assert data["sub"]["rollout"] == ["history", "pause", "restart", "resume", "status", "undo"]
    assert data["sub"]["config"] == ["current-context", "view"] and "top" in data["sub"]["adm"]
    assert {"--sort-by", "--show-labels", "-L", "--no-headers", "--show-kind", "-o", "-A", "--field-selector"} <= set(
        data["flags"]["get"])
    assert {"--watch", "--timeout", "--revision"} <= set(data["flags"]["rollout status"])
    assert "--to-revision" in data["flags"]["rollout undo"] and "--recursive" in data["flags"]["explain"]
    assert "jsonpath=" in data["values"]["--output"] and "custom-columns=" in data["values"]["--output"]
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= set(data["names"]["ns"])


def test_new_commands_answer_in_the_console(client, cluster):
    assert run(client, cluster, "oc whoami") == {"lines": [["stderr", 'Error from server (Forbidden): users.user.openshift.io "~" is '
                                                 'forbidden: User "system:anonymous" cannot get resource "users" in API group '
                                                 '"user.openshift.io" at the cluster scope\n']], "exit_code": 1}
    result = run(client, cluster, "oc get ns -o jsonpath={.items[*].metadata.name}")
    assert result["lines"][0][1].split() == ["default", "kube-node-lease", "kube-public", "kube-system"]
    assert run(client, cluster, "oc adm top nodes") == {"lines": [["stderr", "error: Metrics API not available\n"]], "exit_code": 1}
    explained = run(client, cluster, "oc explain pod.spec.tolerations")
    assert explained["exit_code"] == 0 and explained["lines"][0][1].startswith("KIND:       Pod\nVERSION:    v1\n")


def test_a_drain_is_followed_as_the_clock_runs(editor_client, db):
    cluster = services.import_new_cluster("drain", DRAIN.replace("nodeSelector: {pool: a}, ", ""), "drain.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    clock.step(cluster, 60)
    reconcile.reconcile(cluster.pk, force=True)
    first = run(editor_client, cluster, "oc adm drain node1", confirm="1")
    assert first["lines"][0] == ["stdout", "node/node1 cordoned\n"] and first["done"] is False
    url = reverse("console-drain", args=[cluster.pk])
    poll = answer(editor_client.post(url, {"drain": first["drain"]}, HTTP_HX_REQUEST="true"))
    assert (poll["lines"], poll["done"]) == ([], False)  # the clock has not moved
    lines = []
    for _ in range(40):
        clock.step(cluster, 5)
        reconcile.reconcile(cluster.pk, force=True)
        poll = answer(editor_client.post(url, {"drain": first["drain"]}, HTTP_HX_REQUEST="true"))
        lines += poll["lines"]
        if poll["done"]:
            break
    assert lines[-1] == ["stdout", "node/node1 drained\n"]
    assert not Pod.objects.filter(cluster=cluster, node_name="node1").exists()
    # the follower is gone: a poll of the finished drain stops htmx's polling
    assert editor_client.post(url, {"drain": first["drain"]}, HTTP_HX_REQUEST="true").status_code == 286


async def _socket_command_changes_nothing(user, reply_text: str, name: str):
    """The console writes only through its CSRF-checked POST (server-side permission
    checks); the page's socket relays pushed HTML and refuses anything sent to it."""
    import json

    from channels.db import database_sync_to_async
    from django.db import connections

    from tests.scheduling.test_channels import _communicator

    cluster = await database_sync_to_async(services.import_new_cluster)(name, CLUSTER, "cluster.yaml")
    comm = _communicator(cluster.pk, user=user)
    assert (await comm.connect())[0]
    await comm.send_to(text_data=json.dumps({"command": "oc adm cordon node1"}))
    assert json.loads(await comm.receive_from(timeout=5)) == {"error": reply_text}
    await comm.disconnect()
    node = await database_sync_to_async(Node.objects.get)(cluster=cluster, name="node1")
    assert not node.spec.get("unschedulable")
    await database_sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
async def test_a_viewers_console_command_over_the_websocket_is_refused(viewer):
    await _socket_command_changes_nothing(viewer, "read-only: you are not allowed to change this cluster", "socket-v")


@pytest.mark.django_db(transaction=True)
async def test_an_editors_console_command_over_the_websocket_changes_nothing(editor):
    await _socket_command_changes_nothing(editor, "changes are made through the page's forms, not the socket", "socket-e")


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default, creationTimestamp: 0}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: c, image: "shop:1", resources: {requests: {cpu: 100m}}}]}
"""


def test_a_rollout_restart_is_previewed_then_applied_and_the_controllers_roll_it_out(editor_client, db):
    cluster = services.import_new_cluster("roll", CLUSTER + "---" + DEPLOYMENT, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    result = run(editor_client, cluster, "oc rollout restart deployment/shop")
    assert result["lines"] == [["stdout", "deployment.apps/shop restarted (server dry run)\n"]]
    assert result["confirm"] == "oc rollout restart deployment/shop" and "preview" in result
    result = run(editor_client, cluster, result["confirm"], confirm="1")
    assert result == {"lines": [["stdout", "deployment.apps/shop restarted\n"]], "exit_code": 0}
    reconcile.reconcile(cluster.pk, force=True)  # what the worker does after a write
    history = run(editor_client, cluster, "oc rollout history deployment/shop")["lines"][0][1]
    assert history == "deployment.apps/shop \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    status = run(editor_client, cluster, "oc rollout status deployment/shop --watch=false")
    assert status["lines"][0][1].startswith(('deployment "shop" successfully rolled out', 'Waiting for deployment "shop"'))


def test_get_watch_follows_the_changes_as_the_clock_runs(client, editor_client, cluster):
    """`oc get pods -w`: the table, then a row for each change once the clock has moved;
    anyone may follow (it reads), and nothing moves the clock but the clock itself."""
    clock.step(cluster, 600)
    first = run(client, cluster, "oc get pods -w")
    assert first["lines"] == [["stdout", "NAME   READY   STATUS    RESTARTS   AGE\nweb    1/1     Running   0          5m\n"]]
    assert Cluster.objects.get(pk=cluster.pk).now == 600
    assert first["done"] is False
    url = reverse("console-drain", args=[cluster.pk])
    assert answer(client.post(url, {"drain": first["drain"]}, HTTP_HX_REQUEST="true"))["lines"] == []
    assert run(editor_client, cluster, "oc delete pod web --grace-period=0 --force", confirm="1")["exit_code"] == 0
    clock.step(cluster, 5)
    poll = answer(client.post(url, {"drain": first["drain"]}, HTTP_HX_REQUEST="true"))
    assert poll["lines"] == [["stdout", "web    1/1     Running   0          5m5s\n"]]  # its last row: it went
    assert poll["done"] is False
