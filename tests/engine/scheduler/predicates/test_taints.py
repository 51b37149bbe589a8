"""PodToleratesNodeTaints (NoSchedule + NoExecute) and PodToleratesNodeNoExecuteTaints."""

import pytest

from scheduling.engine.scheduler.predicates.taints import (
    pod_tolerates_node_no_execute_taints,
    pod_tolerates_node_taints,
)
from tests.engine.builders import cluster, evaluate, node, pod

REJECTED = ("node(s) had taints that the pod didn't tolerate",)

# The documentation's "Using Multiple Taints" example.
MULTIPLE_TAINTS = ["key1=value1:NoSchedule", "key1=value1:NoExecute", "key2=value2:NoSchedule"]
KEY1_TOLERATIONS = [
    {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoSchedule"},
    {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute"},
]

CASES = [
    pytest.param([], [], (), (), id="a node without taints admits every pod"),
    pytest.param(["dedicated=groupName:NoSchedule"], [], REJECTED, (), id="a pod without tolerations is rejected by a NoSchedule taint"),
    pytest.param(["k=v:NoExecute"], [], REJECTED, REJECTED, id="a NoExecute taint rejects a pod without tolerations in both predicates"),
    pytest.param(["k=v:PreferNoSchedule"], [], (), (), id="a PreferNoSchedule taint never blocks"),
    pytest.param(
        MULTIPLE_TAINTS, KEY1_TOLERATIONS, REJECTED, (),
        id="the multiple-taints example: tolerating only the key1 taints is rejected (key2 NoSchedule untolerated)",
    ),
    pytest.param(
        MULTIPLE_TAINTS, KEY1_TOLERATIONS + [{"key": "key2", "operator": "Equal", "value": "value2", "effect": "NoSchedule"}], (), (),
        id="the multiple-taints example with key2 tolerated too fits",
    ),
    pytest.param(MULTIPLE_TAINTS, [{"operator": "Exists"}], (), (), id="operator Exists with an empty key tolerates every taint"),
    pytest.param(
        ["key1=value1:NoExecute"], [{"key": "key1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 3600}], (), (),
        id="Exists ignores the value",
    ),
    pytest.param(["key1=value1:NoSchedule"], [{"key": "key1", "value": "value1"}], (), (), id="an empty effect matches every effect and an empty operator means Equal"),
    pytest.param(["key1=value1:NoSchedule"], [{"key": "key1", "value": "other"}], REJECTED, (), id="Equal compares the value"),
    pytest.param(
        ["key1=value1:NoSchedule"], [{"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute"}], REJECTED, (),
        id="a toleration for another effect does not match",
    ),
    pytest.param(["key1:NoSchedule"], [{"key": "key1", "operator": "Equal"}], (), (), id="an empty value equals an empty value"),
]


@pytest.mark.parametrize("taints, tolerations, all_reasons, no_execute_reasons", CASES)
def test_pod_tolerates_node_taints(taints, tolerations, all_reasons, no_execute_reasons):
    state = cluster([node("node1", taints=taints)])
    incoming = pod("p", tolerations=tolerations)
    assert evaluate(pod_tolerates_node_taints, incoming, state) == {"node1": all_reasons}
    assert evaluate(pod_tolerates_node_no_execute_taints, incoming, state) == {"node1": no_execute_reasons}
