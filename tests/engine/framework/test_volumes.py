"""The volume plugins, translated from upstream's volume_zone_test.go (TestSingleZone,
TestMultiZone, TestWithBinding), volume_restrictions_test.go (TestGCEDiskConflicts,
TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts, TestAccessModeConflicts)
and volume_binding_test.go (TestVolumeBinding, the filtering cases). NodeVolumeLimits reads
the engine's simplified limits (node allocatable `attachable-volumes-csi-<driver>`, no
CSINode objects), so its cases are the engine's own."""

import pytest

from scheduling.engine.framework.interface import CycleState, ERROR, OK, SKIP, SUCCESS, UNRESOLVABLE, UNSCHEDULABLE
from scheduling.engine.framework.plugins.volumes import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    ERR_REASON_ZONE_CONFLICT,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeRestrictions,
    VolumeZone,
)
from tests.engine.framework.plugin_builders import handle, info, node, pod

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def pv(name, labels=None, **spec):
    return {"kind": "PersistentVolume", "metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec}


def pvc(name, namespace="default", volume_name="", storage_class=None, annotations=None, **spec):
    s = dict(spec)
    if volume_name:
        s["volumeName"] = volume_name
    if storage_class is not None:
        s["storageClassName"] = storage_class
    return {"kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace, "annotations": dict(annotations or {})}, "spec": s}


def storage_class(name, mode=None, provisioner="kubernetes.io/no-provisioner", **rest):
    doc = {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": provisioner, **rest}
    if mode:
        doc["volumeBindingMode"] = mode
    return doc


def pvc_pod(name, *claims, namespace="default", node_name=""):
    return pod(name, namespace=namespace, node_name=node_name,
               volumes=[{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)])


def run(plugin, p, i):
    cs = CycleState()
    pre = plugin.pre_filter(cs, p, [i])
    return pre, plugin.filter(cs, p, i)


def status(s):
    return None if s == OK else (s.code, s.reasons)


# --- VolumeZone ------------------------------------------------------------------------------------------------------

SINGLE_ZONE_PVS = [
    pv("Vol_1", {BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", {BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", {BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", {ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", {REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", {ZONE: "us-west1-a", REGION: "us-west1-a"}),
]
SINGLE_ZONE_PVCS = [pvc("PVC_1", volume_name="Vol_1"), pvc("PVC_2", volume_name="Vol_2"), pvc("PVC_3", volume_name="Vol_3"),
                    pvc("PVC_4", volume_name="Vol_not_exist"), pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
                    pvc("PVC_Stable_2", volume_name="Vol_Stable_2"), pvc("PVC_Stable_3", volume_name="Vol_Stable_3")]
CONFLICT = (UNRESOLVABLE, (ERR_REASON_ZONE_CONFLICT,))

SINGLE_ZONE = [
    ("pod without volume", pod("pod_1"), {BETA_ZONE: "us-west1-a"}, SKIP, None),
    ("node without labels", pvc_pod("pod_1", "PVC_1"), {}, SUCCESS, None),
    ("beta zone label matched", pvc_pod("pod_1", "PVC_1"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, SUCCESS, None),
    ("beta region label matched", pvc_pod("pod_1", "PVC_2"), {BETA_REGION: "us-west1", "uselessLabel": "none"}, SUCCESS, None),
    ("beta region label doesn't match", pvc_pod("pod_1", "PVC_2"), {BETA_REGION: "no_us-west1", "uselessLabel": "none"}, SUCCESS, CONFLICT),
    ("beta zone label doesn't match", pvc_pod("pod_1", "PVC_1"), {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}, SUCCESS, CONFLICT),
    ("zone label matched", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE: "us-west1-a", "uselessLabel": "none"}, SUCCESS, None),
    ("region label matched", pvc_pod("pod_1", "PVC_Stable_2"), {REGION: "us-west1", "uselessLabel": "none"}, SUCCESS, None),
    ("region label doesn't match", pvc_pod("pod_1", "PVC_Stable_2"), {REGION: "no_us-west1", "uselessLabel": "none"}, SUCCESS, CONFLICT),
    ("zone label doesn't match", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE: "no_us-west1-a", "uselessLabel": "none"}, SUCCESS, CONFLICT),
    ("pv with zone and region, node with only zone", pvc_pod("pod_1", "PVC_Stable_3"), {ZONE: "us-west1-a"}, SUCCESS, CONFLICT),
    ("pv with zone,node with beta zone", pvc_pod("pod_1", "PVC_Stable_1"), {BETA_ZONE: "us-west1-a"}, SUCCESS, CONFLICT),
    ("pv with beta label,node with ga label, matched", pvc_pod("pod_1", "PVC_1"), {ZONE: "us-west1-a"}, SUCCESS, None),
    ("pv with beta label,node with ga label, don't match", pvc_pod("pod_1", "PVC_1"), {ZONE: "us-west1-b"}, SUCCESS, CONFLICT),
]


@pytest.mark.parametrize("name,p,labels,pre_code,want", SINGLE_ZONE, ids=[c[0] for c in SINGLE_ZONE])
def test_single_zone(name, p, labels, pre_code, want):
    i = info(node("host1", labels=labels))
    pre, got = run(VolumeZone({}, handle([i], pvs=SINGLE_ZONE_PVS, pvcs=SINGLE_ZONE_PVCS)), p, i)
    assert pre.code == pre_code
    assert status(got) == want


MULTI_ZONE_PVS = [
    pv("Vol_1", {BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", {BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", {ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", {ZONE: "us-west1-c__us-west1-a"}),
]
MULTI_ZONE_PVCS = [pvc("PVC_1", volume_name="Vol_1"), pvc("PVC_2", volume_name="Vol_2"), pvc("PVC_3", volume_name="Vol_3"),
                   pvc("PVC_4", volume_name="Vol_not_exist"), pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
                   pvc("PVC_Stable_2", volume_name="Vol_Stable_2")]
MULTI_ZONE = [
    ("node without labels", "PVC_3", {}, None),
    ("beta zone label matched", "PVC_3", {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("beta zone label doesn't match", "PVC_1", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT),
    ("zone label matched", "PVC_Stable_2", {ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("zone label doesn't match", "PVC_Stable_1", {ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT),
]


@pytest.mark.parametrize("name,claim,labels,want", MULTI_ZONE, ids=[c[0] for c in MULTI_ZONE])
def test_multi_zone(name, claim, labels, want):
    i = info(node("host1", labels=labels))
    pre, got = run(VolumeZone({}, handle([i], pvs=MULTI_ZONE_PVS, pvcs=MULTI_ZONE_PVCS)), pvc_pod("pod_1", claim), i)
    assert pre == OK
    assert status(got) == want


BINDING_CLASSES = [storage_class("Class_Immediate", "Immediate"), storage_class("Class_Wait", "WaitForFirstConsumer")]
BINDING_PVCS = [pvc("PVC_1", volume_name="Vol_1"), pvc("PVC_NoSC", storage_class="Class_0"), pvc("PVC_EmptySC"),
                pvc("PVC_WaitSC", storage_class="Class_Wait"), pvc("PVC_ImmediateSC", storage_class="Class_Immediate")]
WITH_BINDING = [
    ("label zone failure domain matched", "PVC_1", SUCCESS, None),
    ("unbound volume empty storage class", "PVC_EmptySC", UNRESOLVABLE,
     (UNRESOLVABLE, ("PersistentVolumeClaim had no pv name and storageClass name",))),
    # The informer's lister words a missing StorageClass `storageclass.storage.k8s.io "<name>" not found`.
    ("unbound volume no storage class", "PVC_NoSC", UNRESOLVABLE,
     (UNRESOLVABLE, ('storageclass.storage.k8s.io "Class_0" not found',))),
    # The API server defaults volumeBindingMode to Immediate: an unbound claim of an Immediate
    # class has no PV to check yet.
    ("unbound volume immediate binding mode", "PVC_ImmediateSC", UNRESOLVABLE, (UNRESOLVABLE, ("PersistentVolume had no name",))),
    ("unbound volume wait binding mode", "PVC_WaitSC", SKIP, None),
]


@pytest.mark.parametrize("name,claim,pre_code,want", WITH_BINDING, ids=[c[0] for c in WITH_BINDING])
def test_with_binding(name, claim, pre_code, want):
    i = info(node("host1", labels={BETA_ZONE: "us-west1-a", "uselessLabel": "none"}))
    plugin = VolumeZone({}, handle([i], pvs=[pv("Vol_1", {BETA_ZONE: "us-west1-a"})], pvcs=BINDING_PVCS, classes=BINDING_CLASSES))
    pre, got = run(plugin, pvc_pod("pod_1", claim), i)
    assert pre.code == pre_code
    if pre_code == UNRESOLVABLE:
        assert (pre.code, pre.reasons) == want
    assert status(got) == want


# --- VolumeRestrictions: disk conflicts --------------------------------------------------------------------------------


def vol_pod(name, *volumes, node_name=""):
    return pod(name, node_name=node_name, volumes=[dict(v, name=f"v{i}") for i, v in enumerate(volumes)])


DISK_CONFLICT = (UNSCHEDULABLE, (ERR_REASON_DISK_CONFLICT,))
NO_RESTRICTION = {"emptyDir": {}}


def disk_cases(state, state2):
    return [
        ("nothing", vol_pod("p"), [], SKIP, None),
        ("one state", vol_pod("p"), [state], SKIP, None),
        ("same state", vol_pod("p", state), [state], SUCCESS, DISK_CONFLICT),
        ("different state", vol_pod("p", state2), [state], SUCCESS, None),
        ("pod with a volume that doesn't need restrictions", vol_pod("p", NO_RESTRICTION), [], SKIP, None),
    ]


DISK_KINDS = {
    "GCE": ({"gcePersistentDisk": {"pdName": "foo"}}, {"gcePersistentDisk": {"pdName": "bar"}}),
    "AWS": ({"awsElasticBlockStore": {"volumeID": "foo"}}, {"awsElasticBlockStore": {"volumeID": "bar"}}),
    "RBD": ({"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}},
            {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}),
    "ISCSI": ({"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "fsType": "ext4", "lun": 0}},
              {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "fsType": "ext4", "lun": 0}}),
}
DISK_CASES = [(kind, *case) for kind, (a, b) in DISK_KINDS.items() for case in disk_cases(a, b)]


@pytest.mark.parametrize("kind,name,p,existing,pre_code,want", DISK_CASES, ids=[f"{c[0]}: {c[1]}" for c in DISK_CASES])
def test_disk_conflicts(kind, name, p, existing, pre_code, want):
    on_node = [vol_pod("e", v, node_name="n") for v in existing] or [vol_pod("e", node_name="n")]
    i = info(node("n"), on_node)
    plugin = VolumeRestrictions({}, handle([i]))
    cs = CycleState()
    assert plugin.pre_filter(cs, p, [i]).code == pre_code
    assert status(plugin.filter(cs, p, i)) == want


def test_read_only_gce_disks_do_not_conflict():
    disk = {"gcePersistentDisk": {"pdName": "foo", "readOnly": True}}
    i = info(node("n"), [vol_pod("e", disk, node_name="n")])
    plugin = VolumeRestrictions({}, handle([i]))
    cs = CycleState()
    plugin.pre_filter(cs, vol_pod("p", disk), [i])
    assert plugin.filter(cs, vol_pod("p", disk), i) == OK


# --- VolumeRestrictions: ReadWriteOncePod --------------------------------------------------------------------------------

RWOP = pvc("claim-with-rwop-1", accessModes=["ReadWriteOncePod"])
RWOP2 = pvc("claim-with-rwop-2", accessModes=["ReadWriteOncePod"])
RWM = pvc("claim-with-rwx", accessModes=["ReadWriteMany"])
RWOP_CONFLICT = (UNSCHEDULABLE, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))

ACCESS_MODE_CASES = [
    ("nothing", pod("p"), [], [], SKIP, None, None),
    ("failed to get PVC", pvc_pod("pod-with-one-pvc", "claim-with-rwop-1"), [], [], UNRESOLVABLE,
     ('persistentvolumeclaim "claim-with-rwop-1" not found',), None),
    ("no access mode conflict", pvc_pod("pod-with-one-pvc", "claim-with-rwop-1"),
     [pvc_pod("pod-with-rwx", "claim-with-rwx", node_name="node-1")], [RWOP, RWM], SKIP, None, None),
    ("access mode conflict, unschedulable", pvc_pod("pod-with-one-conflict", "claim-with-rwop-1"),
     [pvc_pod("pod-with-one-pvc", "claim-with-rwop-1", node_name="node-1"), pvc_pod("pod-with-rwx", "claim-with-rwx", node_name="node-1")],
     [RWOP, RWM], SUCCESS, None, RWOP_CONFLICT),
    ("two conflicts, unschedulable", pvc_pod("pod-with-two-conflicts", "claim-with-rwop-1", "claim-with-rwop-2"),
     [pvc_pod("pod-with-one-pvc", "claim-with-rwop-1", node_name="node-1"),
      pvc_pod("pod-with-two-pvcs", "claim-with-rwop-2", "claim-with-rwx", node_name="node-1")],
     [RWOP, RWOP2, RWM], SUCCESS, None, RWOP_CONFLICT),
]


@pytest.mark.parametrize("name,p,existing,pvcs,pre_code,pre_reasons,want", ACCESS_MODE_CASES, ids=[c[0] for c in ACCESS_MODE_CASES])
def test_access_mode_conflicts(name, p, existing, pvcs, pre_code, pre_reasons, want):
    i = info(node("node-1"), existing)
    plugin = VolumeRestrictions({}, handle([i], pvcs=pvcs, pods=existing))
    cs = CycleState()
    pre = plugin.pre_filter(cs, p, [i])
    assert pre.code == pre_code
    if pre_reasons:
        assert pre.reasons == pre_reasons
        return
    assert status(plugin.filter(cs, p, i)) == want


def test_read_write_once_pod_conflict_follows_remove_pod():
    """PreFilterExtensions: with the pod using the claim removed (preemption's what-if),
    the conflict is gone; added back, it returns."""
    user = pvc_pod("pod-with-one-pvc", "claim-with-rwop-1", node_name="node-1")
    i = info(node("node-1"), [user])
    plugin = VolumeRestrictions({}, handle([i], pvcs=[RWOP], pods=[user]))
    p = pvc_pod("p", "claim-with-rwop-1")
    cs = CycleState()
    plugin.pre_filter(cs, p, [i])
    what_if = cs.clone()
    plugin.remove_pod(what_if, p, user, i)
    assert plugin.filter(what_if, p, i) == OK
    assert status(plugin.filter(cs, p, i)) == RWOP_CONFLICT
    plugin.add_pod(what_if, p, user, i)
    assert status(plugin.filter(what_if, p, i)) == RWOP_CONFLICT


# --- VolumeBinding ----------------------------------------------------------------------------------------------------------

WAIT_CLASS = storage_class("wait-sc", "WaitForFirstConsumer")
IMMEDIATE_CLASS = storage_class("immediate-sc", "Immediate")
NODE_AFFINITY_A = {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]}}
NODE_AFFINITY_B = {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["barbar"]}]}]}}


def claim(name, volume_name="", sc="wait-sc", size="1Gi"):
    return pvc(name, volume_name=volume_name, storage_class=sc, accessModes=["ReadWriteOnce"],
               resources={"requests": {"storage": size}})


def volume(name, affinity=None, sc="wait-sc", size="1Gi", claim_ref=None):
    spec = {"storageClassName": sc, "capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"]}
    if affinity:
        spec["nodeAffinity"] = affinity
    if claim_ref:
        spec["claimRef"] = {"name": claim_ref, "namespace": "default"}
    return pv(name, **spec)


VOLUME_BINDING = [
    ("pod has not pvcs", pod("pod-a"), [], [], SKIP, None, None),
    ("all bound", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a", "pv-a")], [volume("pv-a", claim_ref="pvc-a")], SUCCESS, None, None),
    ("PVC does not exist", pvc_pod("pod-a", "pvc-a"), [], [], UNRESOLVABLE, ('persistentvolumeclaim "pvc-a" not found',), None),
    ("Part of PVCs do not exist", pvc_pod("pod-a", "pvc-a", "pvc-b"), [claim("pvc-a", "pv-a")], [volume("pv-a", claim_ref="pvc-a")],
     UNRESOLVABLE, ('persistentvolumeclaim "pvc-b" not found',), None),
    ("immediate claims not bound", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a", sc="immediate-sc")], [], UNRESOLVABLE,
     ("pod has unbound immediate PersistentVolumeClaims",), None),
    ("unbound claims no matches", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a")], [], SUCCESS, None,
     (UNRESOLVABLE, (ERR_REASON_BIND_CONFLICT,))),
    ("bound and unbound unsatisfied", pvc_pod("pod-a", "pvc-a", "pvc-b"), [claim("pvc-a", "pv-a"), claim("pvc-b")],
     [volume("pv-a", NODE_AFFINITY_B, claim_ref="pvc-a"), volume("pv-b", NODE_AFFINITY_B)], SUCCESS, None,
     (UNRESOLVABLE, (ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT))),
    ("pvc not found", pvc_pod("pod-a", "pvc-a"), [], [], UNRESOLVABLE, ('persistentvolumeclaim "pvc-a" not found',), None),
    ("pv not found", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a", "pv-a")], [], SUCCESS, None,
     (UNRESOLVABLE, (ERR_REASON_PV_NOT_EXIST,))),
    ("unbound claim matches an available volume", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a")], [volume("pv-a", NODE_AFFINITY_A)],
     SUCCESS, None, None),
    ("unbound claim of a class with a provisioner is provisioned", pvc_pod("pod-a", "pvc-a"), [claim("pvc-a", sc="dynamic-sc")], [],
     SUCCESS, None, None),
]


@pytest.mark.parametrize("name,p,pvcs,pvs,pre_code,pre_reasons,want", VOLUME_BINDING, ids=[c[0] for c in VOLUME_BINDING])
def test_volume_binding(name, p, pvcs, pvs, pre_code, pre_reasons, want):
    i = info(node("node-a", labels={"foo": "bar"}))
    classes = [WAIT_CLASS, IMMEDIATE_CLASS, storage_class("dynamic-sc", "WaitForFirstConsumer", provisioner="ebs.csi.aws.com")]
    plugin = VolumeBinding({}, handle([i], pvcs=pvcs, pvs=pvs, classes=classes))
    cs = CycleState()
    pre = plugin.pre_filter(cs, p, [i])
    assert pre.code == pre_code
    if pre_reasons:
        assert pre.reasons == pre_reasons
        return
    if pre_code == SKIP:
        return
    assert status(plugin.filter(cs, p, i)) == want


# --- NodeVolumeLimits (the engine's simplified limits) ---------------------------------------------------------------------


def ebs_pod(name, *ids, node_name=""):
    return vol_pod(name, *({"awsElasticBlockStore": {"volumeID": v}} for v in ids), node_name=node_name)


LIMIT_KEY = "attachable-volumes-csi-ebs.csi.aws.com"
LIMITS = [
    ("pod without volumes", ebs_pod("p"), [], {LIMIT_KEY: "1"}, SKIP, None),
    ("under the driver's limit", ebs_pod("p", "vol-2"), [("vol-1",)], {LIMIT_KEY: "2"}, SUCCESS, None),
    ("over the driver's limit", ebs_pod("p", "vol-2"), [("vol-1",)], {LIMIT_KEY: "1"}, SUCCESS,
     (UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))),
    ("a volume already attached counts once", ebs_pod("p", "vol-1"), [("vol-1",)], {LIMIT_KEY: "1"}, SUCCESS, None),
    ("no limit for the driver", ebs_pod("p", "vol-2", "vol-3"), [("vol-1",)], {}, SUCCESS, None),
]


@pytest.mark.parametrize("name,p,existing,allocatable,pre_code,want", LIMITS, ids=[c[0] for c in LIMITS])
def test_node_volume_limits(name, p, existing, allocatable, pre_code, want):
    i = info(node("n", allocatable=allocatable), [ebs_pod(f"e{k}", *ids, node_name="n") for k, ids in enumerate(existing)])
    plugin = NodeVolumeLimits({}, handle([i]))
    cs = CycleState()
    assert plugin.pre_filter(cs, p, [i]).code == pre_code
    assert status(plugin.filter(cs, p, i)) == want


def test_node_volume_limits_counts_bound_csi_claims_and_fails_on_a_missing_claim():
    pvs = [pv("pv-1", csi={"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"})]
    pvcs = [pvc("c1", volume_name="pv-1")]
    existing = ebs_pod("e", "vol-9", node_name="n")
    i = info(node("n", allocatable={LIMIT_KEY: "1"}), [existing])
    plugin = NodeVolumeLimits({}, handle([i], pvs=pvs, pvcs=pvcs))
    assert status(plugin.filter(CycleState(), pvc_pod("p", "c1"), i)) == (UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
    got = plugin.filter(CycleState(), pvc_pod("p", "missing"), i)
    assert (got.code, got.reasons) == (ERROR, ('looking up PVC default/missing: persistentvolumeclaim "missing" not found',))


def test_reserve_assumes_the_chosen_volume():
    """Reserve (AssumePodVolumes): the PV chosen for one pod's claim is no longer available
    to the next pod's claim, and the first claim counts as bound to it; Unreserve reverts."""
    i = info(node("node-a", labels={"foo": "bar"}))
    plugin = VolumeBinding({}, handle([i], pvcs=[claim("pvc-a"), claim("pvc-b")], pvs=[volume("pv-a", NODE_AFFINITY_A)],
                                      classes=[WAIT_CLASS]))
    first, second = pvc_pod("pod-a", "pvc-a"), pvc_pod("pod-b", "pvc-b")
    cs = CycleState()
    assert plugin.pre_filter(cs, first, [i]) == OK and plugin.filter(cs, first, i) == OK
    assert plugin.reserve(cs, first, "node-a") == OK
    cs2 = CycleState()
    assert plugin.pre_filter(cs2, second, [i]) == OK
    assert status(plugin.filter(cs2, second, i)) == (UNRESOLVABLE, (ERR_REASON_BIND_CONFLICT,))
    again = CycleState()
    plugin.pre_filter(again, first, [i])
    assert plugin.filter(again, first, i) == OK  # its claim is (assumed) bound to pv-a
    plugin.unreserve(cs, first, "node-a")
    cs3 = CycleState()
    plugin.pre_filter(cs3, second, [i])
    assert plugin.filter(cs3, second, i) == OK


def test_volume_binding_reasons_in_find_pod_volumes_order():
    """A missing bound PV and an unbindable claim: the bind conflict comes first."""
    i = info(node("node-a", labels={"foo": "bar"}))
    plugin = VolumeBinding({}, handle([i], pvcs=[claim("pvc-a", "pv-missing"), claim("pvc-b")], classes=[WAIT_CLASS]))
    cs = CycleState()
    p = pvc_pod("pod-a", "pvc-a", "pvc-b")
    assert plugin.pre_filter(cs, p, [i]) == OK
    assert status(plugin.filter(cs, p, i)) == (UNRESOLVABLE, (ERR_REASON_BIND_CONFLICT, ERR_REASON_PV_NOT_EXIST))
