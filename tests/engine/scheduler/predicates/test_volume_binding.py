"""CheckVolumeBinding: bound PVCs' PV node affinity, unbound (WaitForFirstConsumer) PVCs' available PVs."""

import pytest

from scheduling.engine.scheduler.predicates.volume_binding import check_volume_binding
from tests.engine.builders import cluster, evaluate, node, pod, pv, pvc, storage_class, with_volumes

NODE_CONFLICT = ("node(s) had volume node affinity conflict",)
BIND_CONFLICT = ("node(s) didn't find available persistent volumes to bind",)


def on_host(*hosts):
    return [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": list(hosts)}]}]


NODES = [node("n1", labels={"kubernetes.io/hostname": "n1"}), node("n2", labels={"kubernetes.io/hostname": "n2"})]
CLASSES = [storage_class("local", "WaitForFirstConsumer"), storage_class("fast")]


def run(claims, volumes, wanted):
    incoming = with_volumes(pod("p"), *({"name": c, "persistentVolumeClaim": {"claimName": c}} for c in wanted))
    state = cluster(NODES, persistent_volume_claims=claims, persistent_volumes=volumes, storage_classes=CLASSES)
    return evaluate(check_volume_binding, incoming, state)


CASES = [
    pytest.param([], [], [], {"n1": (), "n2": ()}, id="a pod without claims fits"),
    pytest.param(
        [pvc("c", volume_name="pv1")], [pv("pv1", node_affinity_terms=on_host("n1"))], ["c"],
        {"n1": (), "n2": NODE_CONFLICT}, id="a bound claim fits only where its PV's node affinity matches",
    ),
    pytest.param(
        [pvc("c", volume_name="pv1")], [pv("pv1")], ["c"], {"n1": (), "n2": ()}, id="a bound PV without node affinity fits everywhere",
    ),
    pytest.param(
        [pvc("c", storage_class="local", storage="5Gi")],
        [pv("small", storage="1Gi", storage_class="local", node_affinity_terms=on_host("n1", "n2")),
         pv("big", storage="10Gi", storage_class="local", node_affinity_terms=on_host("n2"))],
        ["c"], {"n1": BIND_CONFLICT, "n2": ()}, id="an unbound claim needs an available PV big enough whose node affinity matches",
    ),
    pytest.param(
        [pvc("c", storage_class="local")], [pv("other-class", storage_class="fast"), pv("taken", storage_class="local", claim_ref=("default", "x"))],
        ["c"], {"n1": BIND_CONFLICT, "n2": BIND_CONFLICT}, id="PVs of another class or already claimed are not available",
    ),
    pytest.param(
        [pvc("c", storage_class="local", access_modes=["ReadWriteMany"])], [pv("rwo", storage_class="local")],
        ["c"], {"n1": BIND_CONFLICT, "n2": BIND_CONFLICT}, id="the PV must offer the claim's access modes",
    ),
    pytest.param(
        [pvc("c", storage_class="local", selector={"matchLabels": {"tier": "gold"}})],
        [pv("silver", storage_class="local", labels={"tier": "silver"}), pv("gold", storage_class="local", labels={"tier": "gold"}, node_affinity_terms=on_host("n2"))],
        ["c"], {"n1": BIND_CONFLICT, "n2": ()}, id="the claim's selector filters the PVs",
    ),
    pytest.param(
        [pvc("c1", storage_class="local"), pvc("c2", storage_class="local")], [pv("only", storage_class="local")],
        ["c1", "c2"], {"n1": BIND_CONFLICT, "n2": BIND_CONFLICT}, id="one PV cannot serve two claims",
    ),
    pytest.param(
        [pvc("c", storage_class="local")], [pv("pre", storage_class="local", claim_ref=("default", "c"), node_affinity_terms=on_host("n1"))],
        ["c"], {"n1": (), "n2": BIND_CONFLICT}, id="a PV pre-bound to the claim is used where its node affinity matches",
    ),
    pytest.param(
        [pvc("b", volume_name="pv1"), pvc("u", storage_class="local")],
        [pv("pv1", node_affinity_terms=on_host("n1")), pv("free", storage_class="local", node_affinity_terms=on_host("n2"))],
        ["b", "u"], {"n1": BIND_CONFLICT, "n2": NODE_CONFLICT},
        id="bound and unbound claims are judged separately",
    ),
    pytest.param(
        [pvc("c", storage_class="fast")], [], ["c"], {"n1": ("pod has unbound PersistentVolumeClaims",), "n2": ("pod has unbound PersistentVolumeClaims",)},
        id="an unbound claim of an immediate class is a 1.11 scheduling error",
    ),
]


@pytest.mark.parametrize("claims, volumes, wanted, expected", CASES)
def test_check_volume_binding(claims, volumes, wanted, expected):
    assert run(claims, volumes, wanted) == expected


def test_both_reasons_in_order():
    claims = [pvc("b", volume_name="pv1"), pvc("u", storage_class="local")]
    volumes = [pv("pv1", node_affinity_terms=on_host("n2"))]
    assert run(claims, volumes, ["b", "u"])["n1"] == NODE_CONFLICT + BIND_CONFLICT
