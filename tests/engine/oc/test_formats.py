"""The template formats of `oc get`: kubectl's JSONPath (client-go util/jsonpath/jsonpath_test.go,
its cases over JSON input translated here; Go structs become the maps kubectl's printers
hand the engine), custom columns (kubectl pkg/cmd/get/customcolumn_test.go), go-template
(text/template as cli-runtime's template printer runs it), `--sort-by` (sorter.go) and the
errors kubectl prints for each."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.oc import formats, get, gotemplate
from scheduling.engine.oc import jsonpath as jp
from scheduling.engine.oc.core import OcError
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [{"name": "one", "value": 1}, {"name": "two", "value": 2.02}, {"name": "three", "value": 3.03},
             {"name": "four", "value": 4.04}],
}
STORE = {
    "Name": "jsonpath",
    "Book": [{"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey", "Price": 8.95},
             {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour", "Price": 12.99},
             {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick", "Price": 8.99}],
    "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": True}, {"Color": "green", "Price": 20.01, "IsNew": False}],
    "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
    "Employees": {"jason": "manager", "dan": "clerk"},
}
POINTS = [{"id": "i1", "x": 4, "y": -5}, {"id": "i2", "x": -2, "y": -5, "z": 1}, {"id": "i3", "x": 8, "y": 3},
          {"id": "i4", "x": -6, "y": -1}, {"id": "i5", "x": 0, "y": 2, "z": 1}, {"id": "i6", "x": 1, "y": 4}]
NODES = {
    "kind": "List",
    "items": [
        {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
         "status": {"capacity": {"cpu": "4"}, "ready": True, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
        {"kind": "None", "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
         "status": {"capacity": {"cpu": "8"}, "ready": False, "addresses": [
             {"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}},
    ],
    "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}],
}
NESTED = {"items": [
    {"metadata": {"name": "pod1"}, "spec": {"containers": [
        {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
        {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
    {"metadata": {"name": "pod2"}, "spec": {"containers": [{"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
]}
CONTAINERS = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [
    {"image": "radial/busyboxplus:curl", "name": f"fake{i}"} for i in range(6)]}}
FOUR = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": CONTAINERS["spec"]["containers"][:4]}}
ANNOTATED = {"kind": "List", "items": [
    {"kind": "Pod", "metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
    {"kind": "Pod", "metadata": {"name": "pod2"}},
    {"kind": "Pod", "metadata": {"name": "pod3", "annotations": {"color": "green"}}},
    {"kind": "Pod", "metadata": {"name": "pod4", "annotations": {"color": "blue"}}},
]}
RUNNING = {"kind": "List", "items": [
    {"kind": "Pod", "metadata": {"name": f"pod{i}"}, "status": {"phase": "Running"}} for i in (1, 2, 3)] + [{"resourceVersion": ""}]}

CASES = [
    # TestTypesInput
    ("{ .bools }", TYPES, "[true,false,true,false]"), ("{ .bools[0] }", TYPES, "true"), ("{ .bools[-1] }", TYPES, "false"),
    ("{ .bools[0:2] }", TYPES, "true false"), ("{ .bools[:2] }", TYPES, "true false"), ("{ .bools[:4:2] }", TYPES, "true true"),
    ("{ .integers }", TYPES, "[1,2,3,4]"), ("{ .integers[0] }", TYPES, "1"), ("{ .integers[-2] }", TYPES, "3"),
    ("{ .integers[0:2] }", TYPES, "1 2"), ("{ .integers[:2] }", TYPES, "1 2"), ("{ .integers[:4:2] }", TYPES, "1 3"),
    ("{ .floats }", TYPES, "[1,2.2,3.3,4]"), ("{ .floats[0] }", TYPES, "1"), ("{ .floats[-2] }", TYPES, "3.3"),
    ("{ .floats[0:2] }", TYPES, "1 2.2"), ("{ .floats[:2] }", TYPES, "1 2.2"), ("{ .floats[:4:2] }", TYPES, "1 3.3"),
    ("{ .strings }", TYPES, '["one","two","three","four"]'), ("{ .strings[0] }", TYPES, "one"),
    ("{ .strings[-2] }", TYPES, "three"), ("{ .strings[0:2] }", TYPES, "one two"), ("{ .strings[:2] }", TYPES, "one two"),
    ("{ .strings[:4:2] }", TYPES, "one three"),
    ("{ .interfaces }", TYPES, '[true,"one",1,1.1]'), ("{ .interfaces[0] }", TYPES, "true"),
    ("{ .interfaces[-2] }", TYPES, "1"), ("{ .interfaces[0:2] }", TYPES, "true one"), ("{ .interfaces[:2] }", TYPES, "true one"),
    ("{ .interfaces[:4:2] }", TYPES, "true 1"),
    ("{ .maps }", TYPES, '[{"name":"one","value":1},{"name":"two","value":2.02},{"name":"three","value":3.03},'
                         '{"name":"four","value":4.04}]'),
    ("{ .maps[0] }", TYPES, '{"name":"one","value":1}'), ("{ .maps[-2] }", TYPES, '{"name":"three","value":3.03}'),
    ("{ .maps[0:2] }", TYPES, '{"name":"one","value":1} {"name":"two","value":2.02}'),
    ("{ .maps[::2] }", TYPES, '{"name":"one","value":1} {"name":"three","value":3.03}'),
    ("{ .maps[1::2] }", TYPES, '{"name":"two","value":2.02} {"name":"four","value":4.04}'),
    # TestStructInput (the store as a map)
    ("hello jsonpath", None, "hello jsonpath"), ("{..}", [1, 2, 3], "[1,2,3]"), ("{[?(@<5)]}", [2, 6, 3, 7], "2 3"),
    ('{"{"}', None, "{"), ("{[1,3,4]}", [0, 1, 2, 3, 4], "1 3 4"), ("{[0:2]}", ["Monday", "Tudesday"], "Monday Tudesday"),
    ("hello {.Name}", STORE, "hello jsonpath"), ("{$.Labels.web/html}", STORE, "15"), ("{$.Employees.jason}", STORE, "manager"),
    ("{$.Employees.dan}", STORE, "clerk"), ("{.Labels.k8s-app}", STORE, "20"), ("{.Bicycle[*].Color}", STORE, "red green"),
    ("{.Book[*].Author}", STORE, "Nigel Rees Evelyn Waugh Herman Melville"),
    ("{.Book[-1:].Title}", STORE, "Moby Dick"), ("{..Book[2].Title}", STORE, "Moby Dick"),
    ("{.Bicycle[?(@.IsNew==true)].Color}", STORE, "red"),
    # TestJSONInput
    ("{[?(@.z)].id}", POINTS, "i2 i5"), ("{[0]['id']}", POINTS, "i1"),
    # TestKubernetes
    ("{range .items[*]}{.metadata.name}, {end}{.kind}", NODES, "127.0.0.1, 127.0.0.2, List"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{end}', NODES, "127.0.0.1\t127.0.0.2\t"),
    ("{.items[*].status.addresses[*].address}", NODES, "127.0.0.1 127.0.0.2 127.0.0.3"),
    ("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", NODES, "127.0.0.1, 127.0.0.2, 127.0.0.3, "),
    ("{.items[*].metadata.name}", NODES, "127.0.0.1 127.0.0.2"),
    ("{.items[*]['metadata.name', 'status.capacity']}", NODES, '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
    ("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", NODES, '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '),
    ('{.users[?(@.name=="e2e")].user.password}', NODES, "secret"),
    ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", NODES, "127.0.0.1"),
    ('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', NODES, "None"),
    ("{.items[?(@..ready==true)].metadata.name}", NODES, "127.0.0.1"),
    # TestEmptyRange
    ("{range .items[*]}{.metadata.name}{end}", {"items": []}, ""),
    ('{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', {"items": []}, ""),
    # TestNestedRanges
    ('{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', NESTED,
     "pod1:foo,bar,+pod2:baz,+"),
    ('{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}'
     '{"+"}{end}{"#"}{end}', NESTED, "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}'
     '{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}', NESTED, "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n"),
    # TestFilterPartialMatchesSometimesMissingAnnotations (missing keys allowed, as kubectl allows them)
    ('{.items[?(@.metadata.annotations.color=="blue")].metadata.name}', ANNOTATED, "pod1 pod4"),
    # TestNegativeIndex
    ("{.spec.containers[0].name}", FOUR, "fake0"), ("{.spec.containers[0:0].name}", FOUR, ""),
    ("{.spec.containers[0:-1].name}", FOUR, "fake0 fake1 fake2"), ("{.spec.containers[-1].name}", FOUR, "fake3"),
    ("{.spec.containers[-1:].name}", FOUR, "fake3"), ("{.spec.containers[-2].name}", FOUR, "fake2"),
    ("{.spec.containers[-2:].name}", FOUR, "fake2 fake3"), ("{.spec.containers[-3].name}", FOUR, "fake1"),
    ("{.spec.containers[-4].name}", FOUR, "fake0"), ("{.spec.containers[-4:].name}", FOUR, "fake0 fake1 fake2 fake3"),
    ("{.spec.containers[5:5].name}", FOUR, ""), ("{.spec.containers[-5:-5].name}", FOUR, ""),
    # TestRunningPodsJSONPathOutput
    ('{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\\n"}{end}', RUNNING,
     "pod1 is Running\npod2 is Running\npod3 is Running\n"),
    # TestStep
    ("{.spec.containers[0:].name}", CONTAINERS, "fake0 fake1 fake2 fake3 fake4 fake5"),
    ("{.spec.containers[0:6:].name}", CONTAINERS, "fake0 fake1 fake2 fake3 fake4 fake5"),
    ("{.spec.containers[0:6:1].name}", CONTAINERS, "fake0 fake1 fake2 fake3 fake4 fake5"),
    ("{.spec.containers[1:4:2].name}", CONTAINERS, "fake1 fake3"), ("{.spec.containers[1:4:3].name}", CONTAINERS, "fake1"),
    ("{.spec.containers[1:4:4].name}", CONTAINERS, "fake1"), ("{.spec.containers[0:6:2].name}", CONTAINERS, "fake0 fake2 fake4"),
    ("{.spec.containers[0:6:3].name}", CONTAINERS, "fake0 fake3"), ("{.spec.containers[0:6:5].name}", CONTAINERS, "fake0 fake5"),
    ("{.spec.containers[0:6:6].name}", CONTAINERS, "fake0"),
    # missing keys (kubectl's printers allow them)
    ("{.hello}", STORE, ""), ("before-{.hello}after", STORE, "before-after"),
]


@pytest.mark.parametrize("template, data, expected", CASES)
def test_client_go_jsonpath_cases(template, data, expected):
    assert jp.execute(template, data) == expected


def test_recursive_names_in_any_order():
    assert sorted(jp.execute("{..name}", NODES).split()) == sorted("127.0.0.1 127.0.0.2 myself e2e".split())


@pytest.mark.parametrize("template, data, message", [
    # testFailJSONPath and the cases that expect an error
    ("{hello}", STORE, "unrecognized identifier hello"),
    ("{.Labels[0]}", STORE, "map[string]interface {} is not array or slice"),
    ("{.Book[?(@.Price<>10)]}", STORE, "unrecognized filter operator <>"),
    ("{range .Labels.*}{@}{end}{end}", STORE, "not in range, nothing to end"),
    ("{.spec.containers[-1:0].name}", FOUR, "starting index 3 is greater than ending index 0"),
    ("{.spec.containers[-5].name}", FOUR, "array index out of bounds: index -1, length 4"),
    ("{.spec.containers[3:1].name}", FOUR, "starting index 3 is greater than ending index 1"),
    ("{.spec.containers[-1:-2].name}", FOUR, "starting index 3 is greater than ending index 2"),
    ("{.spec.containers[0:6:0].name}", CONTAINERS, "step must be > 0"),
    ("{.spec.containers[0:6:-1].name}", CONTAINERS, "step must be > 0"),
])
def test_client_go_jsonpath_execution_errors(template, data, message):
    with pytest.raises(jp.JSONPathError) as caught:
        jp.execute(template, data)
    assert str(caught.value) == message


def test_missing_keys_are_errors_only_when_not_allowed():
    with pytest.raises(jp.JSONPathError, match="^hello is not found$"):
        jp.execute("{.hello}", STORE, allow_missing=False)


@pytest.mark.parametrize("template, message", [
    ("{............................................................Price}", "invalid multiple recursive descent"),
    ("{.items[}", "unterminated array"),
    ("{.a", "unclosed action"),
    ('{.items[?(@.a=="b"}', "unterminated filter"),
    ("{.a[x]}", "invalid array index x"),
    ("{.a}{!}", "unrecognized character in action: U+0021 '!'"),
    ('{"abc}', "unterminated quoted string"),
])
def test_parse_errors(template, message):
    with pytest.raises(jp.JSONPathError) as caught:
        jp.parse(template)
    assert str(caught.value) == message


# --- custom columns (customcolumn_test.go) ---------------------------------------------------------------------------


@pytest.mark.parametrize("given, relaxed", [
    ("foo.bar", "{.foo.bar}"), ("{foo.bar}", "{.foo.bar}"), (".foo.bar", "{.foo.bar}"), ("{.foo.bar}", "{.foo.bar}"), ("", ""),
])
def test_relaxed_jsonpath_expression(given, relaxed):
    assert formats.relaxed_jsonpath(given) == relaxed


@pytest.mark.parametrize("given", ["{foo.bar", "foo.bar}", "{foo.bar}}", "{{foo.bar}"])
def test_relaxed_jsonpath_expression_refuses(given):
    with pytest.raises(OcError):
        formats.relaxed_jsonpath(given)


@pytest.mark.parametrize("spec, message", [
    ("", "custom-columns format specified but no custom columns given"),
    ("invalid", "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>"),
    ("invalid=foobar", "unexpected custom-columns spec: invalid=foobar, expected <header>:<json-path-expr>"),
    ("invalid,foobar:blah", "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>"),
])
def test_custom_columns_spec_errors(spec, message):
    with pytest.raises(OcError) as caught:
        formats.custom_columns(spec, False)
    assert caught.value.message == message


POD_LIST = {"kind": "List", "items": [{"metadata": {"name": "foo"}}, {"metadata": {"name": "bar"}}]}


@pytest.mark.parametrize("spec, obj, expected", [
    ("NAME:{.metadata.name}", {"metadata": {"name": "foo"}}, "NAME\nfoo\n"),
    ("NAME:{.metadata.name}", POD_LIST, "NAME\nfoo\nbar\n"),
    ("NAME:{.metadata.name},API_VERSION:{.apiVersion}", {"metadata": {"name": "foo"}, "apiVersion": "baz"},
     "NAME   API_VERSION\nfoo    baz\n"),
    ("NAME:{.metadata.name},API_VERSION:{.apiVersion},NOT_FOUND:{.notFound}", {"metadata": {"name": "foo"}, "apiVersion": "baz"},
     "NAME   API_VERSION   NOT_FOUND\nfoo    baz           <none>\n"),
    ("NAME:{.metadata.name},LONG COLUMN NAME:{.metadata.labels.label1},LABEL 2:{.metadata.labels.label2}",
     {"kind": "List", "items": [{"metadata": {"name": "foo", "labels": {"label1": "foo", "label2": "foo"}}},
                                {"metadata": {"name": "bar", "labels": {"label1": "bar", "label2": "bar"}}}]},
     "NAME   LONG COLUMN NAME   LABEL 2\nfoo    foo                foo\nbar    bar                bar\n"),
    # TestSliceColumnPrint
    ("CONTAINER:.spec.containers[0].name", FOUR, "CONTAINER\nfake0\n"),
    ("CONTAINER:.spec.containers[3].name", FOUR, "CONTAINER\nfake3\n"),
    ("CONTAINER:.spec.containers[-1].name", FOUR, "CONTAINER\nfake3\n"),
    ("CONTAINER:.spec.containers[-2].name", FOUR, "CONTAINER\nfake2\n"),
    ("CONTAINER:.spec.containers[-4].name", FOUR, "CONTAINER\nfake0\n"),
    ("CONTAINER:.spec.containers[0:0].name", FOUR, "CONTAINER\n<none>\n"),
    ("CONTAINER:.spec.containers[0:3].name", FOUR, "CONTAINER\nfake0,fake1,fake2\n"),
    ("CONTAINER:.spec.containers[1:].name", FOUR, "CONTAINER\nfake1,fake2,fake3\n"),
    ("CONTAINER:.spec.containers[0:-1].name", FOUR, "CONTAINER\nfake0,fake1,fake2\n"),
    ("CONTAINER:.spec.containers[-1:].name", FOUR, "CONTAINER\nfake3\n"),
])
def test_custom_columns_print(spec, obj, expected):
    assert formats.custom_columns(spec, False)(obj) == expected


@pytest.mark.parametrize("spec", ["CONTAINER:.spec.containers[5].name", "CONTAINER:.spec.containers[-5].name",
                                  "CONTAINER:.spec.containers[3:1].name"])
def test_custom_columns_out_of_bounds(spec):
    with pytest.raises(OcError):
        formats.custom_columns(spec, False)(FOUR)


# --- go-template -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("template, data, expected", [
    ("{{.metadata.name}}", {"metadata": {"name": "foo"}}, "foo"),
    ("{{.metadata.missing}}", {"metadata": {"name": "foo"}}, "<no value>"),
    ('{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}', POD_LIST, "foo\nbar\n"),
    ("{{range $i, $p := .items}}{{$i}}={{$p.metadata.name}} {{end}}", POD_LIST, "0=foo 1=bar "),
    ('{{index .metadata.labels "app"}}', {"metadata": {"labels": {"app": "web"}}}, "web"),
    ("{{len .items}}", POD_LIST, "2"),
    ('{{if eq .status.phase "Running"}}up{{else}}down{{end}}', {"status": {"phase": "Running"}}, "up"),
    ('{{if eq .status.phase "Running"}}up{{else if eq .status.phase "Pending"}}wait{{else}}down{{end}}',
     {"status": {"phase": "Pending"}}, "wait"),
    ("{{with .spec.nodeName}}on {{.}}{{else}}unscheduled{{end}}", {"spec": {}}, "unscheduled"),
    ('{{printf "%s has %v" .metadata.name .spec.replicas}}', {"metadata": {"name": "web"}, "spec": {"replicas": 3}}, "web has 3"),
    # encoding/json made every number a float64: %d does not apply
    ('{{printf "%d" .spec.replicas}}', {"spec": {"replicas": 3}}, "%!d(float64=3)"),
    ("{{.metadata.labels}}", {"metadata": {"labels": {"b": "2", "a": "1"}}}, "map[a:1 b:2]"),
    ("{{- range .items }}\n{{ .metadata.name }}\n{{- end }}", POD_LIST, "\nfoo\nbar"),
    ("{{/* a comment */}}x", {}, "x"),
    ("{{.data.token | base64decode}}", {"data": {"token": "aGVsbG8="}}, "hello"),
])
def test_go_template(template, data, expected):
    assert gotemplate.execute(template, data) == expected


@pytest.mark.parametrize("template", ["{{.metadata.name", "{{if .a}}x", "{{end}}", "{{nosuch .a}}x"])
def test_go_template_errors(template):
    with pytest.raises(gotemplate.TemplateError):
        gotemplate.execute(template, {"a": 1})


# --- through oc get --------------------------------------------------------------------------------------------------


def _pods() -> Store:
    a = pod_doc("b-pod", node="node2", labels={"app": "web"}, phase="Running")
    a["metadata"]["creationTimestamp"] = 300
    a["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "500m"}}
    b = pod_doc("a-pod", node="node1", labels={"app": "db"}, phase="Pending")
    b["metadata"]["creationTimestamp"] = 100
    b["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}}
    c = pod_doc("c-pod", node="node1", phase="Running")
    c["metadata"]["creationTimestamp"] = 200
    c["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    return Store([node_doc("node1"), node_doc("node2"), a, b, c])


@pytest.mark.parametrize("command, stdout", [
    ("oc get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,APP:.metadata.labels.app",
     "NAME    NODE    APP\na-pod   node1   db\nb-pod   node2   web\nc-pod   node1   <none>\n"),
    ("oc get pods -o custom-columns=NAME:.metadata.name --no-headers", "a-pod\nb-pod\nc-pod\n"),
    ("oc get pods --sort-by=.metadata.creationTimestamp -o name", "pod/a-pod\npod/c-pod\npod/b-pod\n"),
    ("oc get pods --sort-by={.spec.nodeName} -o name", "pod/a-pod\npod/c-pod\npod/b-pod\n"),
    # strings that are quantities sort as quantities
    ("oc get pods --sort-by=.spec.containers[0].resources.requests.cpu -o name", "pod/c-pod\npod/b-pod\npod/a-pod\n"),
    ("oc get pods -o jsonpath='{range .items[?(@.status.phase==\"Running\")]}{.metadata.name}{\"\\n\"}{end}'", "b-pod\nc-pod\n"),
    ("oc get pod a-pod -o jsonpath={.spec.nodeName}", "node1"),
    ("oc get pods -o go-template='{{range .items}}{{.metadata.name}} {{end}}'", "a-pod b-pod c-pod "),
    ("oc get pods -o jsonpath-as-json={.items[*].metadata.name}", '[\n    "a-pod",\n    "b-pod",\n    "c-pod"\n]\n'),
])
def test_get_template_formats(command, stdout):
    result = oc.run(_pods(), command, 600)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)


@pytest.mark.parametrize("command, stderr", [
    ("oc get pods -o jsonpath={.items[}", "error: error parsing jsonpath {.items[}, unterminated array\n"),
    ("oc get pods -o jsonpath=", "error: template format specified but no template given\n"),
    ("oc get pods --sort-by=.spec.nope", 'error: couldn\'t find any field with path "{.spec.nope}" in the list of objects\n'),
    ("oc get pods -o custom-columns=NAME", "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>\n"),
])
def test_get_template_format_errors(command, stderr):
    result = oc.run(_pods(), command, 600)
    assert (result.stdout, result.stderr, result.exit_code) == ("", stderr, 1)


def test_a_failing_jsonpath_shows_kubectls_debugging_text():
    result = oc.run(_pods(), "oc get pod a-pod -o jsonpath={.spec.containers[3]}", 600)
    assert result.exit_code == 1
    assert result.stderr.startswith('error: error executing jsonpath "{.spec.containers[3]}": Error executing template: '
                                    "array index out of bounds: index 3, length 1. Printing more information for debugging "
                                    "the template:\n\ttemplate was:\n\t\t{.spec.containers[3]}\n\tobject given to jsonpath "
                                    'engine was:\n\t\tmap[string]interface {}{"apiVersion":"v1"')


def test_get_watch_prints_the_table_then_the_changes():
    store = _pods()
    result = oc.run(store, "oc get pods -w", 600)
    assert result.stdout.startswith("NAME    READY   STATUS    RESTARTS   AGE\na-pod") and result.pending["watch"] == "get"
    quiet = get.resume_watch(store, result.pending, 601)
    assert quiet.stdout == "" and quiet.pending["next_due"] == 602
    store.get("Pod", "default", "a-pod")["status"]["phase"] = "Running"
    store.put(pod_doc("d-pod", node="node1", phase="Pending"))
    changed = get.resume_watch(store, quiet.pending, 602)
    lines = changed.stdout.splitlines()
    assert [line.split()[:3] for line in lines] == [["a-pod", "1/1", "Running"], ["d-pod", "0/1", "Pending"]]
    only = oc.run(Store([]), "oc get pods --watch-only", 600)
    assert (only.stdout, only.stderr, only.pending is not None) == ("", "", True)
    assert oc.run(store, "oc get pods,nodes -w", 600).stderr == (
        "error: watch is only supported on individual resources and resource collections, but 2 resources were found\n")
