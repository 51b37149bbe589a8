"""API-server validation: the exact messages `oc create` would get back from a
Kubernetes 1.11 / OpenShift 3.11 API server."""

import pytest
import yaml

from scheduling.engine.api.validation import (
    DECODE_ERROR,
    FieldError,
    GoValue,
    InvalidError,
    SUPPORTED_KINDS,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate,
    validate_or_raise,
    validate_taint_effect,
    validate_taints,
    validate_tolerations,
)

# --------------------------------------------------------------------------
# The long messages, spelled out once (note the two spaces before each "or")
# --------------------------------------------------------------------------

QNAME_EXAMPLES = (
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
    "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
NAME_PART_FORMAT = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character " + QNAME_EXAMPLES
)
THREE_PARTS = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character " + QNAME_EXAMPLES
    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
LABEL_VALUE_FORMAT = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN_FORMAT = (
    "a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS_LABEL_FORMAT = (
    "a DNS-1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_FORMAT = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character "
    "(e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
EFFECTS = 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


# --------------------------------------------------------------------------
# Tiny builders
# --------------------------------------------------------------------------


def node(name="n1", taints=None, capacity=None, **metadata):
    doc = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, **metadata}, "spec": {}}
    if taints is not None:
        doc["spec"]["taints"] = taints
    if capacity is not None:
        doc["status"] = {"capacity": capacity}
    return doc


def container(name="app", image="registry/app:1", requests=None, limits=None, ports=None):
    c = {"name": name, "image": image}
    if requests is not None or limits is not None:
        c["resources"] = {}
        if limits is not None:
            c["resources"]["limits"] = limits
        if requests is not None:
            c["resources"]["requests"] = requests
    if ports is not None:
        c["ports"] = ports
    return c


def pod(name="p", containers=None, labels=None, **spec):
    meta = {"name": name, "namespace": "default"}
    if labels is not None:
        meta["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [container()] if containers is None else containers, **spec},
    }


def template(labels=None, **spec):
    meta = {} if labels is None else {"labels": labels}
    return {"metadata": meta, "spec": {"containers": [container()], **spec}}


def workload(kind, api_version="apps/v1", name="web", selector=None, tmpl=None, **spec):
    doc = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": "default"}, "spec": dict(spec)}
    if selector is not None:
        doc["spec"]["selector"] = selector
    doc["spec"]["template"] = template({"app": "web"}) if tmpl is None else tmpl
    return doc


def refusal(doc):
    """What the API server answers, or "accepted"."""
    try:
        validate_or_raise(doc)
    except InvalidError as err:
        return str(err)
    return "accepted"


# --------------------------------------------------------------------------
# Name and label formats
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, messages",
    [
        pytest.param("dedicated", [], id="a plain key is a qualified name"),
        pytest.param("example.com/MyKey", [], id="the name part may contain upper case"),
        pytest.param("a" * 63, [], id="a 63 character name part is allowed"),
        pytest.param("a" * 253 + "/k", [], id="a 253 character prefix is allowed"),
        pytest.param("a" * 64, ["name part must be no more than 63 characters"], id="a 64 character name part is too long"),
        pytest.param(
            "a" * 254 + "/k",
            ["prefix part must be no more than 253 characters"],
            id="a 254 character prefix is too long",
        ),
        pytest.param("Example.com/key", ["prefix part " + SUBDOMAIN_FORMAT], id="an upper-case prefix is refused"),
        pytest.param("/key", ["prefix part must be non-empty"], id="an empty prefix is refused"),
        pytest.param("a/b/c", [THREE_PARTS], id="three parts give a single qualified name message"),
        pytest.param("-key", [NAME_PART_FORMAT], id="a name part may not start with a dash"),
        pytest.param(
            "example.com/",
            ["name part must be non-empty", NAME_PART_FORMAT],
            id="an empty name part fails both the emptiness and the format check",
        ),
    ],
)
def test_qualified_names(key, messages):
    assert is_qualified_name(key) == messages


@pytest.mark.parametrize(
    "value, messages",
    [
        pytest.param("", [], id="an empty label value is allowed"),
        pytest.param("My_value-1.0", [], id="letters digits dashes underscores and dots are allowed"),
        pytest.param("a" * 64, ["must be no more than 63 characters"], id="a 64 character value is too long"),
        pytest.param("with space", [LABEL_VALUE_FORMAT], id="a space is refused"),
        pytest.param(
            "-" * 64,
            ["must be no more than 63 characters", LABEL_VALUE_FORMAT],
            id="a long badly formed value gets both messages",
        ),
    ],
)
def test_label_values(value, messages):
    assert is_valid_label_value(value) == messages


def test_dns_name_formats():
    assert is_dns1123_subdomain("node-1.example.com") == []
    assert is_dns1123_subdomain("Node_1") == [SUBDOMAIN_FORMAT]
    assert is_dns1123_label("my.ns") == [DNS_LABEL_FORMAT]
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]
    assert is_dns1035_label("1svc") == [DNS1035_FORMAT]
    assert is_dns1035_label("svc-1") == []


# --------------------------------------------------------------------------
# Taints (Node.spec.taints; upstream reports them at metadata.taints)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "taints, expected",
    [
        pytest.param(
            [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
            "accepted",
            id="a well formed taint is accepted",
        ),
        pytest.param(
            [{"key": "k", "value": "v", "effect": "NoExcute"}],
            'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "NoExcute": ' + EFFECTS,
            id="taint with an unknown effect is refused",
        ),
        pytest.param(
            [{"key": "k", "value": "v"}],
            'Node "n1" is invalid: metadata.taints[0].effect: Required value',
            id="taint without an effect is refused",
        ),
        pytest.param(
            [{"key": "a" * 254 + "/k", "effect": "NoSchedule"}],
            f'Node "n1" is invalid: metadata.taints[0].key: Invalid value: "{"a" * 254}/k": '
            "prefix part must be no more than 253 characters",
            id="taint key prefix longer than 253 is refused",
        ),
        pytest.param(
            [{"key": "k" * 64, "effect": "NoSchedule"}],
            f'Node "n1" is invalid: metadata.taints[0].key: Invalid value: "{"k" * 64}": '
            "name part must be no more than 63 characters",
            id="taint key name part longer than 63 is refused",
        ),
        pytest.param(
            [{"key": "Example.com/gpu", "effect": "NoSchedule"}],
            'Node "n1" is invalid: metadata.taints[0].key: Invalid value: "Example.com/gpu": prefix part '
            + SUBDOMAIN_FORMAT,
            id="taint key with an upper-case prefix is refused",
        ),
        pytest.param(
            [{"key": "/gpu", "effect": "NoSchedule"}],
            'Node "n1" is invalid: metadata.taints[0].key: Invalid value: "/gpu": prefix part must be non-empty',
            id="taint key with an empty prefix is refused",
        ),
        pytest.param(
            [{"key": "a/b/c", "effect": "NoSchedule"}],
            'Node "n1" is invalid: metadata.taints[0].key: Invalid value: "a/b/c": ' + THREE_PARTS,
            id="taint key with three parts is refused",
        ),
        pytest.param(
            [{"key": "example.com/GPU-Type", "effect": "NoSchedule"}],
            "accepted",
            id="taint key name part may contain upper case",
        ),
        pytest.param(
            [{"key": "k", "value": "v" * 64, "effect": "NoSchedule"}],
            f'Node "n1" is invalid: metadata.taints[0].value: Invalid value: "{"v" * 64}": '
            "must be no more than 63 characters",
            id="taint value longer than 63 is refused",
        ),
        pytest.param(
            [{"key": "k", "value": "-" * 64, "effect": "NoSchedule"}],
            f'Node "n1" is invalid: metadata.taints[0].value: Invalid value: "{"-" * 64}": '
            "must be no more than 63 characters;" + LABEL_VALUE_FORMAT,
            id="taint value messages are joined with a semicolon",
        ),
        pytest.param(
            [
                {"key": "k", "value": "v", "effect": "NoSchedule"},
                {"key": "k", "value": "v2", "effect": "NoSchedule"},
            ],
            'Node "n1" is invalid: metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"v2", '
            'Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
            id="two taints with the same key and effect are refused",
        ),
        pytest.param(
            [
                {"key": "dedicated", "value": "a", "effect": "NoSchedule"},
                {"key": "dedicated", "value": "a", "effect": "PreferNoSchedule"},
            ],
            "accepted",
            id="the same key with two different effects is accepted",
        ),
    ],
)
def test_node_taints(taints, expected):
    assert refusal(node(taints=taints)) == expected


def test_taints_can_be_checked_alone_for_the_cli():
    errors = validate_taints([{"key": "k", "value": "v", "effect": "NoExcute"}], "spec.taints")
    assert [str(e) for e in errors] == ['spec.taints[0].effect: Unsupported value: "NoExcute": ' + EFFECTS]
    assert validate_taint_effect("", False, "effect") == [FieldError("Required value", "effect", "", "")]
    assert validate_taint_effect("", True, "effect") == [FieldError("Unsupported value", "effect", "", EFFECTS)]


# --------------------------------------------------------------------------
# Tolerations: every rule of ValidateTolerations
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "toleration, expected",
    [
        pytest.param(
            {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
            "accepted",
            id="an Equal toleration is accepted",
        ),
        pytest.param({"operator": "Exists"}, "accepted", id="an empty key with Exists tolerates everything"),
        pytest.param({"key": "k", "operator": "Exists"}, "accepted", id="an empty effect matches all effects"),
        pytest.param(
            {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            "accepted",
            id="tolerationSeconds with NoExecute is accepted",
        ),
        pytest.param(
            {"key": "a/b/c", "operator": "Exists"},
            'Pod "p" is invalid: spec.tolerations[0].key: Invalid value: "a/b/c": ' + THREE_PARTS,
            id="a toleration key must be a qualified name",
        ),
        pytest.param(
            {"operator": "Equal", "value": "v"},
            'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
            'when `key` is empty, which means "match all values and all keys"',
            id="an empty key needs the Exists operator",
        ),
        pytest.param(
            {"effect": "NoSchedule"},
            'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: "": operator must be Exists '
            'when `key` is empty, which means "match all values and all keys"',
            id="an empty key with no operator is refused",
        ),
        pytest.param(
            {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 60},
            'Pod "p" is invalid: spec.tolerations[0].effect: Invalid value: "NoSchedule": '
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
            id="tolerationSeconds needs the NoExecute effect",
        ),
        pytest.param(
            {"key": "k", "operator": "Equal", "value": "bad value"},
            'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: "bad value": ' + LABEL_VALUE_FORMAT,
            id="an Equal value must be a label value and is reported on the operator",
        ),
        pytest.param(
            {"key": "k", "value": "v" * 64},
            f'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: "{"v" * 64}": '
            "must be no more than 63 characters",
            id="an empty operator means Equal so the value is checked",
        ),
        pytest.param(
            {"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule"},
            'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"k", '
            'Operator:"Exists", Value:"v", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}: '
            "value must be empty when `operator` is 'Exists'",
            id="an Exists toleration with a value is refused with the whole toleration shown",
        ),
        pytest.param(
            {"key": "k", "operator": "In", "value": "v"},
            'Pod "p" is invalid: spec.tolerations[0].operator: Unsupported value: "In": '
            'supported values: "Equal", "Exists"',
            id="an unknown operator is refused",
        ),
        pytest.param(
            {"key": "k", "operator": "Exists", "effect": "NoExcute"},
            'Pod "p" is invalid: spec.tolerations[0].effect: Unsupported value: "NoExcute": ' + EFFECTS,
            id="an unknown effect is refused",
        ),
    ],
)
def test_pod_tolerations(toleration, expected):
    assert refusal(pod(tolerations=[toleration])) == expected


def test_tolerations_can_be_checked_alone():
    errors = validate_tolerations([{"key": "k", "operator": "Foo"}], "spec.template.spec.tolerations")
    assert [str(e) for e in errors] == [
        'spec.template.spec.tolerations[0].operator: Unsupported value: "Foo": supported values: "Equal", "Exists"'
    ]


# --------------------------------------------------------------------------
# YAML typing: values that are not strings fail to decode
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p, labels: {gpu: true}}\nspec: {containers: [{name: c, image: i}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
            "ObjectMeta.metadata.labels of type string",
            id="a YAML boolean label value is refused by the decoder",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p, labels: {enabled: yes}}\nspec: {containers: [{name: c, image: i}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
            "ObjectMeta.metadata.labels of type string",
            id="a YAML 1.1 yes is a boolean too",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p, labels: {version: 2}}\nspec: {containers: [{name: c, image: i}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field '
            "ObjectMeta.metadata.labels of type string",
            id="a YAML integer label value is refused by the decoder",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p, annotations: {ready: false}}\nspec: {containers: [{name: c, image: i}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
            "ObjectMeta.metadata.annotations of type string",
            id="a YAML boolean annotation is refused by the decoder",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {nodeSelector: {ssd: true}, containers: [{name: c, image: i}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
            "PodSpec.spec.nodeSelector of type string",
            id="a YAML boolean node selector value is refused by the decoder",
        ),
        pytest.param(
            "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nspec: {taints: [{key: k, value: 1, effect: NoSchedule}]}",
            'Node in version "v1" cannot be handled as a Node: json: cannot unmarshal number into Go struct field '
            "Taint.spec.taints.value of type string",
            id="a numeric taint value is refused by the decoder",
        ),
        pytest.param(
            "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: true}]}",
            'Node in version "v1" cannot be handled as a Node: json: cannot unmarshal bool into Go struct field '
            "Taint.spec.taints.effect of type v1.TaintEffect",
            id="a boolean taint effect names the effect type",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p}\n"
            "spec: {containers: [{name: c, image: i}], tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: '300'}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field '
            "Toleration.spec.tolerations.tolerationSeconds of type int64",
            id="quoted tolerationSeconds are refused by the decoder",
        ),
        pytest.param(
            "kind: Pod\napiVersion: v1\nmetadata: {name: p}\n"
            "spec: {containers: [{name: c, image: i}], tolerations: [{key: on, operator: Exists}]}",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
            "Toleration.spec.tolerations.key of type string",
            id="a toleration key spelled on is a YAML boolean",
        ),
        pytest.param(
            "kind: Deployment\napiVersion: apps/v1\nmetadata: {name: d}\nspec: {replicas: 1.5}",
            'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into '
            "Go struct field DeploymentSpec.spec.replicas of type int32",
            id="a fractional replica count is refused by the decoder",
        ),
        pytest.param(
            "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nspec: {unschedulable: 'true'}",
            'Node in version "v1" cannot be handled as a Node: json: cannot unmarshal string into Go struct field '
            "NodeSpec.spec.unschedulable of type bool",
            id="a quoted unschedulable flag is refused by the decoder",
        ),
        pytest.param(
            "kind: Node\napiVersion: v1\nmetadata: {name: n1, labels: {created: 2018-10-11}}",
            "accepted",
            id="an unquoted date label stays a string as kubectl sends it",
        ),
    ],
)
def test_yaml_values_of_the_wrong_type(text, expected):
    assert refusal(yaml.safe_load(text)) == expected


def test_a_decode_error_is_reported_alone_with_its_field():
    doc = yaml.safe_load(
        "kind: Pod\napiVersion: v1\nmetadata: {name: BAD, labels: {a: true, b: 1}}\nspec: {containers: []}"
    )
    [error] = validate(doc)
    assert error.type == DECODE_ERROR
    assert error.field == "metadata.labels"
    assert str(error) == error.body() == (
        "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"
    )
    with pytest.raises(InvalidError) as raised:
        validate_or_raise(doc)
    assert raised.value.reason == "BadRequest"
    assert raised.value.code == 400


# --------------------------------------------------------------------------
# Labels, names and metadata
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc, expected",
    [
        pytest.param(
            pod(name=""),
            'Pod "" is invalid: metadata.name: Required value: name or generateName is required',
            id="a pod without a name is refused",
        ),
        pytest.param(
            pod(name="My_Pod"),
            'Pod "My_Pod" is invalid: metadata.name: Invalid value: "My_Pod": ' + SUBDOMAIN_FORMAT,
            id="a pod name must be a DNS subdomain",
        ),
        pytest.param(
            node(name="n" * 254),
            f'Node "{"n" * 254}" is invalid: metadata.name: Invalid value: "{"n" * 254}": '
            "must be no more than 253 characters",
            id="a node name longer than 253 is refused",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "my.ns"}},
            'Namespace "my.ns" is invalid: metadata.name: Invalid value: "my.ns": ' + DNS_LABEL_FORMAT,
            id="a namespace name must be a DNS label",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "1svc"},
                "spec": {"ports": [{"port": 80}]},
            },
            'Service "1svc" is invalid: metadata.name: Invalid value: "1svc": ' + DNS1035_FORMAT,
            id="a service name must start with a letter",
        ),
        pytest.param(
            {**pod(), "metadata": {"name": "p", "namespace": "Prod"}},
            'Pod "p" is invalid: metadata.namespace: Invalid value: "Prod": ' + DNS_LABEL_FORMAT,
            id="a namespace given in metadata must be a DNS label",
        ),
        pytest.param(
            {**pod(), "metadata": {"generateName": "web-"}},
            "accepted",
            id="a generateName with a trailing dash replaces the name",
        ),
        pytest.param(
            pod(labels={"bad key": "v"}),
            'Pod "p" is invalid: metadata.labels: Invalid value: "bad key": ' + NAME_PART_FORMAT,
            id="a label key is reported at the labels map",
        ),
        pytest.param(
            pod(labels={"app": "web server"}),
            'Pod "p" is invalid: metadata.labels: Invalid value: "web server": ' + LABEL_VALUE_FORMAT,
            id="a label value is reported at the labels map",
        ),
        pytest.param(
            pod(nodeSelector={"disk": "fast ssd"}),
            'Pod "p" is invalid: spec.nodeSelector: Invalid value: "fast ssd": ' + LABEL_VALUE_FORMAT,
            id="a node selector value must be a label value",
        ),
        pytest.param(
            pod(nodeSelector={"a/b/c": "x"}),
            'Pod "p" is invalid: spec.nodeSelector: Invalid value: "a/b/c": ' + THREE_PARTS,
            id="a node selector key must be a qualified name",
        ),
        pytest.param(
            pod(nodeName="Node_1"),
            'Pod "p" is invalid: spec.nodeName: Invalid value: "Node_1": ' + SUBDOMAIN_FORMAT,
            id="a node name in the pod spec must be a DNS subdomain",
        ),
    ],
)
def test_names_and_labels(doc, expected):
    assert refusal(doc) == expected


def test_several_errors_are_aggregated_in_brackets():
    doc = pod(name="Bad_Name", labels={"app": "a b"}, tolerations=[{"operator": "Equal"}])
    assert refusal(doc) == (
        'Pod "Bad_Name" is invalid: ['
        'metadata.name: Invalid value: "Bad_Name": ' + SUBDOMAIN_FORMAT + ", "
        'metadata.labels: Invalid value: "a b": ' + LABEL_VALUE_FORMAT + ", "
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
        'which means "match all values and all keys"]'
    )


def test_identical_messages_appear_once_in_the_aggregate():
    doc = pod(containers=[container(name=""), container(name="")])
    assert len(validate(doc)) == 3
    assert refusal(doc) == (
        'Pod "p" is invalid: [spec.containers[0].name: Required value, '
        'spec.containers[1].name: Required value, spec.containers[1].name: Duplicate value: ""]'
    )


# --------------------------------------------------------------------------
# Containers, resources and ports
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "containers, expected",
    [
        pytest.param(
            [container(requests={"cpu": "500m", "memory": "128Mi"}, limits={"cpu": "1", "memory": "256Mi"})],
            "accepted",
            id="requests within limits are accepted",
        ),
        pytest.param(
            [container(requests={"cpu": "2"}, limits={"cpu": "1"})],
            'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": '
            "must be less than or equal to cpu limit",
            id="requests above limits are refused at the requests map",
        ),
        pytest.param(
            [container(requests={"cpu": 1.5}, limits={"cpu": 1})],
            'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "1500m": '
            "must be less than or equal to cpu limit",
            id="the request is shown in canonical form",
        ),
        pytest.param(
            [container(requests={"memory": "-1"})],
            'Pod "p" is invalid: spec.containers[0].resources.requests[memory]: Invalid value: "-1": '
            "must be greater than or equal to 0",
            id="a negative request is refused",
        ),
        pytest.param(
            [container(requests={"cpu": "abc"})],
            'Pod "p" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "abc": ' + QUANTITY_FORMAT,
            id="a malformed quantity is refused with the quantity message",
        ),
        pytest.param(
            [container(limits={"memory": "6GiB"})],
            'Pod "p" is invalid: spec.containers[0].resources.limits[memory]: Invalid value: "6GiB": ' + QUANTITY_FORMAT,
            id="a memory limit written as GiB is refused",
        ),
        pytest.param(
            [container(requests={"cpu": "2K"})],
            'Pod "p" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "2K": '
            "unable to parse quantity's suffix",
            id="an upper-case K suffix is refused",
        ),
        pytest.param(
            [container(requests={"cpu": True})],
            'Pod "p" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: true: ' + QUANTITY_FORMAT,
            id="a boolean quantity is refused",
        ),
        pytest.param(
            [container(requests={"cpu": "0.1m"}, limits={"cpu": "1m"})],
            "accepted",
            id="a request finer than a milli is rounded up before comparing",
        ),
        pytest.param(
            [container(requests={"gpu": "1"})],
            'Pod "p" is invalid: [spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": '
            "must be a standard resource type or fully qualified, "
            'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": '
            "must be a standard resource for containers]",
            id="an unqualified unknown resource is refused twice",
        ),
        pytest.param(
            [container(requests={"nvidia.com/gpu": "0.5"}, limits={"nvidia.com/gpu": "0.5"})],
            'Pod "p" is invalid: [spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: '
            'resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, '
            's:"", Format:"DecimalSI"}: must be an integer, '
            "spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
            'resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, '
            's:"", Format:"DecimalSI"}: must be an integer]',
            id="an extended resource must be a whole number",
        ),
        pytest.param(
            [container(requests={"nvidia.com/gpu": "1"})],
            'Pod "p" is invalid: spec.containers[0].resources.limits: Required value: '
            "Limit must be set for non overcommitable resources",
            id="an extended resource needs a limit",
        ),
        pytest.param(
            [container(requests={"nvidia.com/gpu": "1"}, limits={"nvidia.com/gpu": "2"})],
            'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "1": '
            "must be equal to nvidia.com/gpu limit",
            id="an extended resource request must equal its limit",
        ),
        pytest.param(
            [],
            'Pod "p" is invalid: spec.containers: Required value',
            id="a pod needs at least one container",
        ),
        pytest.param(
            [container(name="web"), container(name="web")],
            'Pod "p" is invalid: spec.containers[1].name: Duplicate value: "web"',
            id="container names must be unique",
        ),
        pytest.param(
            [container(name="Web")],
            'Pod "p" is invalid: spec.containers[0].name: Invalid value: "Web": ' + DNS_LABEL_FORMAT,
            id="a container name must be a DNS label",
        ),
        pytest.param(
            [container(image="")],
            'Pod "p" is invalid: spec.containers[0].image: Required value',
            id="a container needs an image",
        ),
        pytest.param(
            [container(ports=[{"containerPort": 70000}])],
            'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: '
            "must be between 1 and 65535, inclusive",
            id="a container port above 65535 is refused",
        ),
        pytest.param(
            [container(ports=[{"containerPort": 80, "hostPort": -1}])],
            'Pod "p" is invalid: spec.containers[0].ports[0].hostPort: Invalid value: -1: '
            "must be between 1 and 65535, inclusive",
            id="a negative host port is refused",
        ),
        pytest.param(
            [container(ports=[{"hostPort": 80}])],
            'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Required value',
            id="a port needs a container port",
        ),
        pytest.param(
            [container(ports=[{"containerPort": 80, "protocol": "SCTP"}])],
            'Pod "p" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: "SCTP": '
            'supported values: "TCP", "UDP"',
            id="SCTP did not exist before Kubernetes 1.12",
        ),
        pytest.param(
            [
                container(name="a", ports=[{"containerPort": 80, "hostPort": 8080}]),
                container(name="b", ports=[{"containerPort": 81, "hostPort": 8080}]),
            ],
            'Pod "p" is invalid: spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
            id="two containers cannot claim the same host port",
        ),
    ],
)
def test_containers(containers, expected):
    assert refusal(pod(containers=containers)) == expected


def test_init_containers_are_checked_like_containers_and_share_the_name_space():
    doc = pod(initContainers=[container(name="app", requests={"cpu": "-1"})])
    assert refusal(doc) == (
        'Pod "p" is invalid: [spec.initContainers[0].resources.requests[cpu]: Invalid value: "-1": '
        'must be greater than or equal to 0, spec.initContainers[0].name: Duplicate value: "app"]'
    )


def test_host_network_ports_must_match():
    doc = pod(hostNetwork=True, containers=[container(ports=[{"containerPort": 80, "hostPort": 8080}])])
    assert refusal(doc) == (
        'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 80: '
        "must match `hostPort` when `hostNetwork` is true"
    )


def test_node_capacity_quantities_are_checked():
    assert refusal(node(capacity={"cpu": "-4", "memory": "16Gi", "pods": "110"})) == (
        'Node "n1" is invalid: status.capacity.cpu: Invalid value: "-4": must be greater than or equal to 0'
    )


# --------------------------------------------------------------------------
# Affinity
# --------------------------------------------------------------------------

REQUIRED_NA = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED_NA = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"


def node_affinity_term(*expressions):
    return {"matchExpressions": list(expressions)}


@pytest.mark.parametrize(
    "affinity, expected",
    [
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [node_affinity_term({"key": "zone", "operator": "In", "values": ["a"]})]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 100, "preference": node_affinity_term({"key": "ssd", "operator": "Exists"})}
                    ],
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                },
            },
            "accepted",
            id="well formed node and pod affinity are accepted",
        ),
        pytest.param(
            {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms: Required value: '
            "must have at least one node selector term",
            id="required node affinity needs a term",
        ),
        pytest.param(
            {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}},
            "accepted",
            id="an empty node selector term is allowed since 1.11",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [node_affinity_term({"key": "zone", "operator": "In"})]
                    }
                }
            },
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: '
            "must be specified when `operator` is 'In' or 'NotIn'",
            id="an In requirement needs values",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [node_affinity_term({"key": "ssd", "operator": "Exists", "values": ["x"]})]
                    }
                }
            },
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: '
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            id="an Exists requirement may not have values",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            node_affinity_term({"key": "cores", "operator": "Gt", "values": ["4", "8"]})
                        ]
                    }
                }
            },
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: '
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
            id="a Gt requirement needs exactly one value",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [node_affinity_term({"key": "zone", "operator": "Equals", "values": ["a"]})]
                    }
                }
            },
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms[0].matchExpressions[0].operator: '
            'Invalid value: "Equals": not a valid selector operator',
            id="an unknown node selector operator is refused",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["x"]}]}]
                    }
                }
            },
            f'Pod "p" is invalid: {REQUIRED_NA}.nodeSelectorTerms[0].matchFields[0].key: '
            'Invalid value: "metadata.uid": not a valid field selector key',
            id="match fields only know the node name",
        ),
        pytest.param(
            {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 0, "preference": node_affinity_term({"key": "ssd", "operator": "Exists"})}
                    ]
                }
            },
            f'Pod "p" is invalid: {PREFERRED_NA}[0].weight: Invalid value: 0: must be in the range 1-100',
            id="a preferred node term needs a weight from 1 to 100",
        ),
        pytest.param(
            {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "db"}}}]
                }
            },
            'Pod "p" is invalid: ['
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            "Required value: can not be empty, "
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            'Invalid value: "": name part must be non-empty, '
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            'Invalid value: "": ' + NAME_PART_FORMAT + "]",
            id="a required pod affinity term needs a topology key",
        ),
        pytest.param(
            {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 101,
                            "podAffinityTerm": {
                                "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Is", "values": ["x"]}]},
                                "topologyKey": "kubernetes.io/hostname",
                            },
                        }
                    ]
                }
            },
            'Pod "p" is invalid: ['
            "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
            "Invalid value: 101: must be in the range 1-100, "
            "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm"
            '.matchExpressions.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator]',
            id="a preferred pod anti affinity term checks weight and selector",
        ),
    ],
)
def test_affinity(affinity, expected):
    assert refusal(pod(affinity=affinity)) == expected


# --------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc, expected",
    [
        pytest.param(
            workload("Deployment", selector={"matchLabels": {"app": "web"}}, replicas=3),
            "accepted",
            id="a deployment whose selector matches its template is accepted",
        ),
        pytest.param(
            workload("Deployment"),
            'Deployment.apps "web" is invalid: [spec.selector: Required value, '
            'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
            "`selector` does not match template `labels`]",
            id="an apps/v1 deployment without a selector is refused",
        ),
        pytest.param(
            workload("Deployment", api_version="extensions/v1beta1"),
            "accepted",
            id="an extensions/v1beta1 deployment defaults its selector from the template",
        ),
        pytest.param(
            workload("Deployment", selector={"matchLabels": {"app": "api"}}),
            'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"web"}: `selector` does not match template `labels`',
            id="a deployment selector that does not match the template is refused",
        ),
        pytest.param(
            workload("Deployment", selector={}),
            'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{'
            "MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
            "empty selector is invalid for deployment",
            id="an empty deployment selector is refused",
        ),
        pytest.param(
            workload("Deployment", selector={"matchLabels": {"app": "web"}}, replicas=-1),
            'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
            id="negative replicas are refused",
        ),
        pytest.param(
            workload(
                "Deployment",
                selector={"matchLabels": {"app": "web"}},
                tmpl=template({"app": "web"}, tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExcute"}]),
            ),
            'Deployment.apps "web" is invalid: spec.template.spec.tolerations[0].effect: Unsupported value: '
            '"NoExcute": ' + EFFECTS,
            id="the pod template is validated under spec.template.spec",
        ),
        pytest.param(
            workload("Deployment", selector={"matchLabels": {"app": "web"}}, tmpl=template({"app": "web", "x": "a b"})),
            'Deployment.apps "web" is invalid: spec.template.labels: Invalid value: "a b": ' + LABEL_VALUE_FORMAT,
            id="template labels are reported at spec.template.labels",
        ),
        pytest.param(
            workload(
                "Deployment",
                selector={"matchLabels": {"app": "web"}},
                strategy={"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}},
            ),
            'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: '
            'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
            id="a rolling update cannot have both maxUnavailable and maxSurge at zero",
        ),
        pytest.param(
            workload("ReplicaSet", selector={"matchLabels": {"app": "api"}}),
            'ReplicaSet.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"web"}: `selector` does not match template `labels`',
            id="a replica set selector must match its template",
        ),
        pytest.param(
            workload(
                "StatefulSet",
                selector={"matchLabels": {"app": "web"}},
                tmpl=template({"app": "web"}, tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExcute"}]),
            ),
            "accepted",
            id="a statefulset pod template spec is not validated in 1.11",
        ),
        pytest.param(
            workload("StatefulSet", selector={"matchLabels": {"app": "web"}}, podManagementPolicy="Random"),
            'StatefulSet.apps "web" is invalid: spec.podManagementPolicy: Invalid value: "Random": '
            "must be 'OrderedReady' or 'Parallel'",
            id="a statefulset pod management policy must be known",
        ),
        pytest.param(
            workload("DaemonSet", selector={"matchLabels": {"app": "web"}}, tmpl=template({"app": "web"}, restartPolicy="Never")),
            'DaemonSet.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": '
            'supported values: "Always"',
            id="a daemonset pod must restart always",
        ),
        pytest.param(
            workload("DaemonSet"),
            'DaemonSet.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"web"}: `selector` does not match template `labels`',
            id="an apps/v1 daemonset without a selector matches nothing",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "ReplicationController",
                "metadata": {"name": "rc", "namespace": "default"},
                "spec": {"replicas": 2, "template": template({"app": "web"})},
            },
            "accepted",
            id="a replication controller defaults its selector from the template",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "ReplicationController",
                "metadata": {"name": "rc", "namespace": "default"},
                "spec": {"selector": {"app": "api"}, "template": template({"app": "web"})},
            },
            'ReplicationController "rc" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"web"}: `selector` does not match template `labels`',
            id="a replication controller selector must match its template",
        ),
    ],
)
def test_workloads(doc, expected):
    assert refusal(doc) == expected


# --------------------------------------------------------------------------
# PriorityClass, PodDisruptionBudget, storage, services
# --------------------------------------------------------------------------


def priority_class(name, value, **extra):
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value, **extra}


def pdb(name="web", **spec):
    return {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize(
    "doc, expected",
    [
        pytest.param(priority_class("high", 1000000000), "accepted", id="a user priority of one billion is allowed"),
        pytest.param(
            priority_class("high", 1000000001),
            'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: '
            "maximum allowed value of a user defined priority is 1000000000",
            id="a user priority above one billion is refused",
        ),
        pytest.param(
            priority_class("system-critical", 10),
            'PriorityClass.scheduling.k8s.io "system-critical" is invalid: metadata.name: Forbidden: '
            "priority class names with 'system-' prefix are reserved for system use only. "
            "error: system-critical is not a known system priority class",
            id="the system- prefix is reserved",
        ),
        pytest.param(
            priority_class("system-cluster-critical", 2000000000),
            "accepted",
            id="a known system priority class with its value is accepted",
        ),
        pytest.param(
            priority_class("system-node-critical", 5),
            'PriorityClass.scheduling.k8s.io "system-node-critical" is invalid: metadata.name: Forbidden: '
            "priority class names with 'system-' prefix are reserved for system use only. "
            "error: value of system-node-critical PriorityClass must be 2000001000",
            id="a system priority class must keep its value",
        ),
        pytest.param(
            pdb(minAvailable=1, maxUnavailable="50%", selector={"matchLabels": {"app": "web"}}),
            'PodDisruptionBudget.policy "web" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{'
            "MinAvailable:(*intstr.IntOrString)(0xc420000000), Selector:(*v1.LabelSelector)(0xc420000000), "
            "MaxUnavailable:(*intstr.IntOrString)(0xc420000000)}: minAvailable and maxUnavailable cannot be both set",
            id="a disruption budget cannot set both minAvailable and maxUnavailable",
        ),
        pytest.param(
            pdb(minAvailable="half"),
            'PodDisruptionBudget.policy "web" is invalid: spec.minAvailable: Invalid value: '
            'intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string '
            "followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
            id="a disruption budget percentage needs a percent sign",
        ),
        pytest.param(
            pdb(maxUnavailable="150%"),
            'PodDisruptionBudget.policy "web" is invalid: spec.maxUnavailable: Invalid value: '
            'intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
            id="a disruption budget percentage cannot exceed 100",
        ),
        pytest.param(
            pdb(name="Web_Budget", minAvailable=1),
            "accepted",
            id="a disruption budget name only has to be a path segment",
        ),
        pytest.param(
            pdb(name="a/b", minAvailable=1),
            "PodDisruptionBudget.policy \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'",
            id="a disruption budget name may not contain a slash",
        ),
    ],
)
def test_priority_classes_and_disruption_budgets(doc, expected):
    assert refusal(doc) == expected


def pv(**spec):
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"}, "spec": spec}


def pvc(**spec):
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    "doc, expected",
    [
        pytest.param(
            pv(capacity={"storage": "10Gi"}, accessModes=["ReadWriteOnce"], hostPath={"path": "/data"}),
            "accepted",
            id="a host path volume is accepted",
        ),
        pytest.param(
            pv(capacity={"storage": "10Gi"}, accessModes=["ReadWriteSometimes"], nfs={"server": "nfs", "path": "/x"}),
            'PersistentVolume "pv1" is invalid: spec.accessModes: Unsupported value: "ReadWriteSometimes": '
            'supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"',
            id="an unknown access mode is refused",
        ),
        pytest.param(
            pv(accessModes=["ReadWriteOnce"], hostPath={"path": "/data"}),
            'PersistentVolume "pv1" is invalid: [spec.capacity: Required value, '
            'spec.capacity: Unsupported value: core.ResourceList{}: supported values: "storage"]',
            id="a volume needs a storage capacity",
        ),
        pytest.param(
            pv(capacity={"storage": "10Gi"}, accessModes=["ReadWriteOnce"]),
            'PersistentVolume "pv1" is invalid: spec: Required value: must specify a volume type',
            id="a volume needs a source",
        ),
        pytest.param(
            pv(capacity={"storage": "10Gi"}, accessModes=["ReadWriteOnce"], local={"path": "/mnt/disk"}),
            'PersistentVolume "pv1" is invalid: metadata.annotations: Required value: Local volume requires node affinity',
            id="a local volume needs node affinity",
        ),
        pytest.param(
            pvc(accessModes=["ReadWriteOnce"], resources={"requests": {"storage": "1Gi"}}),
            "accepted",
            id="a claim with a storage request is accepted",
        ),
        pytest.param(
            pvc(accessModes=["ReadWriteOnce"]),
            'PersistentVolumeClaim "data" is invalid: spec.resources[storage]: Required value',
            id="a claim needs a storage request",
        ),
        pytest.param(
            pvc(resources={"requests": {"storage": "0"}}),
            'PersistentVolumeClaim "data" is invalid: [spec.accessModes: Required value: '
            'at least 1 access mode is required, spec.resources[storage]: Invalid value: "0": must be greater than zero]',
            id="a claim needs an access mode and a positive size",
        ),
        pytest.param(
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"}},
            'StorageClass.storage.k8s.io "fast" is invalid: provisioner: Required value',
            id="a storage class needs a provisioner",
        ),
        pytest.param(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "fast"},
                "provisioner": "kubernetes.io/aws-ebs",
                "reclaimPolicy": "Recycle",
                "volumeBindingMode": "Later",
            },
            'StorageClass.storage.k8s.io "fast" is invalid: [reclaimPolicy: Unsupported value: "Recycle": '
            'supported values: "Delete", "Retain", volumeBindingMode: Unsupported value: "Later": '
            'supported values: "Immediate", "WaitForFirstConsumer"]',
            id="a storage class reclaim policy and binding mode must be known",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"port": 0}]}},
            'Service "web" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, '
            "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]",
            id="a service port must be between 1 and 65535 and the target port defaults to it",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "web"},
                "spec": {"ports": [{"port": 80}, {"port": 443}], "selector": {"app": "a b"}},
            },
            'Service "web" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value, '
            'spec.selector: Invalid value: "a b": ' + LABEL_VALUE_FORMAT + "]",
            id="several service ports need names and the selector must be labels",
        ),
    ],
)
def test_storage_and_services(doc, expected):
    assert refusal(doc) == expected


# --------------------------------------------------------------------------
# Errors, rendering and the API answer
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error, text",
    [
        pytest.param(FieldError("Required value", "spec.x"), "spec.x: Required value", id="a required value without detail"),
        pytest.param(
            FieldError("Required value", "spec.x", "", "must be set"),
            "spec.x: Required value: must be set",
            id="a required value with detail",
        ),
        pytest.param(
            FieldError("Forbidden", "spec.x", "ignored", "no"), "spec.x: Forbidden: no", id="forbidden never shows the value"
        ),
        pytest.param(
            FieldError("Too long", "spec.x", "abc", "must have at most 2 characters"),
            "spec.x: Too long: must have at most 2 characters",
            id="too long never shows the value",
        ),
        pytest.param(FieldError("Invalid value", "spec.x", 5, "bad"), "spec.x: Invalid value: 5: bad", id="an int prints plain"),
        pytest.param(FieldError("Invalid value", "spec.x", True, "bad"), "spec.x: Invalid value: true: bad", id="a bool prints plain"),
        pytest.param(FieldError("Invalid value", "spec.x", None, "bad"), "spec.x: Invalid value: null: bad", id="nil prints null"),
        pytest.param(
            FieldError("Invalid value", "spec.x", 'say "hi"\n', "bad"),
            'spec.x: Invalid value: "say \\"hi\\"\\n": bad',
            id="a string is quoted like Go quotes it",
        ),
        pytest.param(
            FieldError("Invalid value", "spec.x", GoValue("core.Thing{}"), "bad"),
            "spec.x: Invalid value: core.Thing{}: bad",
            id="a Go dump prints as is",
        ),
        pytest.param(
            FieldError("Duplicate value", "spec.x", "a"), 'spec.x: Duplicate value: "a"', id="a duplicate without detail"
        ),
    ],
)
def test_field_error_rendering(error, text):
    assert str(error) == text


def test_the_api_answer_for_an_invalid_object():
    with pytest.raises(InvalidError) as raised:
        validate_or_raise(node(taints=[{"key": "k", "effect": "NoExcute"}, {"key": "a/b/c", "effect": "NoSchedule"}]))
    err = raised.value
    assert (err.kind, err.name, err.group, err.reason, err.code) == ("Node", "n1", "", "Invalid", 422)
    assert err.status()["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "NoExcute": ' + EFFECTS,
            "field": "metadata.taints[0].effect",
        },
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "a/b/c": ' + THREE_PARTS,
            "field": "metadata.taints[1].key",
        },
    ]
    assert err.cli_message() == (
        'The Node "n1" is invalid: \n'
        '* metadata.taints[0].effect: Unsupported value: "NoExcute": ' + EFFECTS + "\n"
        '* metadata.taints[1].key: Invalid value: "a/b/c": ' + THREE_PARTS
    )


def test_invalid_error_can_be_built_directly():
    err = InvalidError(
        "Node", "n1", [FieldError("Unsupported value", "spec.taints[0].effect", "NoExcute", EFFECTS)]
    )
    assert str(err) == 'Node "n1" is invalid: spec.taints[0].effect: Unsupported value: "NoExcute": ' + EFFECTS
    assert err.cli_message() == (
        'The Node "n1" is invalid: spec.taints[0].effect: Unsupported value: "NoExcute": ' + EFFECTS
    )


def test_kinds_without_rules_are_left_to_the_caller():
    assert validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}) == []
    assert "ConfigMap" not in SUPPORTED_KINDS
    assert {"Node", "Pod", "Deployment", "PodDisruptionBudget", "StorageClass"} <= SUPPORTED_KINDS


# --- engine_problem: what a reconcile skips and reports ---------------------------------------------

ENGINE_NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}}


@pytest.mark.parametrize(
    "doc, message",
    [
        pytest.param({**ENGINE_NODE, "status": {"conditions": True}},
                     'Node "node-a" is skipped by the controllers: json: cannot unmarshal bool into Go struct field '
                     "NodeStatus.status.conditions of type []v1.NodeCondition",
                     id="a node whose conditions are not a list"),
        pytest.param({**ENGINE_NODE, "status": {"allocatable": {"cpu": "1e1000"}}},
                     'Node "node-a" is skipped by the controllers: status.allocatable.cpu: Invalid value: "1e1000": '
                     "must be no more than 9223372036854775807m (the scheduler counts in 64-bit milli-units)",
                     id="a node with an allocatable cpu beyond 64-bit milli-units"),
        pytest.param({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                      "spec": {"template": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}}},
                     'StatefulSet "db" is skipped by the controllers: spec.template.spec.containers[0].resources.requests.cpu: '
                     "Invalid value: \"lots\": quantities must match the regular expression "
                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                     id="a stateful set template with a quantity that does not parse"),
        pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "ownerReferences": 5}},
                     'Pod "web" is skipped by the controllers: json: cannot unmarshal number into Go struct field '
                     "ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference",
                     id="a pod whose ownerReferences are a number"),
    ],
)
def test_the_engine_skips_a_stored_object_it_cannot_use_and_says_why(doc, message):
    from scheduling.engine.api.validation import engine_problem, invalid_object_message

    problem = engine_problem(doc)
    assert problem is not None and invalid_object_message(doc, problem) == message


def test_a_usable_object_has_no_engine_problem():
    from scheduling.engine.api.validation import engine_problem

    assert engine_problem({**ENGINE_NODE, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}, "conditions": [None]}}) is None
