"""The Kubernetes version an OpenShift release ships (the kubelet's `status.nodeInfo.kubeletVersion`,
the VERSION column of `oc get nodes`, and the kube-apiserver's operand version).

The minor is the documented one ("OpenShift Container Platform 4.y is based on Kubernetes
1.(y+13)": 4.16 on 1.29, 4.18 on 1.31, 4.20 on 1.33, 4.22 on 1.35); 5.0, which follows 4.22,
is taken as the next Kubernetes minor (1.36).

The form is OpenShift's: the kubelet reports its git version, `v1.29.10+67d3387` (a 4.16 node's
`oc get nodes`), the Kubernetes patch release and, after the `+`, the commit of openshift/kubernetes
it was built from. The patch and the commit are stand-ins: the release data holds no per-z-stream
Kubernetes version (`oc adm release info` would say it, release by release), so the patch grows
with the z-stream (a z-stream picks up the Kubernetes patch releases as they come) and the commit
is seven hex digits derived from the OpenShift version; both are the same in every run.
"""

from __future__ import annotations

import hashlib

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


def kube_version(version: str) -> str:
    """`1.<minor>.<patch>`, the Kubernetes release of an OpenShift release ("" when it is not one)."""
    minor = kube_minor(version)
    if minor is None:
        return ""
    v = Version(version)
    patch = 1 + v.patch // 3 if not v.pre else 0
    return f"1.{minor}.{patch}"


def kubelet_version(version: str) -> str:
    """`v1.<minor>.<patch>+<commit>` as the kubelet of an OpenShift release reports it ("" when
    it is not a release version); the patch and the commit are stand-ins (see above)."""
    kube = kube_version(version)
    if not kube:
        return ""
    commit = hashlib.sha256(f"openshift/kubernetes {version}".encode()).hexdigest()[:7]
    return f"v{kube}+{commit}"


def minor_of_kubelet(text: str) -> int | None:
    """The minor of a kubelet version string (`v1.31.4`, `v1.29.5+29c95f3`); None when it does
    not parse as the kube-apiserver operator's semver.Parse would not."""
    raw = (text or "").removeprefix("v")
    if not is_version(raw):
        return None
    return Version(raw).minor
