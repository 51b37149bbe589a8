"""The namespaces a running cluster has. The API server of every cluster creates `default`,
`kube-system`, `kube-public` and `kube-node-lease` at start (kube-apiserver's
SystemNamespaces, pkg/controlplane/controller/systemnamespaces); a namespace that holds
objects exists too. A stored cluster keeps only the Namespace documents it was given, so
`oc get namespaces` on a running cluster (the session says so: engine.oc.session.SESSION)
adds the ones it lacks, each Active since the cluster's first node, with the label every
namespace carries (`kubernetes.io/metadata.name`). On an OpenShift 4 cluster (one with a
ClusterVersion) the namespaces of its release payload's operators are there too
(engine.openshift.namespaces: openshift-etcd, openshift-kube-apiserver, openshift-monitoring,
...), following the Cluster Version Operator through an update. A snapshot given with -f is
taken exactly as given: nothing is added."""

from __future__ import annotations

from typing import Any

from scheduling.engine.openshift.namespaces import cluster_namespaces
from scheduling.engine.store import Store

from .core import meta
from .output import seconds

SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def _cluster_start(store: Store) -> Any:
    times = [seconds(meta(n).get("creationTimestamp")) for n in store.list("Node")]
    times = [t for t in times if t is not None]
    return min(times) if times else None


def implied(store: Store) -> list[dict]:
    """The namespaces the cluster has that it holds no document for, sorted by name."""
    stored = {meta(d).get("name") for d in store.list("Namespace")}
    used = {meta(d).get("namespace") for kind in store.kinds() if kind != "Namespace" for d in store.list(kind)}
    release = cluster_namespaces(store)
    names = sorted((set(SYSTEM_NAMESPACES) | {n for n in used if n} | set(release)) - stored)
    start = _cluster_start(store)
    out = []
    for name in names:
        metadata: dict = {"labels": {"kubernetes.io/metadata.name": name}, "name": name}
        created = release.get(name)
        if created is None:
            created = start
        if created is not None:
            metadata["creationTimestamp"] = created
        out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata,
                    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    return out


def all_namespaces(store: Store) -> list[dict]:
    return list(store.list("Namespace")) + implied(store)


def get(store: Store, name: str) -> dict | None:
    return store.get("Namespace", "", name) or next((d for d in implied(store) if meta(d).get("name") == name), None)
