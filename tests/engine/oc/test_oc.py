"""`oc adm taint`, `oc adm cordon/uncordon` and `oc label` (engine.oc): every message of
kubectl's taint, cordon and label command, and what the commands change."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.simulate import simulate
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

USAGE = "See 'oc adm taint -h' for help and examples"
# pflag's parse errors go through the root command's FlagErrorFunc (kubectl pkg/util/templates/templater.go)
FLAG_USAGE = "See 'oc adm taint --help' for usage."
KEY_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
             "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def cluster() -> Store:
    return Store([
        node_doc("node1", labels={"role": "app"}, taints=["dedicated=groupName:NoSchedule", "dedicated=groupName:NoExecute"]),
        node_doc("node2", labels={"role": "infra", "disktype": "ssd"}),
        node_doc("ip-10-0-132-248.ec2.internal", taints=["key1=value1:NoExecute"]),
    ])


def node_taints(store: Store, name: str) -> list[str]:
    return [f"{t['key']}={t.get('value', '')}:{t['effect']}" for t in store.get("Node", "", name)["spec"].get("taints", [])]


# --- oc adm taint: what it prints and does --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, stdout, node, taints_after",
    [
        pytest.param("oc adm taint nodes node2 key1=value1:NoExecute", "node/node2 tainted\n", "node2", ["key1=value1:NoExecute"],
                     id="KEY=VAL:EFFECT adds a taint (adding taints and tolerations)"),
        pytest.param("oc adm taint node node2 bar:NoSchedule", "node/node2 tainted\n", "node2", ["bar=:NoSchedule"],
                     id="KEY:EFFECT adds a taint without value"),
        pytest.param("oc adm taint nodes node2 node-role.kubernetes.io/master=:NoSchedule", "node/node2 tainted\n", "node2",
                     ["node-role.kubernetes.io/master=:NoSchedule"], id="KEY=:EFFECT adds an empty value (the control-plane taint)"),
        pytest.param("oc adm taint nodes ip-10-0-132-248.ec2.internal key1-", "node/ip-10-0-132-248.ec2.internal untainted\n",
                     "ip-10-0-132-248.ec2.internal", [], id="KEY- removes the key (the removing taints example output)"),
        pytest.param("oc adm taint nodes node1 dedicated-", "node/node1 untainted\n", "node1", [],
                     id="KEY- removes every effect of the key"),
        pytest.param("oc adm taint nodes node1 dedicated:NoSchedule-", "node/node1 untainted\n", "node1",
                     ["dedicated=groupName:NoExecute"], id="KEY:EFFECT- removes one effect"),
        pytest.param("oc adm taint nodes node1 gpu=true:NoSchedule dedicated:NoExecute-", "node/node1 modified\n", "node1",
                     ["gpu=true:NoSchedule", "dedicated=groupName:NoSchedule"], id="adding and removing in one command is modified"),
        pytest.param("oc adm taint nodes node1 dedicated=other:NoSchedule --overwrite", "node/node1 modified\n", "node1",
                     ["dedicated=other:NoSchedule", "dedicated=groupName:NoExecute"],
                     id="--overwrite replaces the value; new taints come first"),
        pytest.param("oc adm taint nodes node2 a=b:PreferNoSchedule --overwrite", "node/node2 modified\n", "node2",
                     ["a=b:PreferNoSchedule"], id="--overwrite always reports modified"),
        pytest.param("oc adm taint nodes node2 disktype=ssd:NoSchedule -o name", "node/node2\n", "node2",
                     ["disktype=ssd:NoSchedule"], id="-o name prints the name only"),
        pytest.param("kubectl taint nodes node2 k=v:NoSchedule", "node/node2 tainted\n", "node2", ["k=v:NoSchedule"],
                     id="kubectl taint works the same"),
    ],
)
def test_taint(command, stdout, node, taints_after):
    store = cluster()
    result = oc.run(store, command)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)
    store.apply_all(result.actions)
    assert node_taints(store, node) == taints_after


@pytest.mark.parametrize(
    "command, stdout",
    [
        pytest.param("oc adm taint nodes --all k=v:NoSchedule", "node/ip-10-0-132-248.ec2.internal tainted\nnode/node1 tainted\nnode/node2 tainted\n",
                     id="--all taints every node, in name order"),
        pytest.param("oc adm taint node -l role=infra k=v:NoSchedule", "node/node2 tainted\n", id="-l selects nodes by label"),
        pytest.param("oc adm taint node --selector role!=infra,!disktype k=v:NoSchedule",
                     "node/ip-10-0-132-248.ec2.internal tainted\nnode/node1 tainted\n", id="set-based selectors work"),
        pytest.param("oc adm taint node -l role=none k=v:NoSchedule", "", id="a selector matching nothing prints nothing"),
    ],
)
def test_taint_selecting_nodes(command, stdout):
    result = oc.run(cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)


@pytest.mark.parametrize(
    "flag, suffix",
    [
        pytest.param("--dry-run=client", " (dry run)", id="a client dry run"),
        pytest.param("--dry-run", " (dry run)", id="a bare --dry-run is a client dry run"),
        pytest.param("--dry-run=server", " (server dry run)", id="a server dry run"),
    ],
)
def test_taint_dry_run_changes_nothing(flag, suffix):
    result = oc.run(cluster(), f"oc adm taint nodes node2 k=v:NoSchedule {flag}")
    assert (result.stdout, result.actions) == (f"node/node2 tainted{suffix}\n", [])


@pytest.mark.parametrize(
    "command, stderr",
    [
        pytest.param("oc adm taint", "error: one or more resources must be specified as <resource> <name>\n", id="no arguments"),
        pytest.param("oc adm taint nodes node1", "error: at least one taint update is required\n", id="no taint"),
        pytest.param("oc adm taint nodes k=v:NoSchedule node1",
                     "error: all resources must be specified before taint changes: node1\n", id="a node after a taint"),
        pytest.param("oc adm taint nodes node1 k=v:NoExcute",
                     f"error: invalid taint effect: NoExcute, unsupported taint effect\n{USAGE}\n", id="a misspelt effect"),
        pytest.param("oc adm taint nodes node1 k=v", f"error: invalid taint spec: k=v, {KEY_MSG}\n{USAGE}\n",
                     id="a taint without effect is read as a key, and k=v is not a valid key"),
        pytest.param("oc adm taint nodes node1 k=v:", f"error: invalid taint effect: , unsupported taint effect\n{USAGE}\n",
                     id="an empty effect"),
        pytest.param("oc adm taint nodes node1 a:b:NoSchedule", f"error: invalid taint spec: a:b:NoSchedule\n{USAGE}\n",
                     id="two colons"),
        pytest.param("oc adm taint nodes node1 k=v=w:NoSchedule", f"error: invalid taint spec: k=v=w:NoSchedule\n{USAGE}\n",
                     id="two equal signs"),
        pytest.param("oc adm taint nodes node1 k=-bad:NoSchedule",
                     f"error: invalid taint spec: k=-bad:NoSchedule, {VALUE_MSG}\n{USAGE}\n", id="a bad value"),
        pytest.param("oc adm taint nodes node1 k_=v:NoSchedule", f"error: invalid taint spec: k_=v:NoSchedule, {KEY_MSG}\n{USAGE}\n",
                     id="a bad key"),
        pytest.param("oc adm taint nodes node1 k=a:NoSchedule k=b:NoSchedule",
                     f"error: duplicated taints with the same key and effect: {{k b NoSchedule <nil>}}\n{USAGE}\n",
                     id="the same key and effect twice"),
        pytest.param("oc adm taint nodes node1 k=a:NoSchedule k-",
                     f"error: can not both modify and remove the following taint(s) in the same command: k=\n{USAGE}\n",
                     id="adding and removing a key"),
        pytest.param("oc adm taint nodes node1 k=a:NoSchedule k:NoSchedule-",
                     f"error: can not both modify and remove the following taint(s) in the same command: k=NoSchedule\n{USAGE}\n",
                     id="adding and removing a key and effect"),
        pytest.param("oc adm taint nodes --all -l a=b k=v:NoSchedule",
                     f"error: setting 'all' parameter with a non empty selector is prohibited\n{USAGE}\n", id="--all with a selector"),
        pytest.param("oc adm taint nodes k=v:NoSchedule",
                     f"error: at least one resource name must be specified since 'all' parameter is not set\n{USAGE}\n",
                     id="no node name"),
        pytest.param("oc adm taint pods web k=v:NoSchedule",
                     f"error: invalid resource type pods, only node types are supported\n{USAGE}\n", id="not a node"),
        pytest.param("oc adm taint nodez node1 k=v:NoSchedule",
                     f"error: the server doesn't have a resource type \"nodez\"\n{USAGE}\n", id="an unknown resource type"),
        pytest.param("oc adm taint nodes node9 k=v:NoSchedule", 'Error from server (NotFound): nodes "node9" not found\n',
                     id="a missing node"),
        pytest.param("oc adm taint nodes node1 dedicated=x:NoSchedule",
                     "error: node node1 already has dedicated taint(s) with same effect(s) and --overwrite is false\n",
                     id="an existing key and effect without --overwrite"),
        pytest.param("oc adm taint nodes node1 dedicated=x:NoSchedule dedicated=x:NoExecute",
                     "error: node node1 already has dedicated,dedicated taint(s) with same effect(s) and --overwrite is false\n",
                     id="every existing one is named"),
        pytest.param("oc adm taint nodes node2 dedicated:NoSchedule-", 'error: taint "dedicated:NoSchedule" not found\n',
                     id="removing a key and effect that is not there"),
        pytest.param("oc adm taint nodes node2 dedicated-", 'error: taint "dedicated" not found\n', id="removing a missing key"),
        pytest.param("oc adm taint nodes node2 a- b-", 'taint "a" not found\ntaint "b" not found\n',
                     id="several errors print one per line"),
        pytest.param("oc adm taint nodes node1 k=v:NoSchedule --foo", f"error: unknown flag: --foo\n{FLAG_USAGE}\n", id="an unknown flag"),
        pytest.param("oc adm taint nodes node1 k=v:NoSchedule -x", f"error: unknown shorthand flag: 'x' in -x\n{FLAG_USAGE}\n",
                     id="an unknown shorthand flag"),
        pytest.param("oc adm taint nodes node1 k=v:NoSchedule --dry-run=maybe",
                     'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n', id="a bad dry-run value"),
    ],
)
def test_taint_errors(command, stderr):
    result = oc.run(cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code, result.actions) == ("", stderr, 1, [])


def test_taint_goes_on_with_the_other_nodes_after_an_error():
    result = oc.run(cluster(), "oc adm taint nodes node9 node2 k=v:NoSchedule")
    assert (result.stdout, result.stderr, result.exit_code) == (
        "node/node2 tainted\n", 'Error from server (NotFound): nodes "node9" not found\n', 1
    )
    assert result.actions == [A.SetTaints("node2", ({"key": "k", "effect": "NoSchedule", "value": "v"},))]


def test_taint_help_names_oc_adm_taint():
    result = oc.run(cluster(), "oc adm taint -h")
    assert result.exit_code == 0 and "oc adm taint nodes foo dedicated=special-user:NoSchedule" in result.stdout
    assert "kubectl" not in result.stdout


# --- cordon / uncordon -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "commands, outputs, unschedulable",
    [
        pytest.param(["oc adm cordon node1"], ["node/node1 cordoned\n"], True, id="cordon"),
        pytest.param(["oc adm cordon node1", "oc adm cordon node1"], ["node/node1 cordoned\n", "node/node1 already cordoned\n"],
                     True, id="cordoning twice"),
        pytest.param(["oc adm cordon node1", "oc adm uncordon node1"], ["node/node1 cordoned\n", "node/node1 uncordoned\n"],
                     False, id="uncordon"),
        pytest.param(["oc adm uncordon node1"], ["node/node1 already uncordoned\n"], False, id="uncordoning a schedulable node"),
        pytest.param(["oc adm cordon node1 --dry-run=client"], ["node/node1 cordoned (dry run)\n"], False, id="a dry run"),
        pytest.param(["oc adm cordon -l role=infra"], ["node/node2 cordoned\n"], False, id="by selector"),
        pytest.param(["kubectl cordon node/node1"], ["node/node1 cordoned\n"], True, id="kubectl and node/NAME"),
    ],
)
def test_cordon_and_uncordon(commands, outputs, unschedulable):
    store = cluster()
    for command, output in zip(commands, outputs):
        result = oc.run(store, command)
        assert (result.stdout, result.stderr, result.exit_code) == (output, "", 0)
        store.apply_all(result.actions)
    assert bool(store.get("Node", "", "node1")["spec"].get("unschedulable")) is unschedulable


@pytest.mark.parametrize(
    "command, stderr",
    [
        pytest.param("oc adm cordon", "error: USAGE: cordon NODE [flags]\nSee 'oc adm cordon -h' for help and examples\n",
                     id="cordon without a node"),
        pytest.param("oc adm uncordon", "error: USAGE: uncordon NODE [flags]\nSee 'oc adm uncordon -h' for help and examples\n",
                     id="uncordon without a node"),
        pytest.param("oc adm cordon node1 -l role=app",
                     "error: cannot specify both a node name and a --selector option\nSee 'oc adm cordon -h' for help and examples\n",
                     id="a name and a selector"),
        pytest.param("oc adm cordon node9", 'Error from server (NotFound): nodes "node9" not found\n', id="a missing node"),
    ],
)
def test_cordon_errors(command, stderr):
    result = oc.run(cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code) == ("", stderr, 1)


def test_a_cordoned_node_gets_the_unschedulable_taint_and_no_new_pods():
    timeline = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                "steps": [{"at": 0, "run": "oc adm cordon node1"}, {"at": 10, "apply": pod_doc("web")},
                          {"at": 20, "run": "oc adm uncordon node1"}]}
    early = simulate([node_doc("node1"), timeline], until=15)
    assert early["pods"][0]["message"] == "0/1 nodes are available: 1 node(s) were unschedulable."
    late = simulate([node_doc("node1"), timeline], until=25)
    assert (late["pods"][0]["node"], late["pods"][0]["phase"]) == ("node1", "Running")
    assert [(e["time"], e["reason"], e["message"]) for e in late["events"] if e["reason"] in ("CommandOutput", "Scheduled")] == [
        (0.0, "CommandOutput", "node/node1 cordoned\n"),
        (20.0, "CommandOutput", "node/node1 uncordoned\n"),
        (20.0, "Scheduled", "Successfully assigned default/web to node1"),
    ]


# --- oc label -------------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, stdout, labels",
    [
        pytest.param("oc label node node1 disktype=ssd", "node/node1 labeled\n", {"role": "app", "disktype": "ssd"}, id="add a label"),
        pytest.param("oc label node node1 role=app", "node/node1 not labeled\n", {"role": "app"}, id="the same value changes nothing"),
        pytest.param("oc label node node1 role=db --overwrite", "node/node1 labeled\n", {"role": "db"}, id="--overwrite changes a value"),
        pytest.param("oc label node node1 role-", "node/node1 unlabeled\n", {}, id="KEY- removes a label"),
        pytest.param("oc label node node1 nope-", 'label "nope" not found.\nnode/node1 not labeled\n', {"role": "app"},
                     id="removing a missing label"),
        pytest.param("oc label node/node1 dedicated=groupName", "node/node1 labeled\n", {"role": "app", "dedicated": "groupName"},
                     id="node/NAME works (the dedicated nodes example)"),
        pytest.param("oc label node node1 a=b --dry-run=client", "node/node1 labeled (dry run)\n", {"role": "app"}, id="a dry run"),
    ],
)
def test_label(command, stdout, labels):
    store = cluster()
    result = oc.run(store, command)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)
    store.apply_all(result.actions)
    assert {k: v for k, v in store.get("Node", "", "node1")["metadata"].get("labels", {}).items()
            if k != "kubernetes.io/hostname"} == labels


@pytest.mark.parametrize(
    "command, stderr",
    [
        pytest.param("oc label node node1 role=db", "error: 'role' already has a value (app), and --overwrite is false\n",
                     id="changing a value without --overwrite"),
        pytest.param("oc label node node1 a=-x", f'error: invalid label value: "a=-x": {VALUE_MSG}\n', id="a bad value"),
        pytest.param("oc label node node1 a=b=c", "error: invalid label spec: a=b=c\n", id="two equal signs"),
        pytest.param("oc label node node1 a=b a-", "error: can not both modify and remove a label in the same command\n",
                     id="adding and removing a label"),
        pytest.param("oc label node node1", "error: at least one label update is required\n", id="no label"),
        pytest.param("oc label node a=b node1", "error: all resources must be specified before label changes: node1\n",
                     id="a node after a label"),
        pytest.param("oc label a=b", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n",
                     id="no resource"),
        pytest.param("oc label node a=b", "error: resource(s) were provided, but no name was specified\n", id="no name"),
        pytest.param("oc label node node9 a=b", 'Error from server (NotFound): nodes "node9" not found\n', id="a missing node"),
        pytest.param("oc label node node1 bad_=x", f'The Node "node1" is invalid: metadata.labels: Invalid value: "bad_": {KEY_MSG}\n',
                     id="a bad key is refused by the API server"),
    ],
)
def test_label_errors(command, stderr):
    result = oc.run(cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code, result.actions) == ("", stderr, 1, [])


@pytest.mark.parametrize(
    "command, stderr",
    [
        pytest.param("oc frobnicate node node1", 'error: unknown command "frobnicate" for "oc"\n', id="an unknown command"),
        pytest.param("oc gett nodes", 'error: unknown command "gett" for "oc"\n\nDid you mean this?\n\tget\n\tset\n',
                     id="a misspelt command gets cobra's suggestions among all of oc's commands"),
        pytest.param("kubectl gett nodes", 'error: unknown command "gett" for "kubectl"\n\nDid you mean this?\n\tget\n\tset\n',
                     id="and kubectl's among kubectl's"),
        pytest.param("oc list pods", 'error: unknown command "list" for "oc"\n\nDid you mean this?\n\tget\n\twait\n',
                     id="SuggestFor words"),
        pytest.param("oc -n default gett", 'error: unknown command "gett" for "oc"\n\nDid you mean this?\n\tget\n\tset\n',
                     id="global flags before the command are not the command"),
        pytest.param("oc adm tain nodes", 'error: unknown command "tain nodes"\nSee \'oc adm -h\' for help and examples\n',
                     id="a misspelt adm command: oc adm's DefaultSubCommandRun, no suggestions"),
        pytest.param("oc adm frob -n x node1", 'error: unknown command "frob node1"\nSee \'oc adm -h\' for help and examples\n',
                     id="the words after oc adm, flags parsed out"),
        pytest.param("oc get nodes --frob", "error: unknown flag: --frob\nSee 'oc get --help' for usage.\n",
                     id="an unknown flag: the root command's FlagErrorFunc"),
        pytest.param("oc get nodes -o", "error: flag needs an argument: 'o' in -o\nSee 'oc get --help' for usage.\n",
                     id="a flag without its argument"),
        pytest.param("oc adm drain node1 --timeout=soon",
                     "error: invalid argument \"soon\" for \"--timeout\" flag: time: invalid duration \"soon\"\n"
                     "See 'oc adm drain --help' for usage.\n", id="a flag value pflag cannot parse"),
    ],
)
def test_unknown_commands_and_flags_get_cobras_errors(command, stderr):
    result = oc.run(cluster(), command)
    assert (result.stdout, result.stderr, result.exit_code) == ("", stderr, 1)


@pytest.mark.parametrize("command", ["oc -n data get pods -o name", "oc --namespace data get pods -o name",
                                     "oc --namespace=data get pods -o name", "oc -ndata get pods -o name",
                                     "kubectl -n data get pods -o name"])
def test_global_flags_may_come_before_the_command(command):
    store = Store([node_doc("node1"), pod_doc("db-0", node="node1", namespace="data"), pod_doc("web-1", node="node1")])
    result = oc.run(store, command)
    assert (result.stdout, result.stderr, result.exit_code) == ("pod/db-0\n", "", 0)
