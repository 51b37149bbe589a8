"""ValidatePodUpdate (1.11) and the update admission chain, on documents."""

from __future__ import annotations

from scheduling.engine.api.admission import admit_update
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.validation import validate_update


def pod(**spec) -> dict:
    return apply_defaults({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                           "spec": {"containers": [{"name": "c", "image": "nginx:1"}], **spec}})


def errors(old: dict, new: dict) -> list[str]:
    return [str(e) for e in validate_update(new, old)]


def test_images_and_a_shorter_deadline_may_change():
    assert errors(pod(activeDeadlineSeconds=20), pod(activeDeadlineSeconds=10, containers=[{"name": "c", "image": "nginx:2"}])) == []


def test_the_deadline_rules():
    assert errors(pod(activeDeadlineSeconds=10), pod(activeDeadlineSeconds=20)) == [
        "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"]
    assert errors(pod(activeDeadlineSeconds=10), pod()) == [
        "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"]


def test_containers_may_not_be_added():
    two = [{"name": "c", "image": "nginx:1"}, {"name": "d", "image": "nginx:1"}]
    assert errors(pod(), pod(containers=two)) == ["spec.containers: Forbidden: pod updates may not add or remove containers"]


def test_node_name_may_not_change_and_the_message_carries_the_object_diff():
    [message] = errors(pod(nodeName="node1"), pod(nodeName="node2"))
    head, diff = message.split("\n", 1)
    assert head == ("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, "
                    "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` "
                    "(only additions to existing tolerations)")
    prefix, rest = diff.split("\n\nA: ")
    a, b = rest.split("\n\nB: ")
    assert prefix.startswith('{"containers":[{"name":"c"') and prefix.endswith('"nodeName":"node')
    assert a.startswith('2",') and b.startswith('1",') and b.endswith("}\n\n")


def test_quantities_compare_by_value():
    old = pod(containers=[{"name": "c", "image": "nginx:1", "resources": {"requests": {"cpu": "1"}}}])
    new = pod(containers=[{"name": "c", "image": "nginx:1", "resources": {"requests": {"cpu": "1000m"}}}])
    assert errors(old, new) == []


def test_update_admission_adds_the_default_tolerations_again_and_keeps_the_priority():
    old = {**pod(), "spec": {**pod()["spec"], "priority": 1000}}
    admitted = admit_update(pod(), old)
    assert admitted["spec"]["priority"] == 1000
    assert [t["key"] for t in admitted["spec"]["tolerations"]] == [
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]  # BestEffort: no memory-pressure
    assert admit_update(pod(), old, {"DefaultTolerationSeconds": False})["spec"].get("tolerations") is None
