"""A kept corpus of hostile inputs (tests/fuzz/corpus/) through every door: `simulate`,
`import_cluster`, the web import, the node editor's YAML preview and the policy page's
validate action. Each is refused with a clear 4xx / exit 2 naming the field, in bounded
time, with a small answer, and nothing is written. The documents under corpus/accepted/
must be accepted and then work (see also test_accepted_documents_work.py)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils.html import escape

from scheduling.store import services
from scheduling.models import Cluster
from scheduling.store.reconcile import reconcile

CORPUS = Path(__file__).parent / "corpus"

# file -> what the refusal must say (the field, or the limit that was hit)
EXPECTED = {
    "alias_bomb.yaml": "yaml: document contains excessive aliasing",
    "alias_bomb_in_node.yaml": "yaml: document contains excessive aliasing",
    "recursive_alias.yaml": 'metadata.x: Invalid value: "*m": an alias may not refer to the node that contains it',
    "deep_nesting.yaml": "exceeded max depth of 100 nested mappings and sequences",
    "deep_nesting.json": "exceeded max depth of 100 nested mappings and sequences",
    "lone_surrogate.json": 'metadata.labels.x: Invalid value: "n\\ud800": must be valid UTF-8 (it holds an unpaired surrogate)',
    "binary_tag.yaml": 'metadata.annotations.blob: Invalid value: "!!binary": only JSON values are supported',
    "timestamp_tag.yaml": 'metadata.creationTimestamp: Invalid value: "!!timestamp": only JSON values are supported',
    "set_tag.yaml": 'metadata.labels: Invalid value: "!!set": only JSON values are supported',
    "python_tag.yaml": 'metadata.labels: Invalid value: "!!python/object/apply:os.system": only JSON values',
    "nul_in_annotation.yaml": 'metadata.annotations.note: Invalid value: "a\\x00b": must not contain NUL characters',
    "nan_allocatable.yaml": "status.allocatable.cpu: Invalid value: .nan: must be a finite number",
    "inf_capacity.json": "status.capacity.cpu: Invalid value: .inf: must be a finite number",
    "mixed_keys.yaml": 'metadata.labels: Duplicate value: "1": the key appears twice',
    "huge_integer.yaml": "line 5, column 6: Invalid value: ",
    "conditions_true.yaml": "json: cannot unmarshal bool into Go struct field NodeStatus.status.conditions of type []v1.NodeCondition",
    "conditions_float.yaml": "json: cannot unmarshal number into Go struct field NodeStatus.status.conditions of type []v1.NodeCondition",
    "condition_type_mapping.yaml": "json: cannot unmarshal object into Go struct field NodeCondition.status.conditions.type of type v1.NodeConditionType",
    "allocatable_1e1000.yaml": 'status.allocatable.cpu: Invalid value: "1e1000": must be no more than 9223372036854775807m',
    "pod_cpu_1e1000.yaml": 'spec.containers[0].resources.requests[cpu]: Invalid value: "1e1000": must be no more than 9223372036854775807m',
    "owner_references_5.yaml": "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference",
    "uppercase_annotation_prefix.yaml": 'metadata.annotations: Invalid value: "Example.COM/note": prefix part a DNS-1123 subdomain must consist of lower case',
    "html_name.yaml": 'metadata.name: Invalid value: "<script>alert(1)</script>": a DNS-1123 subdomain',
    # the OpenShift kinds (no rules of their own here) still get their ObjectMeta checked
    "machine_without_name.yaml": 'Machine.machine.openshift.io "" is invalid: metadata.name: Required value: name or generateName is required',
    "machineset_name_mapping.yaml": 'MachineSet in version "v1beta1" cannot be handled as a MachineSet: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.name of type string',
    "clusterversion_labels_string.yaml": "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    # the Machine API kinds are custom resources: their CRD's schema checks the fields the engine reads
    "machineset_match_labels_string.yaml": 'MachineSet.machine.openshift.io "ms" is invalid: spec.selector.matchLabels: Invalid value: "string": spec.selector.matchLabels in body must be of type object: "string"',
    "clusterversion_desired_update_number.yaml": 'ClusterVersion.config.openshift.io "version" is invalid: spec.desiredUpdate: Invalid value: "integer": spec.desiredUpdate in body must be of type object: "integer"',
    "machineconfigpool_selector_number.yaml": 'MachineConfigPool.machineconfiguration.openshift.io "worker" is invalid: spec.machineConfigSelector: Invalid value: "integer": spec.machineConfigSelector in body must be of type object: "integer"',
    "machine_hooks_number.yaml": 'Machine.machine.openshift.io "m" is invalid: spec.lifecycleHooks.preTerminate: Invalid value: "number": spec.lifecycleHooks.preTerminate in body must be of type array: "number"',
}
# Refused while parsing (before any kind is known): the editor and the policy page see them too.
PARSE_TIME = {
    name for name, msg in EXPECTED.items()
    if "json: cannot unmarshal" not in msg and "9223372036854775807m" not in msg and "DNS-1123" not in msg
    and "is invalid" not in msg
}
SECONDS = 5.0  # generous: each refusal takes milliseconds
MAX_ANSWER = 256 * 1024  # bytes of HTML; the alias bomb used to answer 742 MB


def test_the_corpus_and_the_table_agree():
    assert sorted(p.name for p in CORPUS.glob("*.*")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_simulate_exits_2_naming_the_field(name):
    err = io.StringIO()
    started = time.monotonic()
    with pytest.raises(SystemExit) as exited:
        call_command("simulate", str(CORPUS / name), stdout=io.StringIO(), stderr=err)
    assert time.monotonic() - started < SECONDS
    assert exited.value.code == 2
    message = err.getvalue()
    assert EXPECTED[name] in message and "Traceback" not in message and len(message) < 4096


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_import_cluster_exits_2_naming_the_field_and_writes_nothing(name):
    started = time.monotonic()
    with pytest.raises(CommandError) as refused:
        call_command("import_cluster", "hostile", str(CORPUS / name), stdout=io.StringIO())
    assert time.monotonic() - started < SECONDS
    assert refused.value.returncode == 2 and EXPECTED[name] in str(refused.value) and len(str(refused.value)) < 4096
    assert not Cluster.objects.filter(name="hostile").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_web_import_answers_422_naming_the_field_and_writes_nothing(editor_client, name):
    started = time.monotonic()
    response = editor_client.post(reverse("cluster-import"), {"name": "hostile", "text": (CORPUS / name).read_text()})
    assert time.monotonic() - started < SECONDS
    assert response.status_code == 422 and len(response.content) < MAX_ANSWER
    assert escape(EXPECTED[name]) in response.content.decode()
    assert not Cluster.objects.filter(name="hostile").exists()


@pytest.fixture
def one_node(db):
    cluster = services.create_cluster("target")
    services.import_documents(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n", "node.yaml")
    return cluster


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_node_yaml_preview_answers_422_naming_the_field(client, one_node, name):
    started = time.monotonic()
    response = client.post(
        reverse("node-preview", args=[one_node.pk, "node-a"]), {"op": "yaml", "text": (CORPUS / name).read_text()}
    )
    assert time.monotonic() - started < SECONDS
    assert response.status_code == 422 and len(response.content) < MAX_ANSWER
    if name in PARSE_TIME or name.startswith(("conditions", "condition_", "allocatable", "uppercase", "nan_", "inf_")):
        assert escape(EXPECTED[name]) in response.content.decode()


@pytest.mark.parametrize("name", sorted(PARSE_TIME))
def test_the_policy_validate_action_answers_422_naming_the_field(client, one_node, name):
    started = time.monotonic()
    response = client.post(reverse("policy-action", args=[one_node.pk]), {"action": "validate", "text": (CORPUS / name).read_text()})
    assert time.monotonic() - started < SECONDS
    assert response.status_code == 422 and len(response.content) < MAX_ANSWER
    assert escape(EXPECTED[name]) in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "accepted").iterdir()))
def test_accepted_oddities_render_and_reconcile(client, name):
    cluster = services.import_new_cluster("odd", (CORPUS / "accepted" / name).read_text(), name)
    reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()
    cluster.now += 120  # past the CVO's payload retrieval and verification, to its preconditions
    cluster.save(update_fields=["now"])
    reconcile(cluster.pk, force=True)
    for url in (reverse("cluster-detail", args=[cluster.pk]), reverse("pending-section", args=[cluster.pk]),
                reverse("update-settings", args=[cluster.pk]), reverse("update-progress", args=[cluster.pk]),
                reverse("machines", args=[cluster.pk])):
        assert client.get(url).status_code == 200, url


def test_a_policy_error_quoting_a_huge_value_is_cut_short(client, one_node):
    text = '{"kind": "Policy", "apiVersion": "v1", "predicates": "' + "x" * 200_000 + '"}'
    response = client.post(reverse("policy-action", args=[one_node.pk]), {"action": "validate", "text": text})
    body = response.content.decode()
    assert response.status_code == 422 and "Policy: predicates: must be a list, not &#x27;xxx" in body
    # the editor keeps the text (200,000 characters); the message is cut at 2,000
    assert len(response.content) < 200_000 + 60_000 and "x" * 1950 + "..." in body


@pytest.mark.django_db
def test_a_file_that_is_not_utf8_exits_2_from_both_commands(tmp_path):
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"kind: Node\nmetadata: {name: \xff\xfe}\n")
    err = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("simulate", str(path), stdout=io.StringIO(), stderr=err)
    assert exited.value.code == 2 and err.getvalue().strip() == f'error: "{path}" is not UTF-8 text'
    with pytest.raises(CommandError) as refused:
        call_command("import_cluster", "binary", str(path), stdout=io.StringIO())
    assert refused.value.returncode == 2 and str(refused.value) == f'error: "{path}" is not UTF-8 text'
    assert not Cluster.objects.exists()


@pytest.mark.django_db
def test_a_text_past_the_size_limit_is_refused_by_every_door(tmp_path, monkeypatch, editor_client):
    from scheduling.store import kube

    monkeypatch.setattr(kube, "MAX_TEXT_BYTES", 1000)
    path = tmp_path / "large.yaml"
    path.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n" + "# padding\n" * 200)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("simulate", str(path), stdout=io.StringIO(), stderr=err)
    assert exited.value.code == 2 and err.getvalue().strip() == f"{path}: Request entity too large: limit is 1000 bytes"
    with pytest.raises(CommandError) as refused:
        call_command("import_cluster", "large", str(path), stdout=io.StringIO())
    assert str(refused.value) == f"{path}: Request entity too large: limit is 1000 bytes"
    response = editor_client.post(reverse("cluster-import"), {"name": "large", "text": path.read_text()})
    assert response.status_code == 422 and "pasted text: Request entity too large: limit is 1000 bytes" in response.content.decode()
    assert not Cluster.objects.exists()
