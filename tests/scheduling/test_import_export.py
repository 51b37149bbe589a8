"""Kubernetes YAML in and out: atomic import, defaults, export -> import round trip."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scheduling.store import kube, services
from scheduling.models import Cluster, Node, Pod

DEMO = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "demo-cluster.yaml"


@pytest.mark.django_db
def test_one_bad_document_and_nothing_is_written():
    text = """
apiVersion: v1
kind: Node
metadata: {name: good-node}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
spec:
  taints: [{key: k, value: v, effect: NoExcute}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: i}]}
"""
    cluster = services.create_cluster("atomic")
    with pytest.raises(kube.DocumentError) as err:
        services.import_documents(cluster, text, "nodes.yaml")
    assert str(err.value) == (
        'nodes.yaml (document 2): Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "NoExcute": '
        'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
    )
    assert Node.objects.count() == 0 and Pod.objects.count() == 0
    cluster.refresh_from_db()
    assert cluster.revision == 0


def test_every_bad_document_is_reported_with_its_field_path():
    text = """
kind: Node
apiVersion: v1
metadata: {name: Bad_Name}
---
kind: Pod
apiVersion: v1
metadata: {name: p, labels: {ready: true}}
spec: {containers: [{name: c, image: i}]}
---
kind: Gizmo
apiVersion: v1
metadata: {name: g}
"""
    with pytest.raises(kube.DocumentError) as err:
        kube.load_documents(text, "in.yaml")
    problems = err.value.problems
    assert len(problems) == 3
    assert problems[0].startswith('in.yaml (document 1): Node "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"')
    assert problems[1] == (
        'in.yaml (document 2): Pod in version "v1" cannot be handled as a Pod: '
        "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"
    )
    assert problems[2].startswith('in.yaml (document 3): no matches for kind "Gizmo"')


def test_invalid_yaml_is_reported_with_its_line():
    with pytest.raises(kube.DocumentError, match=r"^in.yaml: error parsing YAML at line 4, column 1: did not find expected ',' or '\]'$"):
        kube.load_documents("kind: Node\nmetadata:\n  name: [unclosed\n", "in.yaml")


def test_a_list_is_unpacked_and_json_is_accepted():
    text = '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}]}'
    assert [d["metadata"]["name"] for d in kube.load_documents(text)] == ["a", "b"]


def test_the_api_servers_defaults_are_applied():
    pod, node = kube.load_documents("""
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx, resources: {limits: {cpu: 500m}}}]
---
kind: Node
apiVersion: v1
metadata: {name: n}
status: {capacity: {cpu: "2", pods: "10"}}
""")
    assert pod["metadata"]["namespace"] == "default"
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    assert pod["spec"]["terminationGracePeriodSeconds"] == 30
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m"}
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    assert pod["status"] == {"phase": "Pending", "qosClass": "Burstable"}
    assert node["status"]["allocatable"] == {"cpu": "2", "pods": "10"}


def test_timestamps_stay_strings():
    doc = kube.load_documents("kind: Node\napiVersion: v1\nmetadata: {name: n, creationTimestamp: 2018-10-01T12:00:00Z}\n")[0]
    assert doc["metadata"]["creationTimestamp"] == "2018-10-01T12:00:00Z"


@pytest.mark.django_db
def test_export_then_import_gives_the_same_objects(tmp_path, capsys):
    call_command("load_demo")
    out = tmp_path / "demo.yaml"
    call_command("export_cluster", "demo", "--output", str(out))
    call_command("import_cluster", "copy", str(out))
    assert services.export_documents(Cluster.objects.get(name="copy")) == services.export_documents(
        Cluster.objects.get(name="demo")
    )
    # and the exported text itself is stable
    again = tmp_path / "copy.yaml"
    call_command("export_cluster", "copy", "--output", str(again))
    assert again.read_text() == out.read_text()


@pytest.mark.django_db
def test_load_demo_is_idempotent(capsys):
    call_command("load_demo")
    demo = Cluster.objects.get(name="demo")
    revision = demo.revision
    call_command("load_demo")
    demo.refresh_from_db()
    assert demo.revision == revision
    assert Node.objects.filter(cluster=demo).count() == 9
    zones = {n.metadata["labels"]["zone"] for n in Node.objects.filter(cluster=demo)}
    assert len(zones) == 3
    assert "already exists" in capsys.readouterr().out


@pytest.mark.django_db
def test_import_cluster_exits_2_with_the_kubernetes_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations: [{key: k, operator: Exists, value: v}]\n")
    with pytest.raises(CommandError) as err:
        call_command("import_cluster", "x", str(bad))
    assert err.value.returncode == 2
    assert str(err.value).endswith(
        'bad.yaml: Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"k", '
        'Operator:"Exists", Value:"v", Effect:"", TolerationSeconds:(*int64)(nil)}: '
        "value must be empty when `operator` is 'Exists'"
    )
    assert not Cluster.objects.filter(name="x").exists()


MUST_GATHER = """
apiVersion: v1
kind: NodeList
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-0
    creationTimestamp: "2026-02-01T08:00:00Z"
    resourceVersion: "81234"
    managedFields: [{manager: kubelet, operation: Update, apiVersion: v1}]
  spec: {taints: [{key: node-role.kubernetes.io/infra, effect: NoSchedule}]}
---
apiVersion: v1
kind: List
items:
- apiVersion: route.openshift.io/v1
  kind: Route
  metadata: {name: console, namespace: openshift-console}
- apiVersion: v1
  kind: Event
  metadata: {name: worker-0.1, namespace: default}
"""


@pytest.mark.django_db
def test_a_must_gather_imports_with_unknown_kinds_skipped_and_noted():
    result = services.import_documents(services.create_cluster("gathered"), MUST_GATHER, "must-gather.yaml")
    assert (result.created, result.skipped) == (1, (
        'must-gather.yaml (document 2): skipped Route "openshift-console/console": kind "Route" (route.openshift.io/v1) '
        "is not simulated",
        'must-gather.yaml (document 3): skipped Event "default/worker-0.1": kind "Event" (v1) is not simulated',
    ))
    node = Node.objects.get(name="worker-0")
    assert "managedFields" not in node.metadata and node.spec["taints"][0]["key"] == "node-role.kubernetes.io/infra"


def test_a_strict_load_still_refuses_unknown_kinds():
    with pytest.raises(kube.DocumentError, match='no matches for kind "Route"'):
        kube.load_documents(MUST_GATHER, "must-gather.yaml")


@pytest.mark.parametrize("document, prefix", [
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}], priority: -1, "
                 "tolerations: [{key: k, operator: Exists, value: v}]}\n",
                 'in.yaml: Pod "p" is invalid: spec.tolerations[0].operator: ', id="a core kind: no group"),
    pytest.param("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
                 "spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c, image: i}]}}}\n",
                 'in.yaml: Deployment.apps "d" is invalid: spec.template.metadata.labels: ', id="an apps kind"),
    pytest.param("kind: StatefulSet\nmetadata: {name: s}\nspec: {replicas: -1, selector: {matchLabels: {app: a}}, "
                 "template: {metadata: {labels: {app: a}}}}\n",
                 'in.yaml: StatefulSet.apps "s" is invalid: spec.replicas: ', id="an apps kind without apiVersion"),
    pytest.param("apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata: {name: ms, namespace: openshift-machine-api}\n"
                 "spec: {replicas: many}\n",
                 'in.yaml: MachineSet.machine.openshift.io "ms" is invalid: spec.replicas: Invalid value: "string": '
                 'spec.replicas in body must be of type integer: "string"', id="an OpenShift custom resource"),
    pytest.param("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nspec: {channel: 4}\n",
                 'in.yaml: ClusterVersion.config.openshift.io "version" is invalid: spec.channel: ', id="a config.openshift.io kind"),
])
def test_a_refusal_names_the_object_by_kind_and_group_as_the_api_server_does(document, prefix):
    """errors.NewInvalid: `<qualifiedKind.String()> "<name>" is invalid: ...` (Kind.group, the group
    left out for the core API)."""
    with pytest.raises(kube.DocumentError) as err:
        kube.load_documents(document, "in.yaml")
    assert str(err.value).startswith(prefix), str(err.value)
