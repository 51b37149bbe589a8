"""The editor's edits (previews.EDITS): made on copies of a document; the taint edits go
through `oc adm taint`, with its results and messages."""

from __future__ import annotations

import pytest

from scheduling.pages import previews
from tests.engine.builders import node_doc


@pytest.mark.parametrize(
    "edit, taints",
    [
        pytest.param(lambda d: previews.taint_add(d, "k", "v", "NoExecute").doc, [{"key": "k", "value": "v", "effect": "NoExecute"}, {"key": "a", "value": "1", "effect": "NoSchedule"}], id="adding a taint puts it before the others, as oc adm taint does"),
        pytest.param(lambda d: previews.taint_add(d, "a", "2", "NoSchedule").doc, [{"key": "a", "value": "2", "effect": "NoSchedule"}], id="a taint with the same key and effect is overwritten"),
        pytest.param(lambda d: previews.taint_remove(d, 0).doc, None, id="removing the last taint drops the list"),
    ],
)
def test_taint_edits(edit, taints):
    doc = node_doc("n1", taints=["a=1:NoSchedule"])
    doc["metadata"]["resourceVersion"] = "7"
    out = edit(doc)
    assert out["spec"].get("taints") == taints
    assert "resourceVersion" not in out["metadata"]
    assert doc["spec"]["taints"] == [{"key": "a", "value": "1", "effect": "NoSchedule"}]  # the input is untouched


def test_an_unknown_effect_is_refused_with_ocs_message():
    with pytest.raises(previews.EditError, match="invalid taint effect: NoExcute, unsupported taint effect"):
        previews.taint_add(node_doc("n1"), "k", "v", "NoExcute")


def test_the_taint_buttons_and_the_oc_field_make_the_same_document():
    doc = node_doc("n1", taints=["a=1:NoSchedule"])
    by_button = previews.edit(doc, "taint-add", {"key": "k", "value": "v", "effect": "NoExecute"})
    by_oc = previews.edit(doc, "taint-oc", {"taint": "k=v:NoExecute"})
    assert by_button.doc == by_oc.doc
    assert (by_button.summary, by_button.verb) == ("add taint k=v:NoExecute", "tainted")
    assert (by_oc.summary, by_oc.verb) == ("oc adm taint nodes n1 k=v:NoExecute", "tainted")


@pytest.mark.parametrize(
    "op, data, summary, verb",
    [
        pytest.param("taint-remove", {"index": "0"}, "remove taint a=1:NoSchedule", "untainted", id="removing a taint is oc's untaint"),
        pytest.param("taint-add", {"key": "a", "value": "2", "effect": "NoSchedule"}, "add taint a=2:NoSchedule", "modified",
                     id="a new value for a taint is oc's --overwrite, which says modified"),
        pytest.param("label-set", {"key": "team", "value": "x"}, "label team=x", "labeled", id="a label"),
        pytest.param("cordon", {}, "cordon", "cordoned", id="cordon takes no input"),
        pytest.param("condition", {"type": "Ready", "status": "False"}, "condition Ready=False", "replaced", id="a condition"),
    ],
)
def test_each_edit_of_the_table_says_what_it_does_and_what_oc_prints(op, data, summary, verb):
    edited = previews.edit(node_doc("n1", taints=["a=1:NoSchedule"]), op, data)
    assert (edited.summary, edited.verb) == (summary, verb)


@pytest.mark.parametrize(
    "op, data, message",
    [
        pytest.param("taint-remove", {"index": "3"}, "that taint is no longer on the node", id="a taint that is gone"),
        pytest.param("label-set", {"value": "x"}, "key: This field is required.", id="the form's errors"),
        pytest.param("reboot", {}, "unknown edit 'reboot'", id="an edit the table does not know"),
    ],
)
def test_an_edit_that_cannot_be_made_says_why(op, data, message):
    with pytest.raises(previews.EditError) as raised:
        previews.edit(node_doc("n1", taints=["a=1:NoSchedule"]), op, data)
    assert str(raised.value) == message
