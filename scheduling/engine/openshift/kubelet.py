"""The Kubernetes version an OpenShift release ships (the kubelet's `status.nodeInfo.kubeletVersion`,
the VERSION column of `oc get nodes`, and the kube-apiserver's operand version).

The minor is the documented one ("OpenShift Container Platform 4.y is based on Kubernetes
1.(y+13)": 4.16 on 1.29, 4.18 on 1.31, 4.20 on 1.33, 4.22 on 1.35); 5.0, which follows 4.22,
is taken as the next Kubernetes minor (1.36). The patch level is a stand-in: the data holds no
per-z-stream Kubernetes patch, so it grows with the z-stream (a z-stream picks up the
Kubernetes patch releases as they come) and is the same in every run.
"""

from __future__ import annotations

from .versions import Version, is_version

# an OpenShift 4 minor of the mapping and its Kubernetes minor (the rule holds from 4.3 on)
_BASE_OPENSHIFT_MINOR, _BASE_KUBE_MINOR = 10, 23
# the last 4.y minor; 5.0 follows it
_LAST_FOUR = 22


def kube_minor(version: str) -> int | None:
    """The Kubernetes minor of an OpenShift release (None for a version that is not one)."""
    if not is_version(version):
        return None
    v = Version(version)
    if v.major == 4:
        return _BASE_KUBE_MINOR + v.minor - _BASE_OPENSHIFT_MINOR
    if v.major == 5:
        return _BASE_KUBE_MINOR + _LAST_FOUR - _BASE_OPENSHIFT_MINOR + 1 + v.minor
    return None


def kubelet_version(version: str) -> str:
    """`v1.<minor>.<patch>` for an OpenShift release ("" when it is not a release version)."""
    minor = kube_minor(version)
    if minor is None:
        return ""
    v = Version(version)
    patch = 1 + v.patch // 3 if not v.pre else 0
    return f"v1.{minor}.{patch}"


def minor_of_kubelet(text: str) -> int | None:
    """The minor of a kubelet version string (`v1.31.4`, `v1.29.5+29c95f3`); None when it does
    not parse as the kube-apiserver operator's semver.Parse would not."""
    raw = (text or "").removeprefix("v")
    if not is_version(raw):
        return None
    return Version(raw).minor
