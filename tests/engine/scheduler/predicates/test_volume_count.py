"""MaxEBSVolumeCount, MaxGCEPDVolumeCount, MaxAzureDiskVolumeCount: unique volumes per node."""

import pytest

from scheduling.engine.scheduler.predicates.volume_count import (
    EBS,
    max_azure_disk_volume_count,
    max_ebs_volume_count,
    max_gce_pd_volume_count,
    new_max_pd_volume_count_predicate,
)
from tests.engine.builders import cluster, evaluate, node, pod, pv, pvc, with_volumes

EXCEEDED = ("node(s) exceed max volume count",)


def ebs(volume_id):
    return {"name": volume_id, "awsElasticBlockStore": {"volumeID": volume_id}}


def claim(name):
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


def on_node(name, *volumes):
    return with_volumes(pod(name, node_name="n1"), *volumes)


MAX_TWO = new_max_pd_volume_count_predicate(EBS, 2)
PV_OBJECTS = dict(
    persistent_volume_claims=[pvc("c1", volume_name="pv1"), pvc("c2", volume_name="pv2"), pvc("unbound"), pvc("dangling", volume_name="gone")],
    persistent_volumes=[pv("pv1", source={"awsElasticBlockStore": {"volumeID": "vol-1"}}), pv("pv2", source={"gcePersistentDisk": {"pdName": "pd"}})],
)

CASES = [
    pytest.param([on_node("a", ebs("vol-1"))], [ebs("vol-2")], (), id="two volumes within a limit of two fit"),
    pytest.param([on_node("a", ebs("vol-1"), ebs("vol-2"))], [ebs("vol-3")], EXCEEDED, id="a third volume over a limit of two is rejected"),
    pytest.param([on_node("a", ebs("vol-1"), ebs("vol-2"))], [ebs("vol-2")], (), id="a volume already mounted on the node is not counted twice"),
    pytest.param([on_node("a", ebs("vol-1")), on_node("b", ebs("vol-1"))], [ebs("vol-2")], (), id="volumes are unique across the node's pods"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [claim("c1")], EXCEEDED, id="a PVC bound to an EBS PV counts"),
    pytest.param([on_node("a", ebs("vol-1"), ebs("vol-9"))], [claim("c1")], (), id="a PVC bound to an already mounted EBS PV is not new"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [claim("c2")], (), id="a PVC bound to a PV of another kind does not count"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [claim("unbound")], EXCEEDED, id="an unbound PVC counts as one volume"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [claim("missing")], EXCEEDED, id="a missing PVC counts as one volume"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [claim("dangling")], EXCEEDED, id="a PVC whose PV is missing counts as one volume"),
    pytest.param([on_node("a", ebs("vol-8"), claim("unbound"))], [claim("unbound")], (), id="the same unresolved PVC on the node is the same volume"),
    pytest.param([on_node("a", ebs("vol-8"), ebs("vol-9"))], [{"name": "e", "emptyDir": {}}], (), id="a pod without volumes of the kind fits"),
]


@pytest.mark.parametrize("existing, wanted, reasons", CASES)
def test_max_pd_volume_count(existing, wanted, reasons):
    incoming = with_volumes(pod("p"), *wanted)
    assert evaluate(MAX_TWO, incoming, cluster([node("n1")], existing, **PV_OBJECTS)) == {"n1": reasons}


@pytest.mark.parametrize(
    "predicate, source, limit",
    [
        pytest.param(max_ebs_volume_count, lambda i: {"awsElasticBlockStore": {"volumeID": f"v{i}"}}, 39, id="EBS allows 39 volumes"),
        pytest.param(max_gce_pd_volume_count, lambda i: {"gcePersistentDisk": {"pdName": f"v{i}"}}, 16, id="GCE PD allows 16 volumes"),
        pytest.param(max_azure_disk_volume_count, lambda i: {"azureDisk": {"diskName": f"v{i}", "diskURI": "u"}}, 16, id="Azure Disk allows 16 volumes"),
    ],
)
def test_default_limits(predicate, source, limit):
    existing = [with_volumes(pod("a", node_name="n1"), *({"name": f"v{i}", **source(i)} for i in range(limit - 1)))]
    state = cluster([node("n1")], existing)
    assert evaluate(predicate, with_volumes(pod("p"), {"name": "x", **source(limit)}), state) == {"n1": ()}
    assert evaluate(predicate, with_volumes(pod("p"), {"name": "x", **source(limit)}, {"name": "y", **source(limit + 1)}), state) == {"n1": EXCEEDED}
