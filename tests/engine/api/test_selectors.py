"""Label selectors as `kubectl -l` reads them (apimachinery labels.Parse): what they match
and apimachinery's exact messages for what does not parse."""

import pytest

from scheduling.engine.api.selectors import SelectorError, parse


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
