"""Label selectors as `kubectl -l` reads them (apimachinery labels.Parse): what they match
and apimachinery's exact messages for what does not parse."""

import pytest

from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.api.selectors import (
    GREATER_THAN,
    LESS_THAN,
    Requirement,
    SelectorError,
    go_parse_int,
    label_selector_as_selector,
    new_requirement,
    node_selector_requirements_as_selector,
    parse,
)
from scheduling.engine.scheduler.predicates.node_selector import match_node_selector_terms


@pytest.mark.parametrize(
    "text, labels, expected",
    [
        pytest.param("zone=a", {"zone": "a"}, True, id="equality"),
        pytest.param("zone!=a", {"zone": "b"}, True, id="inequality"),
        pytest.param("!dedicated", {"dedicated": "x"}, False, id="does not exist"),
        pytest.param("zone in (a, b),disk", {"zone": "b", "disk": ""}, True, id="set and existence"),
        pytest.param("zone notin (a)", {"zone": "a"}, False, id="notin"),
        pytest.param("zone==a", {"zone": "a"}, True, id="double equals"),
        pytest.param("zone!=a", {}, True, id="inequality matches a missing label"),
        pytest.param("zone notin (a)", {}, True, id="notin matches a missing label"),
        pytest.param("x in (foo,,baz)", {"x": ""}, True, id="an empty value inside a set"),
        pytest.param("cores>4", {"cores": "8"}, True, id="greater than compares integers"),
        pytest.param("cores<4", {"cores": "eight"}, False, id="a non-integer label never compares"),
        pytest.param("", {"any": "thing"}, True, id="an empty selector selects everything"),
    ],
)
def test_label_selectors_read_like_kubectl(text, labels, expected):
    assert parse(text).matches(labels) is expected


VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("a in b", "unable to parse requirement: found 'b' expected: '('", id="a set without parentheses"),
        pytest.param("a in (b", "unable to parse requirement: found '', expected: ',' or ')'", id="an unclosed set"),
        pytest.param("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt", id="no operator"),
        pytest.param("a=b c", "found 'c', expected: ',' or 'end of string'", id="two words for a value"),
        pytest.param("a,", "found '', expected: identifier after ','", id="a trailing comma"),
        pytest.param("=a", "found '=', expected: !, identifier, or 'end of string'", id="no key"),
        pytest.param("!a=b", "found '=', expected: ',' or 'end of string'", id="a negation takes no value"),
        pytest.param("a<x", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer", id="lt needs an integer"),
        pytest.param("a=-x", f'unable to parse requirement: invalid label value: "-x": {VALUE_MSG}', id="an invalid value"),
    ],
)
def test_a_selector_that_does_not_parse_gets_apimachinerys_message(text, message):
    with pytest.raises(SelectorError) as raised:
        parse(text)
    assert str(raised.value) == message


# --- Gt / Lt: both sides parse as Go's strconv.ParseInt(s, 10, 64) -------------------------------------

# (text, what strconv.ParseInt(text, 10, 64) returns; None: an error)
GO_PARSE_INT = [
    ("7", 7), ("+5", 5), ("-5", -5), ("0", 0), ("007", 7), ("-0", 0),
    ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)),
    ("9223372036854775808", None), ("-9223372036854775809", None),  # out of int64: ErrRange
    (" 7", None), ("7 ", None), ("7\n", None),  # Python's int() strips whitespace, Go does not
    ("1_000", None),  # underscores only with base 0
    ("\u0663", None), ("\uff17", None),  # non-ASCII digits, which int() accepts
    ("", None), ("+", None), ("-", None), ("+-1", None), ("--1", None),
    ("1e3", None), ("0x10", None), ("1.0", None), ("\u00b2", None),
]


@pytest.mark.parametrize("text, expected", GO_PARSE_INT, ids=[repr(t) for t, _ in GO_PARSE_INT])
def test_gt_lt_operands_parse_as_go_parse_int(text, expected):
    assert go_parse_int(text) == expected
    # the label's value: Requirement.Matches is false when it does not parse
    gt, lt = Requirement("k", GREATER_THAN, ("-10",)), Requirement("k", LESS_THAN, ("10",))
    assert (gt.matches({"k": text}), lt.matches({"k": text})) == (
        (expected > -10, expected < 10) if expected is not None else (False, False))
    # a LabelSelector's expression and a node selector term match the same way
    assert LabelSelector.from_doc({"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["-10"]}]}).matches(
        {"k": text}) is (expected is not None and expected > -10)
    term = {"matchExpressions": [{"key": "k", "operator": "Lt", "values": ["10"]}]}
    assert match_node_selector_terms([term], {"k": text}, None) is (expected is not None and expected < 10)


@pytest.mark.parametrize("text, expected", GO_PARSE_INT, ids=[repr(t) for t, _ in GO_PARSE_INT])
def test_a_gt_value_that_go_does_not_parse_is_refused_as_the_api_server_words_it(text, expected):
    if expected is None:
        with pytest.raises(SelectorError, match="^for 'Gt', 'Lt' operators, the value must be an integer$"):
            new_requirement("k", GREATER_THAN, [text])
    elif text[0] in "+-":
        # an integer, but not a label value: NewRequirement checks that next
        with pytest.raises(SelectorError, match=f'^invalid label value: "\\{text[0]}'):
            new_requirement("k", GREATER_THAN, [text])
    else:
        assert new_requirement("k", GREATER_THAN, [text]).values == (text,)


def test_gt_lt_take_exactly_one_value():
    with pytest.raises(SelectorError, match="^for 'Gt', 'Lt' operators, exactly one value is required$"):
        node_selector_requirements_as_selector([("k", "Gt", ("1", "2"))])


def test_structured_selectors_are_refused_with_apimachinerys_texts():
    with pytest.raises(SelectorError, match='^"Gt" is not a valid pod selector operator$'):
        label_selector_as_selector([], [("k", "Gt", ("1",))])
    with pytest.raises(SelectorError, match='^"Foo" is not a valid node selector operator$'):
        node_selector_requirements_as_selector([("k", "Foo", ())])
    assert not label_selector_as_selector(None).matches({})  # a nil selector selects nothing
    assert label_selector_as_selector([]).matches({"a": "b"})  # an empty one everything
    assert not node_selector_requirements_as_selector([]).matches({})  # no requirement: nothing
