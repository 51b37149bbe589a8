"""Kubernetes quantities: what parses, what the API server stores and prints.

Expected strings come from apimachinery's quantity.go (Kubernetes 1.11) and
from a real %#v dump of a node's capacity (quoted in the dump tests below).
"""

from fractions import Fraction

import pytest

from scheduling.engine.api.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Quantity,
    QuantityError,
    canonical,
    format_quantity,
    go_json_number,
    milli_value,
    parse,
    parse_quantity,
    value,
)

FORMAT_WRONG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


def test_the_error_messages_are_apimachinerys_word_for_word():
    assert ERR_FORMAT_WRONG == FORMAT_WRONG
    assert ERR_NUMERIC == "unable to parse numeric part of quantity"
    assert ERR_SUFFIX == "unable to parse quantity's suffix"


@pytest.mark.parametrize(
    "raw, printed, exact",
    [
        pytest.param("1.5", "1500m", Fraction(3, 2), id="a decimal fraction prints in milli units"),
        pytest.param("1.5Gi", "1536Mi", Fraction(1536 * 2**20), id="a fractional binary quantity moves down a suffix"),
        pytest.param("128Mi", "128Mi", Fraction(128 * 2**20), id="a canonical binary quantity stays as written"),
        pytest.param("2", "2", Fraction(2), id="a whole number prints as itself"),
        pytest.param("1000m", "1", Fraction(1), id="a thousand milli is one"),
        pytest.param("1G", "1G", Fraction(10**9), id="a decimal SI suffix is kept"),
        pytest.param("500m", "500m", Fraction(1, 2), id="half a cpu in milli stays milli"),
        pytest.param("0.1m", "1m", Fraction(1, 1000), id="less than a milli is rounded up to one milli"),
        pytest.param("0.0000000001", "1m", Fraction(1, 1000), id="a tenth of a nano still rounds up to a milli"),
        pytest.param("1e3", "1e3", Fraction(1000), id="an exponent keeps the exponent format"),
        pytest.param("1E3", "1E3", Fraction(1000), id="an upper-case exponent is kept as typed because Go caches it"),
        pytest.param("1e-3", "1e-3", Fraction(1, 1000), id="a negative exponent is accepted"),
        pytest.param("12e6", "12e6", Fraction(12 * 10**6), id="an exponent that is a multiple of three stays"),
        pytest.param("1500e-3", "1500e-3", Fraction(3, 2), id="an exponent form is never converted to SI"),
        pytest.param(".5", "500m", Fraction(1, 2), id="a number may start with its decimal point"),
        pytest.param("5.", "5.", Fraction(5), id="a number may end with its decimal point"),
        pytest.param("+1", "+1", Fraction(1), id="a leading plus sign is accepted and kept"),
        pytest.param("-1", "-1", Fraction(-1), id="a negative number parses"),
        pytest.param("1Ki", "1Ki", Fraction(1024), id="one kibibyte stays binary"),
        pytest.param("1.5Ki", "1536", Fraction(1536), id="a binary value that is not a whole kibibyte prints as a number"),
        pytest.param("0.5Gi", "512Mi", Fraction(512 * 2**20), id="half a gibibyte is 512 mebibytes"),
        pytest.param("1024Mi", "1Gi", Fraction(2**30), id="1024 mebibytes print as one gibibyte"),
        pytest.param("2048Ki", "2Mi", Fraction(2 * 2**20), id="2048 kibibytes print as two mebibytes"),
        pytest.param("1.1Ki", "1126400m", Fraction(5632, 5), id="a binary value with a fraction falls back to decimal SI"),
        pytest.param("  250m ", "250m", Fraction(1, 4), id="surrounding blanks are trimmed as the JSON decoder does"),
        pytest.param("0", "0", Fraction(0), id="zero is zero"),
        pytest.param(1, "1", Fraction(1), id="a YAML integer is a JSON number"),
        pytest.param(0.5, "500m", Fraction(1, 2), id="a YAML float is a JSON number"),
        pytest.param(100.0, "100", Fraction(100), id="a float with no fraction is sent as a whole number"),
        pytest.param(None, "0", Fraction(0), id="a null quantity is zero"),
    ],
)
def test_canonical_form_and_exact_value(raw, printed, exact):
    if isinstance(raw, str):
        assert canonical(raw) == printed
    assert format_quantity(parse(raw).round_up(-3)) == printed
    assert parse_quantity(raw) == exact


@pytest.mark.parametrize(
    "raw, message",
    [
        pytest.param("K", ERR_SUFFIX, id="an upper-case K alone is not a suffix"),
        pytest.param("1K", ERR_SUFFIX, id="an upper-case K after a number is not a suffix"),
        pytest.param("6GiB", FORMAT_WRONG, id="a trailing B does not match the format"),
        pytest.param("1e-7Ti", FORMAT_WRONG, id="an exponent cannot be combined with a unit"),
        pytest.param("abc", FORMAT_WRONG, id="letters alone do not match the format"),
        pytest.param("", FORMAT_WRONG, id="an empty string does not match the format"),
        pytest.param("1.5.5", FORMAT_WRONG, id="two decimal points do not match the format"),
        pytest.param("1e", ERR_SUFFIX, id="an exponent marker without digits is a bad suffix"),
        pytest.param("1Kii", ERR_SUFFIX, id="an unknown run of suffix letters is a bad suffix"),
        pytest.param(".e-20", ERR_NUMERIC, id="a number without digits that needs exact arithmetic is refused"),
        pytest.param(True, FORMAT_WRONG, id="a YAML boolean is not a quantity"),
        pytest.param(["1"], FORMAT_WRONG, id="a list is not a quantity"),
    ],
)
def test_refused_quantities_give_the_apimachinery_message(raw, message):
    with pytest.raises(QuantityError) as err:
        parse_quantity(raw)
    assert str(err.value) == message
    assert err.value.message == message


@pytest.mark.parametrize(
    "raw, printed",
    [
        pytest.param("0.1m", "100u", id="without list defaulting a tenth of a milli is a hundred micro"),
        pytest.param("0.0000000001", "1n", id="without list defaulting values round up to a nano"),
        pytest.param("1.5", "1500m", id="parsing alone already canonicalises a fraction"),
    ],
)
def test_parse_alone_keeps_nano_precision(raw, printed):
    assert parse(raw).string() == printed


@pytest.mark.parametrize(
    "raw, millis, units",
    [
        pytest.param("1.5", 1500, 2, id="a cpu and a half"),
        pytest.param("100m", 100, 1, id="a tenth of a cpu rounds up to one whole unit"),
        pytest.param("0.1m", 1, 1, id="a tenth of a milli is one milli once stored"),
        pytest.param("128Mi", 128 * 2**20 * 1000, 128 * 2**20, id="memory in mebibytes"),
        pytest.param(2, 2000, 2, id="an integer"),
    ],
)
def test_milli_value_and_value_round_up(raw, millis, units):
    assert milli_value(raw) == millis
    assert value(raw) == units


def test_milli_value_of_a_parsed_quantity_rounds_a_fraction_of_a_milli_up():
    assert parse("0.1m").milli_value() == 1
    assert milli_value(Fraction(1, 3)) == 334


@pytest.mark.parametrize(
    "q, binary, printed",
    [
        pytest.param(Fraction(3, 2), None, "1500m", id="a plain fraction prints as decimal SI"),
        pytest.param(Fraction(1536 * 2**20), True, "1536Mi", id="binary can be asked for"),
        pytest.param(parse("1.5Gi"), False, "1610612736", id="decimal can be forced on a binary quantity"),
        pytest.param(parse("1Gi"), None, "1Gi", id="a parsed quantity keeps its binary family"),
        pytest.param(parse("1e3"), None, "1e3", id="a parsed quantity keeps its exponent family"),
        pytest.param(1024, True, "1Ki", id="an integer can print as binary"),
        pytest.param(1000, None, "1k", id="an integer prints with the largest SI suffix"),
        pytest.param(Fraction(1, 3), None, "333333334n", id="a value finer than a nano is rounded up to a nano"),
        pytest.param("1.5Gi", None, "1536Mi", id="a string is parsed first"),
    ],
)
def test_format_quantity(q, binary, printed):
    assert format_quantity(q, binary=binary) == printed


def test_binary_quantities_are_capped_at_the_largest_int64():
    assert parse_quantity("8Ei") == 2**63 - 1
    assert canonical("8Ei") == "9223372036854775807"


def test_decimal_quantities_beyond_the_exa_suffix_print_with_an_exponent():
    # Kubernetes 1.11 printed "1" here (a bug fixed later); we print the value.
    assert canonical("1000E") == "1e21"


@pytest.mark.parametrize(
    "raw, dump",
    [
        pytest.param(
            "32",
            'resource.Quantity{i:resource.int64Amount{value:32, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"32", Format:"DecimalSI"}',
            id="a node's cpu capacity dumps like the real node",
        ),
        pytest.param(
            "31500m",
            'resource.Quantity{i:resource.int64Amount{value:31500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"31500m", Format:"DecimalSI"}',
            id="a node's allocatable cpu dumps like the real node",
        ),
        pytest.param(
            "125293548Ki",
            'resource.Quantity{i:resource.int64Amount{value:128300593152, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"125293548Ki", Format:"BinarySI"}',
            id="a node's ephemeral storage dumps like the real node",
        ),
        pytest.param(
            "114396791822",
            'resource.Quantity{i:resource.int64Amount{value:114396791822, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"114396791822", Format:"DecimalSI"}',
            id="a large plain number dumps with its cached spelling",
        ),
    ],
)
def test_go_dump_matches_an_observed_node_status(raw, dump):
    assert parse(raw).round_up(-3).go_repr() == dump


@pytest.mark.parametrize(
    "number, text",
    [
        pytest.param(0.5, "0.5", id="a simple fraction"),
        pytest.param(100.0, "100", id="a whole float loses its point"),
        pytest.param(1e-7, "1e-7", id="a tiny float uses a trimmed exponent"),
        pytest.param(0.000001, "0.000001", id="one millionth is still written out"),
        pytest.param(1.5e21, "1.5e+21", id="a huge float keeps the plus sign"),
        pytest.param(123456789.123, "123456789.123", id="a long float keeps its shortest digits"),
    ],
)
def test_floats_are_sent_as_go_writes_json_numbers(number, text):
    assert go_json_number(number) == text


def test_a_parsed_quantity_is_a_value_object():
    assert parse("100m") == parse("100m")
    assert isinstance(parse("100m"), Quantity)
    assert parse("1.500").string() == "1.500"  # Go caches a spelling it thinks canonical
