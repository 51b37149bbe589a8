"""`python manage.py oc` (its command-line contract in docs/commands.md): golden outputs with a pinned
--now on stored clusters and on snapshot files, writes through the services, --as, and a
drain that plays the stored cluster's clock until its PodDisruptionBudget allows."""

from __future__ import annotations

import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scheduling.store import reconcile, services, state
from scheduling.management.commands.oc import Command
from scheduling.models import KIND_MODELS, Cluster, Deployment, Node, Pod

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1, creationTimestamp: 0, labels: {node-role.kubernetes.io/worker: ""}}
status:
  conditions: [{type: Ready, status: "True", lastHeartbeatTime: 0, lastTransitionTime: 0, reason: KubeletReady, message: kubelet is posting ready status}]
  nodeInfo: {kubeletVersion: v1.31.4}
---
apiVersion: v1
kind: Node
metadata: {name: node2, creationTimestamp: 0}
status:
  conditions: [{type: Ready, status: "True", lastHeartbeatTime: 0, lastTransitionTime: 0, reason: KubeletReady, message: kubelet is posting ready status}]
  nodeInfo: {kubeletVersion: v1.31.4}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, creationTimestamp: 300, labels: {app: web}}
spec: {nodeName: node1, containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
status: {phase: Running}
"""


def oc(*argv: str, stdin: str = "") -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = Command().main(list(argv), io.StringIO(stdin), out, err)
    return out.getvalue(), err.getvalue(), code


@pytest.fixture
def cluster(db):
    return services.import_new_cluster("demo", CLUSTER, "cluster.yaml")


@pytest.mark.parametrize(
    "argv, stdout",
    [
        pytest.param(["get", "nodes"], "NAME    STATUS   ROLES    AGE   VERSION\nnode1   Ready    worker   10m   v1.31.4\n"
                     "node2   Ready    <none>   10m   v1.31.4\n", id="get nodes"),
        pytest.param(["get", "no", "-o", "name"], "node/node1\nnode/node2\n", id="short name and -o name"),
        pytest.param(["get", "pods", "-o", "wide"],
                     "NAME   READY   STATUS    RESTARTS   AGE   IP       NODE    NOMINATED NODE   READINESS GATES\n"
                     "web    1/1     Running   0          5m    <none>   node1   <none>           <none>\n", id="get pods -o wide"),
        pytest.param(["get", "pods", "-A", "--show-labels"],
                     "NAMESPACE   NAME   READY   STATUS    RESTARTS   AGE   LABELS\n"
                     "default     web    1/1     Running   0          5m    app=web\n", id="-A and --show-labels"),
        pytest.param(["get", "pods", "--field-selector", "spec.nodeName=node1", "-o", "jsonpath={.items[*].metadata.name}"],
                     "web", id="--field-selector and jsonpath"),
        pytest.param(["get", "pod", "web", "-o", "jsonpath={.metadata.creationTimestamp}"], "2026-01-01T00:05:00Z",
                     id="stored simulated seconds are printed as timestamps from the epoch"),
    ],
)
def test_get_on_a_stored_cluster(cluster, argv, stdout):
    assert oc("--cluster", "demo", "--now", "2026-01-01T00:10:00Z", *argv) == (stdout, "", 0)


def test_get_prints_no_resources_found_on_stderr(cluster):
    assert oc("--cluster", "demo", "get", "pods", "-n", "kube-system") == ("", "No resources found in kube-system namespace.\n", 0)


def test_a_taint_is_written_through_the_services(cluster):
    revision = Cluster.objects.get(name="demo").revision
    assert oc("--cluster", "demo", "adm", "taint", "nodes", "node1", "k=v:NoExecute") == ("node/node1 tainted\n", "", 0)
    node = Node.objects.get(cluster=cluster, name="node1")
    assert node.spec["taints"] == [{"key": "k", "value": "v", "effect": "NoExecute"}]
    assert node.resource_version > revision


def test_a_server_dry_run_changes_nothing(cluster):
    assert oc("--cluster", "demo", "adm", "cordon", "node1", "--dry-run=server") == ("node/node1 cordoned (server dry run)\n", "", 0)
    assert not Node.objects.get(cluster=cluster, name="node1").spec.get("unschedulable")


def test_a_user_who_may_only_read_gets_forbidden_for_writes(cluster, viewer):
    assert oc("--cluster", "demo", "--as", viewer.username, "adm", "cordon", "node1") == (
        "", 'Error from server (Forbidden): nodes "node1" is forbidden: User "viewer" cannot patch resource "nodes" in API '
            'group "" at the cluster scope\n', 1)
    assert oc("--cluster", "demo", "--as", viewer.username, "get", "nodes", "-o", "name") == ("node/node1\nnode/node2\n", "", 0)
    assert not Node.objects.get(cluster=cluster, name="node1").spec.get("unschedulable")


def test_an_editor_may_write(cluster, editor):
    assert oc("--cluster", "demo", "--as", editor.username, "label", "node", "node2", "disk=ssd") == ("node/node2 labeled\n", "", 0)
    assert Node.objects.get(cluster=cluster, name="node2").metadata["labels"]["disk"] == "ssd"


def test_describe_pod_shows_the_events(cluster):
    services.record_event(cluster, reason="Scheduled", message="Successfully assigned default/web to node1", kind="Pod",
                          name="web", namespace="default", source="default-scheduler", time=300)
    stdout, stderr, code = oc("--cluster", "demo", "--now", "2026-01-01T00:10:00Z", "describe", "pod", "web")
    assert code == 0 and stdout.startswith("Name:             web\nNamespace:        default\n")
    assert stdout.endswith(
        "Events:\n"
        "  Type    Reason     Age   From               Message\n"
        "  ----    ------     ----  ----               -------\n"
        "  Normal  Scheduled  5m    default-scheduler  Successfully assigned default/web to node1\n")


def test_describe_node_reads_the_node_its_pods_and_its_events_not_the_cluster(cluster):
    """kubectl describe node asks for the node, the pods bound to it and the node's events; so
    does the command on a stored cluster, even in a process that has not read the cluster."""
    services.record_event(cluster, reason="NodeReady", message="Node node1 status is now: NodeReady", kind="Node",
                          name="node1", source="kubelet, node1", time=300)
    services.record_event(cluster, reason="Scheduled", message="Successfully assigned default/web to node1", kind="Pod",
                          name="web", namespace="default", source="default-scheduler", time=300)
    reconcile.reconcile(cluster.pk)  # (nothing left for the command's own reconcile to do)
    state.forget(cluster)  # as a fresh `manage.py oc` process finds it
    with CaptureQueriesContext(connection) as queries:
        stdout, stderr, code = oc("--cluster", "demo", "--now", "2026-01-01T00:10:00Z", "describe", "node", "node1")
    assert (code, stderr) == (0, "")
    assert "Non-terminated Pods:          (1 in total)\n" in stdout
    assert re.search(r"\n  default +web +100m \(", stdout)
    assert stdout.endswith("  Normal  NodeReady  5m    kubelet, node1  Node node1 status is now: NodeReady\n")
    read = {table for q in queries.captured_queries for table in re.findall(r'FROM "(\w+)"', q["sql"])}
    other_kinds = {m._meta.db_table for kind, m in KIND_MODELS.items() if kind not in ("Node", "Pod")}
    assert read & other_kinds == set()


DRAIN = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {pool: a}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node2}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {nodeSelector: {pool: a}, containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
"""


def test_a_drain_plays_the_stored_clusters_clock_until_the_pdb_lets_every_pod_go(db):
    from scheduling.store import reconcile

    cluster = services.import_new_cluster("drain", DRAIN, "drain.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    from scheduling.store import clock

    clock.step(cluster, 60)
    reconcile.reconcile(cluster.pk, force=True)
    pods = sorted(Pod.objects.filter(cluster=cluster).values_list("name", flat=True))
    assert len(pods) == 2 and set(Pod.objects.filter(cluster=cluster).values_list("node_name", flat=True)) == {"node1"}
    # the replacements can only go to node1 (nodeSelector): after the first eviction the
    # budget stays exhausted, so the second pod waits until the drain's --timeout.
    stdout, stderr, code = oc("--cluster", "drain", "adm", "drain", "node1", "--timeout=30s")
    a, b = pods
    assert stdout.startswith(f"node/node1 cordoned\nevicting pod default/{a}\nevicting pod default/{b}\n")
    assert stderr.startswith(f'error when evicting pods/"{b}" -n "default" (will retry after 5s): '
                             "Cannot evict pod as it would violate the pod's disruption budget.\n")
    assert code == 1 and stderr.endswith("There are pending nodes to be drained:\n node1\n"
                                         f'error: error when evicting pods/"{b}" -n "default": global timeout reached: 30s\n')
    assert Cluster.objects.get(pk=cluster.pk).now == 90  # 60 + the 30 s the drain waited (retries at 65 ... 90)


def test_a_drain_completes_once_the_replacements_run_elsewhere(db):
    from scheduling.store import clock, reconcile

    cluster = services.import_new_cluster("drain", DRAIN.replace("nodeSelector: {pool: a}, ", ""),
                                          "drain.yaml")
    assert oc("--cluster", "drain", "adm", "cordon", "node2") == ("node/node2 cordoned\n", "", 0)
    reconcile.reconcile(cluster.pk, force=True)
    clock.step(cluster, 60)
    reconcile.reconcile(cluster.pk, force=True)
    assert oc("--cluster", "drain", "adm", "uncordon", "node2") == ("node/node2 uncordoned\n", "", 0)
    a, b = sorted(Pod.objects.filter(cluster=cluster, node_name="node1").values_list("name", flat=True))
    stdout, stderr, code = oc("--cluster", "drain", "adm", "drain", "node1", "--timeout=5m")
    blocked = (f'error when evicting pods/"{b}" -n "default" (will retry after 5s): '
               "Cannot evict pod as it would violate the pod's disruption budget.\n")
    # a goes at once; b waits until a's replacement runs on node2, then goes too
    assert code == 0 and stderr == blocked * (stdout.count(f"evicting pod default/{b}") - 1)
    assert stdout.startswith(f"node/node1 cordoned\nevicting pod default/{a}\nevicting pod default/{b}\n")
    assert stdout.endswith(f"pod/{b} evicted\nnode/node1 drained\n") and f"pod/{a} evicted\n" in stdout
    assert not Pod.objects.filter(cluster=cluster, node_name="node1").exists()


# --- snapshots ----------------------------------------------------------------------------------------------------

SNAPSHOT = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: ip-10-0-1-1.ec2.internal
    creationTimestamp: "2026-03-01T10:00:00Z"
    labels: {node-role.kubernetes.io/worker: ""}
    managedFields: [{manager: kubelet, operation: Update}]
  spec: {unschedulable: true}
  status:
    conditions: [{type: Ready, status: "True"}]
    nodeInfo: {kubeletVersion: v1.31.4}
- apiVersion: route.openshift.io/v1
  kind: Route
  metadata: {name: console, namespace: openshift-console}
"""


def test_a_snapshot_is_read_exactly_as_given(tmp_path):
    path = tmp_path / "nodes.yaml"
    path.write_text(SNAPSHOT)
    assert oc("-f", str(path), "--now", "2026-03-01T12:30:00Z", "get", "nodes") == (
        "NAME                       STATUS                     ROLES    AGE    VERSION\n"
        "ip-10-0-1-1.ec2.internal   Ready,SchedulingDisabled   worker   150m   v1.31.4\n", "", 0)


def test_mutating_a_snapshot_prints_what_oc_prints_and_changes_nothing(tmp_path):
    path = tmp_path / "nodes.yaml"
    path.write_text(SNAPSHOT)
    assert oc("-f", str(path), "adm", "uncordon", "ip-10-0-1-1.ec2.internal") == ("node/ip-10-0-1-1.ec2.internal uncordoned\n", "", 0)
    assert path.read_text() == SNAPSHOT


def test_stdin_is_a_snapshot_too():
    assert oc("-f", "-", "get", "nodes", "-o", "name", stdin=SNAPSHOT) == ("node/ip-10-0-1-1.ec2.internal\n", "", 0)


def test_one_of_cluster_or_files_is_required():
    stdout, stderr, code = oc("get", "nodes")
    assert (stdout, code) == ("", 2) and stderr.startswith("error: give either --cluster NAME or -f FILE ...\n")


@pytest.mark.parametrize(
    "argv, stderr",
    [
        pytest.param(["label", "pod", "web", "-n", "default", "tier=front"],
                     'Error from server (Forbidden): pods "web" is forbidden: User "viewer" cannot patch resource "pods" in API '
                     'group "" in the namespace "default"\n', id="a namespaced object"),
        pytest.param(["-n", "shop", "label", "pod", "web", "tier=front"],
                     'Error from server (Forbidden): pods "web" is forbidden: User "viewer" cannot patch resource "pods" in API '
                     'group "" in the namespace "shop"\n', id="the namespace given before the command"),
        pytest.param(["scale", "deployment/web", "--replicas=3"],
                     'Error from server (Forbidden): deployments.apps "web" is forbidden: User "viewer" cannot patch resource '
                     '"deployments" in API group "apps" in the namespace "default"\n', id="a TYPE/NAME argument"),
        pytest.param(["delete", "node", "node2"],
                     'Error from server (Forbidden): nodes "node2" is forbidden: User "viewer" cannot delete resource "nodes" in '
                     'API group "" at the cluster scope\n', id="delete"),
    ],
)
def test_forbidden_names_the_verb_resource_and_scope(cluster, viewer, argv, stderr):
    assert oc("--cluster", "demo", "--as", "viewer", *argv) == ("", stderr, 1)


def test_objects_are_stamped_with_the_clusters_clock_when_created(db):
    from scheduling.store import clock

    cluster = services.create_cluster("stamped")
    clock.step(cluster, 120)
    cluster.refresh_from_db()
    services.import_documents(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: late}\n", "node.yaml")
    assert Node.objects.get(cluster=cluster, name="late").metadata["creationTimestamp"] == 120
    assert oc("--cluster", "stamped", "--now", "2026-01-01T00:10:00Z", "get", "nodes") == (
        "NAME   STATUS    ROLES    AGE   VERSION\nlate   Unknown   <none>   8m    \n", "", 0)


BLACKLISTED = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeSelector: {region: east}, containers: [{name: c, image: nginx}]}\n"


def test_create_refused_by_node_selection_admission_prints_the_api_servers_forbidden(cluster, tmp_path):
    services.set_admission_config(cluster, [
        {"apiVersion": "v1", "kind": "PodNodeConstraintsConfig", "nodeSelectorLabelBlacklist": ["region"]},
        {"apiVersion": "v1", "kind": "PodNodeSelectorConfig", "podNodeSelectorPluginConfig": {"clusterDefaultNodeSelector": "env=prod"}},
    ], False)
    reason = 'pods "p" is forbidden: node selection by label(s) [region] is prohibited by policy for your role'
    assert oc("--cluster", "demo", "create", "-f", "-", stdin=BLACKLISTED) == (
        "", f'Error from server (Forbidden): error when creating "STDIN": {reason}\n', 1)
    path = tmp_path / "pod.yaml"
    path.write_text(BLACKLISTED.replace("region: east", "env: test"))
    assert oc("--cluster", "demo", "apply", "-f", str(path)) == (
        "", f'Error from server (Forbidden): error when creating "{path}": pods "p" is forbidden: '
            "pod node label selector conflicts with its namespace node label selector\n", 1)
    assert not Pod.objects.filter(cluster=cluster, name="p").exists()
    assert oc("--cluster", "demo", "create", "-f", "-", stdin=BLACKLISTED.replace("region: east", "env: prod")) == (
        "pod/p created\n", "", 0)
    assert Pod.objects.get(cluster=cluster, name="p").spec["nodeSelector"] == {"env": "prod"}


def test_create_of_an_existing_object_from_stdin_names_stdin(cluster):
    web = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: nginx}]}\n"
    assert oc("--cluster", "demo", "create", "-f", "-", stdin=web) == (
        "", 'Error from server (AlreadyExists): error when creating "STDIN": pods "web" already exists\n', 1)


def test_oc_without_a_command_prints_ocs_help(cluster):
    out, err, code = oc("--cluster", "demo")
    assert (err, code) == ("", 0)
    assert out.startswith("OpenShift Client\n\n") and "\nApplication Management Commands:\n  create " in out
    out, err, code = oc("--cluster", "demo", "adm")
    assert (out, code) == ("", 1)
    assert err.startswith("Administrative Commands\n") and "\nAvailable Commands:\n  cordon " in err


NOT_SEMVER = """\
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.14, clusterID: 00000000-0000-4000-8000-000000000000, desiredUpdate: {version: 4.14.2}}
status:
  desired: {version: v4.14.1}
  history: [{state: Completed, version: v4.14.1, startedTime: 0}, {state: Completed, version: "4.14", startedTime: 0}]
  conditions: [{type: Progressing, status: "False", message: Cluster version is v4.14.1}]
"""


def test_a_clusterversion_whose_versions_are_not_semver_prints_as_oc_prints_it(tmp_path):
    """oc parses versions with blang/semver: a version it cannot parse is named with Parse's
    own message (exit 1), and the commands that only show it show it as it is."""
    path = tmp_path / "cv.yaml"
    path.write_text(NOT_SEMVER)
    assert oc("-f", str(path), "adm", "upgrade", "rollback") == (
        "", 'error: invalid ClusterVersion status.desired.version: Invalid character(s) found in major number "v4"\n', 1)
    stdout, stderr, code = oc("-f", str(path), "adm", "upgrade")
    assert code == 0 and stdout.startswith("Cluster version is v4.14.1\n\n") and "Traceback" not in stderr
    stdout, stderr, code = oc("-f", str(path), "get", "clusterversion")
    assert code == 0 and stdout.splitlines()[1].split()[:2] == ["version", "v4.14.1"]


def test_apply_of_a_custom_resource_past_its_crd_schema_is_refused_as_oc_prints_it(cluster, tmp_path):
    """The API server's message names MachineSet.machine.openshift.io; oc's checkErr prints the
    status details' kind: `The MachineSet "ms" is invalid: ...`, and nothing is written."""
    from scheduling.models import MachineSet

    path = tmp_path / "ms.yaml"
    path.write_text("apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\n"
                    "metadata: {name: ms, namespace: openshift-machine-api}\nspec: {replicas: many}\n")
    for verb in ("apply", "create"):
        assert oc("--cluster", "demo", verb, "-f", str(path)) == (
            "", 'The MachineSet "ms" is invalid: spec.replicas: Invalid value: "string": '
                'spec.replicas in body must be of type integer: "string"\n', 1)
    assert not MachineSet.objects.exists()


def test_rollout_status_follows_a_rollout_on_the_clusters_clock_until_its_timeout(cluster, viewer):
    """A deployment whose pods no node can take never rolls out: `oc rollout status` follows it
    as the clock runs and gives up at --timeout with kubectl's message; --watch=false looks once."""
    assert oc("--cluster", "demo", "create", "deployment", "big", "--image=busybox", "--replicas=1")[2] == 0
    assert Deployment.objects.filter(cluster=cluster, name="big").exists()
    out, err, code = oc("--cluster", "demo", "apply", "-f", "-", stdin=(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: default}\n"
        "spec: {replicas: 1, selector: {matchLabels: {app: big}}, template: {metadata: {labels: {app: big}}, spec: "
        "{containers: [{name: busybox, image: busybox, resources: {requests: {cpu: '64'}}}]}}}\n"))
    assert (err, code) == ("", 0)
    before = Cluster.objects.get(pk=cluster.pk).now
    out, err, code = oc("--cluster", "demo", "rollout", "status", "deployment/big", "--timeout=20s")
    assert out.startswith('Waiting for deployment "big" rollout to finish: ')
    assert (err, code) == ("error: timed out waiting for the condition\n", 1)
    assert Cluster.objects.get(pk=cluster.pk).now >= before + 20
    out, err, code = oc("--cluster", "demo", "rollout", "status", "deployment/big", "--watch=false")
    assert (out.startswith('Waiting for deployment "big"'), err, code) == (True, "", 0)
    # following moves the clock: a user who may only read sees the status once
    out, err, code = oc("--cluster", "demo", "--as", viewer.username, "rollout", "status", "deployment/big")
    assert code == 1 and "--watch=false" in err


def test_get_watch_on_the_command_line_follows_the_clock_without_moving_it(cluster):
    """`manage.py oc --cluster NAME get pods -w` prints the table, then each change once the
    cluster's clock (moved by the beat, here by the test) passes the next look; kubectl's
    watch ends on Ctrl-C, here when `stop` says so."""
    from scheduling.store import clock, oc_cli
    printed = []
    emit = lambda stream, text: printed.append((stream, text))  # noqa: E731
    result = oc_cli.run_on_cluster(cluster, ["oc", "get", "pods", "-w"], emit, wait=False)
    assert result.pending is not None and printed[0][1].startswith("NAME   READY")
    looks = []

    def stop() -> bool:
        looks.append(1)
        if len(looks) == 2:
            oc_cli.run_on_cluster(cluster, ["oc", "delete", "pod", "web", "--grace-period=0", "--force"], lambda *a: None)
            clock.step(cluster, 5)
        return len(looks) > 3

    now = Cluster.objects.get(pk=cluster.pk).now
    oc_cli.follow_get(cluster, result, emit, poll=0, stop=stop)
    assert printed[-1][1].startswith("web    1/1     Running")  # its last row: it went
    assert Cluster.objects.get(pk=cluster.pk).now == now + 5  # only the test moved it
