"""Upstream's scheduler test wrappers (pkg/scheduler/testing: st.MakePod(), st.MakeNode(),
st.MakeLabelSelector()) building documents, turned into objects by Node.from_doc /
Pod.from_doc, so the translated test tables read as upstream's do."""

from __future__ import annotations

import copy
from typing import Iterable

from scheduling.engine.api.objects import Node, Pod

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
POD_AFFINITY_WITH_REQUIRED_REQ = "required"
POD_AFFINITY_WITH_PREFERRED_REQ = "preferred"


class MakeLabelSelector:
    def __init__(self):
        self.doc: dict = {}

    def Label(self, k: str, v: str):
        self.doc.setdefault("matchLabels", {})[k] = v
        return self

    def _expr(self, k, op, values=None):
        e = {"key": k, "operator": op}
        if values is not None:
            e["values"] = list(values)
        self.doc.setdefault("matchExpressions", []).append(e)
        return self

    def In(self, k, values):
        return self._expr(k, "In", values)

    def NotIn(self, k, values):
        return self._expr(k, "NotIn", values)

    def Exists(self, k):
        return self._expr(k, "Exists")

    def NotExist(self, k):
        return self._expr(k, "DoesNotExist")

    def Obj(self) -> dict:
        return copy.deepcopy(self.doc)


class MakeNode:
    def __init__(self):
        self.doc: dict = {"kind": "Node", "metadata": {"name": "", "labels": {}}, "spec": {},
                          "status": {"capacity": {"cpu": "32", "memory": "64Gi", "pods": "110"},
                                     "allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"}}}

    def Name(self, name: str):
        self.doc["metadata"]["name"] = name
        return self

    def Label(self, k: str, v: str):
        self.doc["metadata"]["labels"][k] = v
        return self

    def Taints(self, taints: Iterable[dict]):
        self.doc["spec"]["taints"] = [dict(t) for t in taints]
        return self

    def Obj(self) -> Node:
        return Node.from_doc(self.doc)


class MakePod:
    def __init__(self):
        self.doc: dict = {"kind": "Pod", "metadata": {"name": "", "namespace": "default", "labels": {}},
                          "spec": {"containers": [{"name": "c"}]}, "status": {}}

    @property
    def spec(self) -> dict:
        return self.doc["spec"]

    def Name(self, name: str):
        self.doc["metadata"]["name"] = name
        return self

    def UID(self, uid: str):
        self.doc["metadata"]["uid"] = uid
        return self

    def Namespace(self, ns: str):
        self.doc["metadata"]["namespace"] = ns
        return self

    def Node(self, name: str):
        self.spec["nodeName"] = name
        return self

    def Label(self, k: str, v: str):
        self.doc["metadata"]["labels"][k] = v
        return self

    def Labels(self, labels: dict):
        self.doc["metadata"]["labels"].update(labels)
        return self

    def Terminating(self):
        self.doc["metadata"]["deletionTimestamp"] = 1.0
        return self

    def OwnerReference(self, name: str, kind: str):
        self.doc["metadata"].setdefault("ownerReferences", []).append(
            {"kind": kind, "name": name, "controller": True, "uid": name})
        return self

    def NodeSelector(self, selector: dict):
        self.spec["nodeSelector"] = dict(selector)
        return self

    def NodeAffinityIn(self, key: str, values: list, _type: str = "required"):
        na = self.spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{"matchExpressions": []}]})
        req["nodeSelectorTerms"][0]["matchExpressions"].append({"key": key, "operator": "In", "values": list(values)})
        return self

    def NodeAffinityNotIn(self, key: str, values: list, _type: str = "required"):
        na = self.spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{"matchExpressions": []}]})
        req["nodeSelectorTerms"][0]["matchExpressions"].append({"key": key, "operator": "NotIn", "values": list(values)})
        return self

    def Toleration(self, key: str):
        self.spec.setdefault("tolerations", []).append({"key": key, "operator": "Exists"})
        return self

    def Affinity(self, affinity: dict):
        self.spec["affinity"] = copy.deepcopy(affinity)
        return self

    def SpreadConstraint(self, max_skew: int, key: str, mode: str, selector: dict | None, min_domains: int | None = None,
                         node_affinity_policy: str | None = None, node_taints_policy: str | None = None,
                         match_label_keys: list | None = None):
        c: dict = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": mode}
        if selector is not None:
            c["labelSelector"] = copy.deepcopy(selector)
        if min_domains is not None:
            c["minDomains"] = min_domains
        if node_affinity_policy is not None:
            c["nodeAffinityPolicy"] = node_affinity_policy
        if node_taints_policy is not None:
            c["nodeTaintsPolicy"] = node_taints_policy
        if match_label_keys:
            c["matchLabelKeys"] = list(match_label_keys)
        self.spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def _pod_affinity(self, kind: str, term: dict, typ: str, weight: int = 1):
        pa = self.spec.setdefault("affinity", {}).setdefault(kind, {})
        if typ == POD_AFFINITY_WITH_REQUIRED_REQ:
            pa.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        else:
            pa.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": weight, "podAffinityTerm": term})
        return self

    def PodAffinityExists(self, label_key: str, topology_key: str, typ: str):
        return self._pod_affinity("podAffinity", {"labelSelector": MakeLabelSelector().Exists(label_key).Obj(),
                                                  "topologyKey": topology_key}, typ)

    def PodAntiAffinityExists(self, label_key: str, topology_key: str, typ: str):
        return self._pod_affinity("podAntiAffinity", {"labelSelector": MakeLabelSelector().Exists(label_key).Obj(),
                                                      "topologyKey": topology_key}, typ)

    def PodAffinityIn(self, label_key: str, topology_key: str, values: list, typ: str):
        return self._pod_affinity("podAffinity", {"labelSelector": MakeLabelSelector().In(label_key, values).Obj(),
                                                  "topologyKey": topology_key}, typ)

    def PodAntiAffinityIn(self, label_key: str, topology_key: str, values: list, typ: str):
        return self._pod_affinity("podAntiAffinity", {"labelSelector": MakeLabelSelector().In(label_key, values).Obj(),
                                                      "topologyKey": topology_key}, typ)

    def PodAffinityNotIn(self, label_key: str, topology_key: str, values: list, typ: str):
        return self._pod_affinity("podAffinity", {"labelSelector": MakeLabelSelector().NotIn(label_key, values).Obj(),
                                                  "topologyKey": topology_key}, typ)

    def PodAntiAffinityNotIn(self, label_key: str, topology_key: str, values: list, typ: str):
        return self._pod_affinity("podAntiAffinity", {"labelSelector": MakeLabelSelector().NotIn(label_key, values).Obj(),
                                                      "topologyKey": topology_key}, typ)

    def Obj(self) -> Pod:
        return Pod.from_doc(self.doc)
