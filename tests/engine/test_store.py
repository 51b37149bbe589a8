"""The store's indexes (engine.store.Store: order, names, pods by node, by owner, by label,
orphans) say what a plain scan of its documents says, after any sequence of the actions
the controllers apply (created, replaced, bound, labelled, adopted, deleted...), in the
store itself, in a copy of it, and in a Scratch view."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import actions as A
from scheduling.engine.store import Scratch, Store, controller_ref, name_of, namespace_of

NODES = ("n1", "n2", "n3")
NAMESPACES = ("default", "shop")
PODS = ("a", "b", "c", "d")
OWNERS = (("ReplicaSet", "web"), ("ReplicaSet", "api"), ("StatefulSet", "db"))
LABELS = st.dictionaries(st.sampled_from(("app", "tier")), st.sampled_from(("web", "db", "x")), max_size=2)


def _owner_refs(owner):
    if owner is None:
        return {}
    kind, name = owner
    return {"ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"{kind}-{name}", "controller": True}]}


@st.composite
def pod_docs(draw):
    ns, name = draw(st.sampled_from(NAMESPACES)), draw(st.sampled_from(PODS))
    labels = draw(LABELS)
    node = draw(st.sampled_from(("",) + NODES))
    owner = draw(st.one_of(st.none(), st.sampled_from(OWNERS)))
    metadata = {"name": name, "namespace": ns, **({"labels": labels} if labels else {}), **_owner_refs(owner)}
    if draw(st.booleans()) and owner is not None:  # a non-controller reference besides
        metadata["ownerReferences"] = [{"kind": "Foo", "name": "bar", "uid": "x"}] + metadata["ownerReferences"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": {**({"nodeName": node} if node else {}), "containers": [{"name": "c", "image": "i"}]}}


def _pod_ref(draw):
    return draw(st.sampled_from(NAMESPACES)), draw(st.sampled_from(PODS))


@st.composite
def actions(draw):
    which = draw(st.sampled_from(("create", "replace", "delete", "bind", "label", "unlabel", "adopt", "delete-pod",
                                  "node", "delete-node", "workload", "status")))
    if which == "create":
        return A.CreateObject(draw(pod_docs()))
    if which == "replace":
        return A.ReplaceObject(draw(pod_docs()), keep_status=draw(st.booleans()))
    ns, name = _pod_ref(draw)
    if which == "delete":
        return A.DeleteObject("Pod", ns, name)
    if which == "bind":
        return A.Bind(ns, name, draw(st.sampled_from(NODES)))
    if which == "label":
        return A.SetLabel("Pod", ns, name, draw(st.sampled_from(("app", "tier"))), draw(st.sampled_from(("web", "db"))))
    if which == "unlabel":
        return A.SetLabel("Pod", ns, name, draw(st.sampled_from(("app", "tier"))), None)
    if which == "adopt":
        kind, owner = draw(st.sampled_from(OWNERS))
        return A.SetControllerRef("Pod", ns, name, {"apiVersion": "apps/v1", "kind": kind, "name": owner,
                                                    "uid": f"{kind}-{owner}", "controller": True})
    if which == "delete-pod":
        return A.SetPodDeletion(ns, name, 10.0, 30)
    if which == "status":
        return A.PatchStatus("Pod", ns, name, {"phase": draw(st.sampled_from(("Running", "Pending", None)))})
    node = draw(st.sampled_from(NODES))
    if which == "node":
        return A.CreateObject({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
    if which == "delete-node":
        return A.DeleteObject("Node", "", node)
    kind, owner = draw(st.sampled_from(OWNERS))
    return A.CreateObject({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": owner, "namespace": ns}})


def check(store: Store) -> None:
    """Every index query against a scan of the store's documents."""
    pods = store.list("Pod")
    keys = [(namespace_of(p), name_of(p)) for p in pods]
    for kind in store.kinds():
        docs = store.list(kind)
        # order: sorts the documents as list() has them
        assert sorted(docs, key=lambda d: store.order(kind, namespace_of(d), name_of(d))) == docs
        for ns in ("",) + NAMESPACES:
            assert set(store.names(kind, ns)) == {name_of(d) for d in docs if namespace_of(d) == ns}
        refs = [(namespace_of(d), name_of(d)) for d in docs]
        some = refs[::2] + [("nowhere", "x")]
        assert store.in_order(kind, some) == [d for d, r in zip(docs, refs) if r in set(some)]
    for node in NODES:
        assert set(store.pods_on_node(node)) == {
            k for k, p in zip(keys, pods) if (p.get("spec") or {}).get("nodeName") == node}
    for ns in NAMESPACES:
        assert set(store.orphan_pods(ns)) == {k for k, p in zip(keys, pods) if k[0] == ns and controller_ref(p) is None}
        for kind, owner in OWNERS:
            assert set(store.pods_of(ns, kind, owner)) == {
                k for k, p in zip(keys, pods) if k[0] == ns and (controller_ref(p) or {}).get("kind") == kind
                and (controller_ref(p) or {}).get("name") == owner}
        for key in ("app", "tier"):
            for value in ("web", "db", "x"):
                assert set(store.pods_labelled(ns, key, value)) == {
                    k for k, p in zip(keys, pods) if k[0] == ns and ((p.get("metadata") or {}).get("labels") or {}).get(key) == value}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pod_docs(), max_size=6), st.lists(actions(), max_size=30))
def test_the_indexes_say_what_a_scan_says_after_any_edits(initial, edits):
    store = Store(initial)
    check(store)
    for i, action in enumerate(edits):
        store.apply(action)
        check(store)
        if i == len(edits) // 2:
            before = store.copy()  # a copy keeps its own indexes from here on
    check(store)
    if edits:
        check(before)
        for action in edits:
            before.apply(action)
        check(before)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pod_docs(), min_size=1, max_size=6),
       st.lists(st.sampled_from(("bind", "label", "delete-pod", "status")), max_size=12), st.data())
def test_a_scratch_view_changes_documents_and_answers_from_the_base(initial, which, data):
    """A Scratch store (eviction passes) changes documents but not the ones its base holds,
    and whatever it changes of what the indexes file (a pod's node, its labels) it answers
    index queries from its base, as documented: the base's indexes stay the base's."""
    store = Store(initial)
    docs_before = {(namespace_of(d), name_of(d)): d for d in store.list("Pod")}
    scratch = Scratch(store)
    for w in which:
        ns, name = data.draw(st.sampled_from(sorted(docs_before)))
        action = {"bind": A.Bind(ns, name, data.draw(st.sampled_from(NODES))),
                  "label": A.SetLabel("Pod", ns, name, "app", "db"),
                  "delete-pod": A.SetPodDeletion(ns, name, 1.0, 30),
                  "status": A.PatchStatus("Pod", ns, name, {"phase": "Running"})}[w]
        scratch.apply(action)
    assert {(namespace_of(d), name_of(d)): d for d in store.list("Pod")} == docs_before  # the very documents
    check(store)
    assert [(namespace_of(d), name_of(d)) for d in scratch.list("Pod")] == list(docs_before)
    for ns, name in docs_before:
        assert scratch.get("Pod", ns, name) is [d for d in scratch.list("Pod") if (namespace_of(d), name_of(d)) == (ns, name)][0]
    # a copy of the view: a store of its own with the view's documents, its indexes filed anew
    copied = scratch.copy()
    assert copied.list("Pod") == scratch.list("Pod") and copied.controller_state == scratch.controller_state
    check(copied)
