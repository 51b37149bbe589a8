"""NoDiskConflict: GCE PD, AWS EBS, RBD and iSCSI rules."""

import pytest

from scheduling.engine.scheduler.predicates.disk_conflict import no_disk_conflict
from tests.engine.builders import cluster, evaluate, node, pod, with_volumes

CONFLICT = ("node(s) had no available disk",)


def gce(pd, read_only=False):
    return {"name": "v", "gcePersistentDisk": {"pdName": pd, "readOnly": read_only}}


def ebs(volume_id, read_only=False):
    return {"name": "v", "awsElasticBlockStore": {"volumeID": volume_id, "readOnly": read_only}}


def rbd(monitors, image="img", pool=None, read_only=False):
    src = {"monitors": list(monitors), "image": image, "readOnly": read_only}
    if pool is not None:
        src["pool"] = pool
    return {"name": "v", "rbd": src}


def iscsi(iqn, read_only=False):
    return {"name": "v", "iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": iqn, "lun": 0, "readOnly": read_only}}


CASES = [
    pytest.param(gce("disk-a"), gce("disk-a"), CONFLICT, id="the same GCE PD read-write conflicts"),
    pytest.param(gce("disk-a", True), gce("disk-a", True), (), id="the same GCE PD read-only on both sides is shared"),
    pytest.param(gce("disk-a", True), gce("disk-a"), CONFLICT, id="the same GCE PD read-only on one side only conflicts"),
    pytest.param(gce("disk-a"), gce("disk-b"), (), id="different GCE PDs do not conflict"),
    pytest.param(ebs("vol-1", True), ebs("vol-1", True), CONFLICT, id="the same EBS volume always conflicts, even read-only"),
    pytest.param(ebs("vol-1"), ebs("vol-2"), (), id="different EBS volumes do not conflict"),
    pytest.param(rbd(["m1", "m2"]), rbd(["m2", "m3"]), CONFLICT, id="RBD with overlapping monitors, same pool and image conflicts"),
    pytest.param(rbd(["m1"]), rbd(["m2"]), (), id="RBD without a common monitor does not conflict"),
    pytest.param(rbd(["m1"], image="a"), rbd(["m1"], image="b"), (), id="RBD with another image does not conflict"),
    pytest.param(rbd(["m1"], pool="rbd"), rbd(["m1"]), CONFLICT, id="an RBD pool defaults to rbd"),
    pytest.param(rbd(["m1"], pool="p1"), rbd(["m1"], pool="p2"), (), id="RBD in another pool does not conflict"),
    pytest.param(rbd(["m1"], read_only=True), rbd(["m1"], read_only=True), (), id="RBD read-only on both sides is shared"),
    pytest.param(iscsi("iqn.a"), iscsi("iqn.a"), CONFLICT, id="the same iSCSI IQN conflicts"),
    pytest.param(iscsi("iqn.a", True), iscsi("iqn.a", True), (), id="the same iSCSI IQN read-only on both sides is shared"),
    pytest.param(iscsi("iqn.a"), iscsi("iqn.b"), (), id="different iSCSI IQNs do not conflict"),
    pytest.param(gce("disk-a"), ebs("disk-a"), (), id="volumes of different kinds never conflict"),
]


@pytest.mark.parametrize("existing_volume, wanted_volume, reasons", CASES)
def test_no_disk_conflict(existing_volume, wanted_volume, reasons):
    existing = with_volumes(pod("a", node_name="n1"), existing_volume)
    incoming = with_volumes(pod("p"), wanted_volume)
    assert evaluate(no_disk_conflict, incoming, cluster([node("n1")], [existing])) == {"n1": reasons}
