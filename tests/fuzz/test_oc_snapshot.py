"""`manage.py oc -f FILE` on hostile and odd documents: every file of the kept corpus
(tests/fuzz/corpus/, its accepted/ and snapshot/ folders) through the commands people run on
a must-gather. Never a traceback; exit 0 or 1; a file is either taken exactly as given or
refused in one line naming the file, the object and the field (kubectl's
`unable to decode "FILE": ...` for a document Go's types cannot hold)."""

from __future__ import annotations

import io
import traceback
from pathlib import Path

import pytest

from scheduling.store import services
from scheduling.management.commands.oc import Command
from scheduling.models import Pod
from tests.fuzz.test_hostile_input import EXPECTED

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted([*CORPUS.glob("*.*"), *(CORPUS / "accepted").glob("*.*"), *(CORPUS / "snapshot").glob("*.*")])
NOW = "2026-06-01T00:00:00Z"

# Refused by import and simulate only by validation proper (names, annotation keys, quantities
# past the scheduler's int64 milli-units): Go's decoder takes them, so a snapshot keeps them.
DECODABLE = {"html_name.yaml", "uppercase_annotation_prefix.yaml", "allocatable_1e1000.yaml", "pod_cpu_1e1000.yaml",
             "machine_without_name.yaml"}

COMMANDS = [
    ["get", "nodes"],
    ["get", "nodes", "-o", "wide"],
    ["get", "nodes", "-o", "yaml"],
    ["get", "pods", "-A", "-o", "wide"],
    ["get", "pods", "-A", "-o", "yaml"],
    ["get", "all", "-A", "-o", "wide"],
    ["get", "all", "-A", "-o", "yaml"],
    ["describe", "nodes"],
    ["describe", "pods", "-A"],
    ["adm", "drain", "NODE", "--dry-run=client"],
    ["adm", "drain", "NODE", "--dry-run=client", "--ignore-daemonsets", "--delete-emptydir-data", "--force"],
    ["adm", "upgrade", "status"],
    ["adm", "upgrade"],
]


def oc(*argv: str, stdin: str = "") -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    try:
        code = Command().main(list(argv), io.StringIO(stdin), out, err)
    except BaseException:  # the point of these tests: the user would have seen a traceback
        pytest.fail(f"oc {' '.join(argv)} raised:\n{traceback.format_exc()}")
    return out.getvalue(), err.getvalue(), code


def _refusal(name: str) -> str:
    """What `oc -f` says of a corpus file the API server refuses: the table's message without
    the `Kind "name" is invalid: ` / `cannot be handled as a Kind: ` framing of the server."""
    message = EXPECTED[name]
    for frame in (" is invalid: ", " cannot be handled as a "):
        if frame in message:
            message = message.split(frame, 1)[1]
            if frame == " cannot be handled as a ":
                message = message.split(": ", 1)[1]
    return message


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_command_on_every_corpus_file_prints_oc_output_or_a_one_line_refusal(path):
    names, _, _ = oc("--now", NOW, "-f", str(path), "get", "nodes", "-o", "name")
    node = names.split("\n")[0].removeprefix("node/") or "node1"
    refused = path.parent == CORPUS and path.name not in DECODABLE
    for command in COMMANDS:
        argv = [node if word == "NODE" else word for word in command]
        out, err, code = oc("--now", NOW, "-f", str(path), *argv)
        assert "Traceback" not in out + err, argv
        assert code in (0, 1), (argv, code, err)
        if refused:
            assert (code, out) == (1, ""), argv
            assert err.startswith("error: ") and err.count("\n") == 1, (argv, err)  # one line
            assert str(path) in err and _refusal(path.name) in err, (argv, err)  # the file and the field
        elif command[0] == "get":
            assert code == 0, (argv, err)


def test_a_snapshot_that_decodes_but_holds_odd_values_is_shown_as_given():
    path = str(CORPUS / "snapshot" / "odd_values.yaml")
    out, err, code = oc("--now", NOW, "-f", path, "describe", "node", "n1")
    assert code == 0, err
    assert "  cpu:     1e1000\n  memory:  -5Gi\n" in out  # capacity exactly as given
    assert "None" not in out  # a condition or address without type: Go's empty string
    out, err, code = oc("--now", NOW, "-f", path, "get", "deploy", "-n", "default")
    assert code == 0 and "-2147483648/-1" in out, (out, err)  # readyReplicas/replicas as given
    out, err, code = oc("--now", NOW, "-f", path, "get", "pods", "-n", "default", "-o", "yaml")
    assert code == 0, err
    assert "creationTimestamp: garbage" in out and 'deletionTimestamp: "99999999999999999"' in out  # not a time: shown as written


BAD = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {conditions: true, capacity: {cpu: "1e1000"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, ownerReferences: 5}
spec: {containers: [null], tolerations: 7}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: -1, template: null}
"""


def test_the_issue_file_is_refused_naming_the_file_the_object_and_the_field(tmp_path):
    bad = tmp_path / "bad1.yaml"
    bad.write_text(BAD)
    out, err, code = oc("-f", str(bad), "get", "nodes")
    assert (out, err, code) == ("", f'error: unable to decode "{bad}": Node "n1": json: cannot unmarshal bool into Go '
                                    "struct field NodeStatus.status.conditions of type []v1.NodeCondition\n", 1)
    # without the node, the pod's ownerReferences; from stdin kubectl names the source STDIN
    out, err, code = oc("-f", "-", "get", "pods", stdin=BAD.split("---\n", 1)[1])
    assert (out, err, code) == ("", 'error: unable to decode "STDIN": Pod "p": json: cannot unmarshal number into Go '
                                    "struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference\n", 1)


@pytest.mark.parametrize("document, message", [
    pytest.param("kind: Pod\nmetadata: {name: p}\nspec: {tolerations: 7}\n",
                 'Pod "p": json: cannot unmarshal number into Go struct field PodSpec.spec.tolerations of type []v1.Toleration',
                 id="tolerations a number"),
    pytest.param("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n",
                 'Pod "p": spec.containers[0].resources.requests.cpu: Invalid value: "lots": quantities must match',
                 id="a quantity that does not parse"),
    pytest.param("kind: Node\nmetadata: {name: n}\nstatus: {nodeInfo: 5}\n",
                 'Node "n": json: cannot unmarshal number into Go struct field NodeStatus.status.nodeInfo of type v1.NodeSystemInfo',
                 id="nodeInfo a number (get nodes reads kubeletVersion)"),
    pytest.param("kind: Pod\nmetadata: {name: p}\nstatus: {containerStatuses: s}\n",
                 'Pod "p": json: cannot unmarshal string into Go struct field PodStatus.status.containerStatuses of type '
                 "[]v1.ContainerStatus", id="containerStatuses a string (get pods counts restarts)"),
    pytest.param("kind: Event\nmetadata: {name: e}\ninvolvedObject: 5\n",
                 'Event "e": json: cannot unmarshal number into Go struct field Event.involvedObject of type v1.ObjectReference',
                 id="an Event's involvedObject a number"),
    pytest.param("kind: MachineSet\napiVersion: machine.openshift.io/v1beta1\nmetadata: {name: {a: 1}}\n",
                 "MachineSet: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.name of type string",
                 id="a name that is not a string"),
])
def test_an_undecodable_document_is_refused(tmp_path, document, message):
    path = tmp_path / "f.yaml"
    path.write_text(document)
    out, err, code = oc("-f", str(path), "get", "all")
    assert (out, code) == ("", 1)
    assert err.startswith(f'error: unable to decode "{path}": {message}'), err


def test_null_items_decode_to_their_zero_value_as_in_go(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("kind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [null]}\n")
    out, err, code = oc("--now", NOW, "-f", str(path), "get", "pods")
    assert code == 0 and out.split("\n")[1].split()[:2] == ["p", "0/1"], (out, err)


# --- the stored-cluster path: objects written around the API ------------------------------------------------


@pytest.mark.django_db
def test_oc_on_a_stored_cluster_with_an_object_written_around_the_api_does_not_raise():
    cluster = services.import_new_cluster("c", "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n---\n"
                                               "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: default}\n"
                                               "spec: {nodeName: n1, containers: [{name: c, image: i}]}\n", "c.yaml")
    Pod.objects.filter(cluster=cluster, name="p").update(metadata={"name": "p", "namespace": "default", "ownerReferences": 5})
    for command in COMMANDS:
        argv = ["n1" if word == "NODE" else word for word in command]
        out, err, code = oc("--cluster", "c", *argv)
        assert "Traceback" not in out + err and code in (0, 1), (argv, code, err)
    out, err, code = oc("--cluster", "c", "get", "nodes", "-o", "name")
    assert (out, code) == ("node/n1\n", 0)
    assert err == ('Warning: Pod "p" is skipped by the controllers: json: cannot unmarshal number into Go struct field '
                   "ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference\n")


def test_an_alerts_file_go_cannot_decode_is_a_failed_precheck_not_a_traceback(tmp_path):
    alerts = tmp_path / "alerts.json"
    alerts.write_text('{"data": {"alerts": [{"labels": {"alertname": "X", "severity": 5}}]}}')
    snapshot = str(CORPUS / "accepted" / "clusterversion_version_not_semver.yaml")
    out, err, code = oc("--now", NOW, "-f", snapshot, "--alerts", str(alerts), "adm", "upgrade", "recommend")
    assert code in (0, 1), err
    assert ("Failed to check for at least some preconditions: parsing alerts: json: cannot unmarshal number into Go "
            "struct field AlertLabels.data.alerts.labels.severity of type string\n") in out


def test_a_mock_clusterversion_go_cannot_decode_is_refused_naming_the_field(tmp_path):
    mock = tmp_path / "x-cv.yaml"
    mock.write_text("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\n"
                    "spec: {channel: stable-4.14}\nstatus: {desired: {version: 4.14.1}, conditions: 5}\n")
    out, err, code = oc("adm", "upgrade", "recommend", f"--mock-clusterversion={mock}")
    assert (out, code) == ("", 1)
    assert err == (f'error: unable to decode "{mock}": ClusterVersion "version": status.conditions: Invalid value: "integer": '
                   'status.conditions in body must be of type array: "integer"\n')
