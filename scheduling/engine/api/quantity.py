"""Kubernetes ``resource.Quantity``: parsing, rounding and canonical printing.

A port of ``k8s.io/apimachinery/pkg/api/resource`` (quantity.go, suffix.go,
amount.go) as shipped with Kubernetes 1.11 / OpenShift 3.11.  Pure standard
library, no Django.

Two levels are offered:

* :func:`parse` is Go's ``ParseQuantity`` (plus the JSON-number handling of
  ``Quantity.UnmarshalJSON``) and returns a :class:`Quantity` that remembers its
  format family and, like Go, its original spelling when that spelling is
  already canonical.
* :func:`parse_quantity`, :func:`canonical`, :func:`milli_value` and
  :func:`value` answer "what does the API server store and print": a quantity
  in a ``ResourceList`` (container requests/limits, node capacity, PV capacity,
  PVC requests) is rounded *up* to milli precision by
  ``SetDefaults_ResourceList`` before it is validated or stored, so
  ``0.1m`` becomes ``1m``.  ``ParseQuantity`` alone keeps nano precision
  (``0.1m`` is ``100u``); use :func:`parse` when that is what you need.

Values are exact :class:`fractions.Fraction` objects; no float is ever used for
arithmetic (floats are accepted as *input*, the way a YAML ``cpu: 0.5`` reaches
the API server as the JSON number ``0.5``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Quantity",
    "QuantityError",
    "canonical",
    "format_quantity",
    "go_json_number",
    "milli_value",
    "parse",
    "parse_quantity",
    "stored_milli_value",
    "stored_value",
    "value",
]

# The three error values of quantity.go, word for word.
SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + SPLIT_RE_STRING + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

# Format names, as Go prints them (they appear in %#v dumps of a Quantity).
DECIMAL_EXPONENT = "DecimalExponent"  # 12e6
BINARY_SI = "BinarySI"  # 12Mi
DECIMAL_SI = "DecimalSI"  # 12M

_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_BY_EXPONENT = {e: s for s, e in _DEC_SUFFIXES.items()}
_BIN_BY_EXPONENT = {e: s for s, e in _BIN_SUFFIXES.items()}

_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_MAX_INT64 = 2**63 - 1
_MIN_INT64 = -(2**63)
_MAX_INT64_FACTORS = 18  # quantity.go: maxInt64Factors
_NANO = -9
_MAX_EXPONENT = 1000
_MILLI = -3
# Go prints a pointer's address in %#v; it cannot be reproduced, so this fixed
# stand-in is used wherever upstream would show one.
_FAKE_POINTER = "0xc420000000"


class QuantityError(ValueError):
    """A quantity that Kubernetes refuses; ``str(err)`` is the apimachinery message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity.

    ``value`` is exact.  ``format`` is the family Go remembers (``DecimalSI``,
    ``BinarySI`` or ``DecimalExponent``).  ``cached`` is Go's ``q.s``: the
    original spelling, kept only when ``ParseQuantity`` judged it canonical —
    which is why ``"+1"`` and ``"1E3"`` print back unchanged.  ``i`` is Go's
    ``int64Amount{value, scale}`` when the fast path was taken, ``None`` when
    Go fell back to an ``inf.Dec`` (only visible in :meth:`go_repr`).
    """

    value: Fraction
    format: str = DECIMAL_SI
    cached: str = ""
    i: tuple[int, int] | None = None

    def string(self) -> str:
        """``Quantity.String()``: the canonical form, or the cached spelling."""
        if self.cached:
            return self.cached
        return _canonicalize(self.value, self.format)

    __str__ = string

    def round_up(self, scale: int = _MILLI) -> Quantity:
        """``Quantity.RoundUp(scale)``: round away from zero to 10**scale.

        The cached spelling survives only when nothing had to change.
        """
        if self.i is not None:
            amount, amount_scale = self.i
            if amount_scale >= scale:
                return self
            rounded = _round_away(Fraction(amount) * Fraction(10) ** amount_scale, scale)
            mantissa = int(rounded * Fraction(10) ** -scale)
            return Quantity(rounded, self.format, "", (mantissa, scale))
        rounded = _round_away(self.value, scale)
        return replace(self, value=rounded, cached="")

    def milli_value(self) -> int:
        """``Quantity.MilliValue()``: value * 1000, rounded away from zero."""
        return _int_away(self.value * 1000)

    def int_value(self) -> int:
        """``Quantity.Value()``: the value rounded away from zero to an integer."""
        return _int_away(self.value)

    def go_repr(self) -> str:
        """What Go's ``%#v`` prints for this Quantity (API errors sometimes show it)."""
        if self.i is not None:
            amount, scale = self.i
            dec = "(*inf.Dec)(nil)"
        else:
            amount, scale = 0, 0
            dec = f"(*inf.Dec)({_FAKE_POINTER})"
        cached = '"' + self.cached.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return (
            f"resource.Quantity{{i:resource.int64Amount{{value:{amount}, scale:{scale}}}, "
            f"d:resource.infDecAmount{{Dec:{dec}}}, s:{cached}, Format:\"{self.format}\"}}"
        )


_ZERO = Quantity(Fraction(0), DECIMAL_SI, "", (0, 0))


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def parse(raw: object) -> Quantity:
    """Parse a quantity the way the API server decodes one from a document.

    ``raw`` may be a string (trimmed, like ``Quantity.UnmarshalJSON`` does), an
    int or a float (a JSON number: YAML ``cpu: 1`` or ``cpu: 0.5``), ``None``
    (JSON ``null``: a zero quantity) or a :class:`Quantity`.  Anything else —
    notably a bool from YAML ``true`` — is what Go would see as non-numeric
    JSON text and fails with the format error.
    """
    if isinstance(raw, Quantity):
        return raw
    if raw is None:
        return _ZERO
    if isinstance(raw, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(raw, int):
        return _parse_string(str(raw))
    if isinstance(raw, float):
        return _parse_string(go_json_number(raw))
    if isinstance(raw, str):
        return _parse_string(raw.strip())
    raise QuantityError(ERR_FORMAT_WRONG)


@functools.lru_cache(maxsize=16384)
def _parse_string(text: str) -> Quantity:
    """``resource.ParseQuantity``, line by line."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(Fraction(0), DECIMAL_SI, text, (0, 0))

    positive, number, num, denom, suffix = _scan(text)
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, fmt = interpreted

    # Fast path: the value fits an int64 mantissa with a scale of at least nano.
    mantissa = 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        scale = 0
        mantissa = 1 << exponent
        # "1Mi (2^20) has ~6 digits of decimal precision" (Go truncates a float32)
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        scale = 0
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            digits = int(shifted)
            result = digits * mantissa
            if _MIN_INT64 <= result <= _MAX_INT64:
                if not positive:
                    result = -result
                # Go keeps the caller's string when it already looks canonical.
                cached = ""
                if fmt == BINARY_SI:
                    if exponent % 10 == 0 and digits & 0x07 != 0:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                return Quantity(Fraction(result) * Fraction(10) ** scale, fmt, cached, (result, scale))

    # Slow path: arbitrary precision (Go's inf.Dec).
    amount = _parse_decimal(number)
    if base == 10:
        amount *= Fraction(10) ** exponent
    else:
        amount *= 2**exponent
    negative = amount < 0
    amount = abs(amount)
    if amount != 0:
        # "if you want some resources, you should get some resources": values
        # finer than a nano are rounded *up*, never to zero.
        amount = _round_away(amount, _NANO)
    if fmt == BINARY_SI and amount > _MAX_INT64:
        amount = Fraction(_MAX_INT64)  # binary quantities are silently capped
    if fmt == BINARY_SI and 0 < amount < 1:
        fmt = DECIMAL_SI
    if negative:
        amount = -amount
    return Quantity(amount, fmt, "", None)


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: split sign, number (num.denom) and suffix.

    This scanner, not ``SPLIT_RE_STRING``, decides what is accepted; the regex
    only survives in the error text.  It accepts a few odd spellings on
    purpose, exactly like Go: ``"."`` and ``"+"`` parse as zero.
    """
    positive = True
    pos = 0
    end = len(text)
    if text[0] == "-":
        positive = False
        pos = 1
    elif text[0] == "+":
        pos = 1

    # leading zeros
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1

    # numerator
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""

    # denominator
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    number = text[:pos]

    # suffix: letters, an optional sign, then digits (the exponent)
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, number, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str] | None:
    """``suffixHandler.interpret``: (base, exponent, format) or None."""
    if suffix in _DEC_SUFFIXES:
        return 10, _DEC_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BIN_SUFFIXES:
        return 2, _BIN_SUFFIXES[suffix], BINARY_SI
    # "e3", "E-3", "e+3"; a lone "e" is not an exponent and "K" is not a suffix.
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        sign = ""
        if rest[0] in "+-":
            sign, rest = rest[0], rest[1:]
        if rest and all(c in _DIGITS for c in rest):
            exponent = int(sign + rest)
            if abs(exponent) > _MAX_EXPONENT:
                # Deliberate deviation: Go would accept "1e999999999" (as a huge
                # int64Amount scale); exact arithmetic on it would hang us.
                return None
            return 10, exponent, DECIMAL_EXPONENT
    return None


def _parse_decimal(number: str) -> Fraction:
    """``inf.Dec.SetString`` on the numeric part; needs at least one digit."""
    sign = 1
    if number[:1] in ("+", "-"):
        sign = -1 if number[0] == "-" else 1
        number = number[1:]
    whole, _, frac = number.partition(".")
    if not (whole + frac):
        raise QuantityError(ERR_NUMERIC)
    return sign * Fraction(int(whole + frac or "0"), 10 ** len(frac))


def go_json_number(number: float) -> str:
    """The JSON text Go's ``encoding/json`` writes for a float64.

    This is what kubectl sends for a YAML float, and therefore what
    ``ParseQuantity`` sees: ``0.5`` → ``"0.5"``, ``100.0`` → ``"100"``,
    ``1e-7`` → ``"1e-7"``, ``1.5e21`` → ``"1.5e+21"``.
    """
    if number != number or number in (math.inf, -math.inf):
        return repr(number)  # Go refuses to encode these; any bad text will do
    if number == 0:
        return "-0" if math.copysign(1.0, number) < 0 else "0"
    exact = Decimal(repr(number)).normalize()  # shortest round-trip digits
    if 1e-6 <= abs(number) < 1e21:
        return format(exact, "f")
    sign, digits, exponent = exact.as_tuple()
    text = "".join(map(str, digits))
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    exp = exponent + len(text) - 1
    # strconv 'e' format pads the exponent to two digits; encoding/json then
    # trims "e-07" to "e-7" (but leaves "e+21" alone).
    exp_text = f"{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp_text.startswith("-0"):
        exp_text = "-" + exp_text[2:]
    return ("-" if sign else "") + mantissa + "e" + exp_text


# --------------------------------------------------------------------------
# Rounding and printing
# --------------------------------------------------------------------------


def _round_away(amount: Fraction, scale: int) -> Fraction:
    """Round to a multiple of 10**scale, away from zero (inf.RoundUp)."""
    unit = Fraction(10) ** scale
    steps = amount / unit
    if steps.denominator == 1:
        return amount
    whole = math.ceil(steps) if steps > 0 else math.floor(steps)
    return whole * unit


def _int_away(amount: Fraction) -> int:
    """Integer part, rounded away from zero (``negativeScaleInt64``)."""
    if amount.denominator == 1:
        return amount.numerator
    return math.ceil(amount) if amount > 0 else math.floor(amount)


def _decimal_parts(amount: Fraction) -> tuple[int, int]:
    """(mantissa, exponent) with the exponent as large as possible and a multiple of 3."""
    exponent = 0
    while amount.denominator != 1:
        amount *= 10
        exponent -= 1
    mantissa = amount.numerator
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3  # floor towards -inf, as Go's loop does
    return mantissa * 10**shift, exponent - shift


def _canonicalize(amount: Fraction, fmt: str) -> str:
    """``Quantity.CanonicalizeBytes``."""
    if amount == 0:
        return "0"
    # A Quantity holds nothing finer than a nano (and cannot hold 1/3 at all).
    amount = _round_away(amount, _NANO)
    if fmt == BINARY_SI:
        if -1024 < amount < 1024:
            fmt = DECIMAL_SI  # "avoids rounding and hopefully confusion, too"
        elif amount.denominator != 1:
            fmt = DECIMAL_SI  # don't lose precision: show as DecimalSI
    if fmt != BINARY_SI:
        mantissa, exponent = _decimal_parts(amount)
        if fmt == DECIMAL_SI and exponent in _DEC_BY_EXPONENT:
            suffix = _DEC_BY_EXPONENT[exponent]
        else:
            # DecimalExponent, or a DecimalSI beyond "E".  Kubernetes 1.11 dropped
            # the exponent in that second case (1000E printed as "1"); newer
            # releases fall back to "e21", which is what we do.
            suffix = f"e{exponent}" if exponent else ""
        return f"{mantissa}{suffix}"
    whole = amount.numerator
    negative = whole < 0
    whole = abs(whole)
    times = 0
    while whole >= 1024 and whole % 1024 == 0:
        whole //= 1024
        times += 1
    return f"{'-' if negative else ''}{whole}{_BIN_BY_EXPONENT.get(times * 10, '')}"


# --------------------------------------------------------------------------
# The convenience API used by the engine
# --------------------------------------------------------------------------


def _stored(raw: object) -> Quantity:
    """A quantity as a ResourceList stores it: parsed, then rounded up to milli."""
    return parse(raw).round_up(_MILLI)


def parse_quantity(raw: object) -> Fraction:
    """Exact value of a quantity as the API server stores it in a ResourceList.

    >>> parse_quantity("1.5Gi")
    Fraction(1610612736, 1)
    >>> parse_quantity("0.1m")   # rounded up to milli, like SetDefaults_ResourceList
    Fraction(1, 1000)
    """
    if type(raw) in _HASHABLE:
        return _stored_fraction(type(raw), raw)
    return _stored(raw).value


@functools.lru_cache(maxsize=65536)
def _stored_fraction(kind: type, raw: object) -> Fraction:
    return _stored(raw).value


# The integer amounts of the quantities as written, kept per spelling: a cluster writes the
# same few ("100m", "512Mi", "4") thousands of times, and the engine reads them as ints.
_HASHABLE = (str, int, float)


@functools.lru_cache(maxsize=65536)
def _stored_amounts(kind: type, raw: object) -> tuple[int, int]:
    """(MilliValue(), Value()) of a quantity as a ResourceList stores it. `kind` is part of
    the key: 1, 1.0 and True are equal keys but not the same input."""
    amount = _stored(raw).value
    return _int_away(amount * 1000), _int_away(amount)


def stored_milli_value(raw: object) -> int:
    """``milli_value(parse_quantity(raw))``, in integers: thousandths of a quantity as a
    ResourceList stores it (QuantityError when it does not parse)."""
    if type(raw) in _HASHABLE:
        return _stored_amounts(type(raw), raw)[0]
    return milli_value(parse_quantity(raw))


def stored_value(raw: object) -> int:
    """``value(parse_quantity(raw))``, in integers: whole units, rounded away from zero."""
    if type(raw) in _HASHABLE:
        return _stored_amounts(type(raw), raw)[1]
    return value(parse_quantity(raw))


def _as_fraction(q: object) -> Fraction:
    if isinstance(q, Quantity):
        return q.value
    if isinstance(q, Fraction):
        return q
    if isinstance(q, (int, Decimal)) and not isinstance(q, bool):
        return Fraction(q)
    return parse_quantity(q)


def milli_value(q: object) -> int:
    """``Quantity.MilliValue()``: thousandths, rounded away from zero (a ceiling for
    the non-negative values that matter).  ``q`` may be a Quantity, a number or a
    string (which is parsed with :func:`parse_quantity`)."""
    return _int_away(_as_fraction(q) * 1000)


def value(q: object) -> int:
    """``Quantity.Value()``: whole units, rounded away from zero."""
    return _int_away(_as_fraction(q))


def format_quantity(q: object, binary: bool | None = None) -> str:
    """Print a quantity as Kubernetes does.

    A :class:`Quantity` (or a string, parsed and rounded like a ResourceList
    entry) keeps its own format family when ``binary`` is None.  A plain
    number prints as DecimalSI, or BinarySI with ``binary=True``.  ``binary``
    True/False forces BinarySI/DecimalSI.
    """
    if isinstance(q, str):
        q = _stored(q)
    if isinstance(q, Quantity):
        if binary is None:
            return q.string()
        return _canonicalize(q.value, BINARY_SI if binary else DECIMAL_SI)
    return _canonicalize(_as_fraction(q), BINARY_SI if binary else DECIMAL_SI)


def canonical(text: str) -> str:
    """The spelling ``oc get -o yaml`` shows for a request/limit/capacity entry.

    >>> canonical("1.5"), canonical("1.5Gi"), canonical("1000m"), canonical("0.1m")
    ('1500m', '1536Mi', '1', '1m')
    """
    return _stored(text).string()
