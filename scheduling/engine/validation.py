"""API-server validation of Kubernetes documents, with the server's own messages.

Documents are plain dicts, as ``yaml.safe_load`` or ``json.loads`` return them.
Everything here reproduces Kubernetes 1.11 (OpenShift 3.11):
``k8s.io/apimachinery/pkg/util/validation`` (label keys, label values, DNS
names), ``.../util/validation/field`` (how an error prints),
``pkg/apis/core/validation`` (Pod, Node, Service, PV, PVC, Namespace, RC),
``pkg/apis/apps/validation``, ``pkg/apis/policy/validation``,
``pkg/apis/scheduling/validation`` and ``pkg/apis/storage/validation``.
Error order follows the Go code (maps are walked in document order, where Go
would use its random map order).

How a request is judged, and how this module mirrors it:

1. **Decoding.**  Go decodes JSON into typed structs first.  A value of the
   wrong JSON type (YAML ``true`` where a label value string belongs, ``1``
   where a name belongs) fails the whole request with HTTP 400 before any
   validation runs.  We report it as one :class:`FieldError` of the special
   type ``"DecodeError"`` whose ``detail`` is Go's ``encoding/json`` message
   word for word, e.g. ``json: cannot unmarshal bool into Go struct field
   ObjectMeta.metadata.labels of type string``; ``body()`` and ``str()``
   return that text verbatim (it already names the field), ``field`` holds the
   dotted JSON path.  As in Go only the first decode error is reported and
   nothing else is checked.  :class:`InvalidError` then renders the 400 form
   ``Pod in version "v1" cannot be handled as a Pod: json: ...``.
2. **Defaulting.**  Fields the API server defaults (``imagePullPolicy``,
   ``protocol``, ``restartPolicy``, ``dnsPolicy``, a v1 RC's selector, an
   ``extensions/v1beta1`` Deployment's selector...) are only checked when the
   document sets them.  ResourceList quantities are rounded up to milli
   precision (``SetDefaults_ResourceList``) before they are checked.
3. **Validation** proper, with ``field.Error`` rendering: see
   :meth:`FieldError.body`.

Deliberate departures (each also noted where it happens):

* A malformed quantity is a decode error upstream (``Pod in version "v1"
  cannot be handled as a Pod: quantities must match ...``).  We report it as
  ``<path>[<resource>]: Invalid value: "<raw>": <quantity message>`` so the
  user sees which field is wrong, alongside the other errors.
* Go prints pointers inside ``%#v`` dumps as addresses; we print the fixed
  stand-in ``0xc420000000``.  Map dumps are printed with sorted keys (Go 1.12+).
* Volumes, probes, env, security contexts and other fields that do not matter
  for scheduling are not validated.
* StatefulSet pod templates are, as in 1.11, not validated beyond labels and
  annotations (upstream TODO in ``ValidatePodTemplateSpecForStatefulSet``).
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import json
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable, Iterable

from . import quantity as _quantity

__all__ = [
    "DECODE_ERROR",
    "DUPLICATE",
    "FORBIDDEN",
    "INTERNAL",
    "INVALID",
    "NOT_FOUND",
    "NOT_SUPPORTED",
    "REQUIRED",
    "SUPPORTED_KINDS",
    "TOO_LONG",
    "FieldError",
    "GoValue",
    "InvalidError",
    "go_quote",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "validate",
    "validate_or_raise",
    "validate_taint_effect",
    "validate_taints",
    "validate_tolerations",
]

# ==========================================================================
# 1. Format checks (k8s.io/apimachinery/pkg/util/validation, 1.11 wording)
# ==========================================================================

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR_MSG = (
    "a DNS-1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + r"(\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR_MSG = (
    "a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_ERR_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
DNS1035_LABEL_MAX_LENGTH = 63
PERCENT_FMT = "[0-9]+%"
PERCENT_ERR_MSG = "a valid percent string must be a numeric string followed by an ending '%'"

_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(DNS1035_LABEL_FMT)
_PERCENT_RE = re.compile(PERCENT_FMT)
_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_ONE_LETTER_RE = re.compile("[a-z]")

EMPTY_ERROR = "must be non-empty"
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"


def max_len_error(length: int) -> str:
    # Kubernetes 1.35 says "bytes" for label keys and values; 1.11 says "characters".
    return f"must be no more than {length} characters"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``.  Each example is written as ``'X', `` and the next one is
    prefixed with `` or `` — hence the two spaces before every "or"."""
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += "'" + example + "', "
    return msg + "regex used for validation is '" + fmt + "')"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


def _byte_len(text: str) -> int:
    """Go's ``len()`` counts UTF-8 bytes, not characters."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


@functools.lru_cache(maxsize=8192)
def _qualified_name_errors(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + m for m in _dns1123_subdomain_errors(prefix))
    else:
        return (
            "a qualified name "
            + regex_error(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif _byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    # Not an "else": an empty name part also fails the regex, so Go reports both.
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def _label_value_errors(value: str) -> tuple[str, ...]:
    errs = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def _dns1123_label_errors(value: str) -> tuple[str, ...]:
    errs = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def _dns1123_subdomain_errors(value: str) -> tuple[str, ...]:
    errs = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


@functools.lru_cache(maxsize=1024)
def _dns1035_label_errors(value: str) -> tuple[str, ...]:
    errs = []
    if _byte_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return tuple(errs)


def is_qualified_name(key: str) -> list[str]:
    """``IsQualifiedName``: the rules for label keys, taint and toleration keys,
    node-selector keys and topology keys.  Returns the messages (empty if valid).

    The name part may contain upper case; a ``prefix/`` must be a lower-case
    DNS-1123 subdomain (≤ 253); the name part is ≤ 63.
    """
    return list(_qualified_name_errors(key))


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue`` (also taint values and ``Equal`` toleration values)."""
    return list(_label_value_errors(value))


def is_dns1123_label(value: str) -> list[str]:
    return list(_dns1123_label_errors(value))


def is_dns1123_subdomain(value: str) -> list[str]:
    return list(_dns1123_subdomain_errors(value))


def is_dns1035_label(value: str) -> list[str]:
    return list(_dns1035_label_errors(value))


def _is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def _is_valid_port_name(port: str) -> list[str]:
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET_RE.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_ONE_LETTER_RE.search(port):
        errs.append("must contain at least one letter or number (a-z, 0-9)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def _is_valid_percent(value: str) -> list[str]:
    if _PERCENT_RE.fullmatch(value):
        return []
    return [regex_error(PERCENT_ERR_MSG, PERCENT_FMT, "1%", "93%")]


# Object-name functions: (name, prefix) -> messages.  ``prefix`` is True for a
# generateName, whose trailing dash is masked before checking.


def _mask_trailing_dash(name: str) -> str:
    # Upstream replaces the last *two* characters with "a" (sic).
    if name.endswith("-") and len(name) >= 2:
        return name[:-2] + "a"
    return name


def _name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def _name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def _name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def _name_is_path_segment(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: what the generic registry requires of
    every name (and all that PodDisruptionBudget names are checked against)."""
    if not prefix:
        for illegal in (".", ".."):
            if name == illegal:
                return [f"may not be '{illegal}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


# ==========================================================================
# 2. Printing values the way Go does
# ==========================================================================

# Go prints pointers in %#v as addresses, which cannot be reproduced.
FAKE_POINTER = "0xc420000000"
_GO_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}


def go_quote(text: str) -> str:
    """``strconv.Quote`` / ``%q``: Go string-literal quoting."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch == " " or unicodedata.category(ch)[0] in "LMNPS":
            out.append(ch)  # strconv.IsPrint
        else:
            code = ord(ch)
            if code < 0x20 or code == 0x7F:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _go_float(number: float) -> str:
    """``%v`` of a float64: shortest digits, exponent form below 1e-4 or from 1e21."""
    if number == 0:
        return "0"
    exact = Decimal(repr(number)).normalize()
    exponent = exact.adjusted()
    if -4 <= exponent < 21:
        return format(exact, "f")
    sign, digits, _ = exact.as_tuple()
    text = "".join(map(str, digits))
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if sign else "") + f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


@dataclass(frozen=True)
class GoValue:
    """A bad value that Go prints with ``%#v`` (a struct, map or slice dump).

    ``text`` is the exact dump; :meth:`FieldError.body` prints it unquoted.
    """

    text: str

    def __str__(self) -> str:
        return self.text


def _go_string_map(mapping: dict | None, type_name: str = "map[string]string") -> str:
    if mapping is None:
        return f"{type_name}(nil)"
    items = ", ".join(f"{go_quote(str(k))}:{go_quote(_as_str(mapping[k]))}" for k in sorted(mapping, key=str))
    return f"{type_name}{{{items}}}"


def _go_string_slice(items: list | None, type_name: str = "[]string") -> str:
    if items is None:
        return f"{type_name}(nil)"
    return f"{type_name}{{{', '.join(go_quote(_as_str(i)) for i in items)}}}"


def _go_pointer(type_name: str, present: bool) -> str:
    return f"(*{type_name})({FAKE_POINTER if present else 'nil'})"


def _go_label_selector(selector: dict) -> GoValue:
    exprs = selector.get("matchExpressions")
    if exprs is None:
        rendered = "[]v1.LabelSelectorRequirement(nil)"
    else:
        rendered = (
            "[]v1.LabelSelectorRequirement{"
            + ", ".join(
                f"v1.LabelSelectorRequirement{{Key:{go_quote(_str(e, 'key'))}, "
                f"Operator:{go_quote(_str(e, 'operator'))}, Values:{_go_string_slice(_get(e, 'values'))}}}"
                for e in exprs
            )
            + "}"
        )
    return GoValue(
        f"v1.LabelSelector{{MatchLabels:{_go_string_map(selector.get('matchLabels'))}, MatchExpressions:{rendered}}}"
    )


def _go_int_or_string(value: object) -> GoValue:
    if isinstance(value, str):
        return GoValue(f'intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}')
    return GoValue(f'intstr.IntOrString{{Type:0, IntVal:{_as_int(value)}, StrVal:""}}')


def _go_taint(taint: dict) -> GoValue:
    return GoValue(
        f"core.Taint{{Key:{go_quote(_str(taint, 'key'))}, Value:{go_quote(_str(taint, 'value'))}, "
        f"Effect:{go_quote(_str(taint, 'effect'))}, "
        f"TimeAdded:{_go_pointer('v1.Time', _get(taint, 'timeAdded') is not None)}}}"
    )


def _go_toleration(toleration: dict) -> GoValue:
    return GoValue(
        f"core.Toleration{{Key:{go_quote(_str(toleration, 'key'))}, "
        f"Operator:{go_quote(_str(toleration, 'operator'))}, Value:{go_quote(_str(toleration, 'value'))}, "
        f"Effect:{go_quote(_str(toleration, 'effect'))}, "
        f"TolerationSeconds:{_go_pointer('int64', _get(toleration, 'tolerationSeconds') is not None)}}}"
    )


def _go_resource_list(quantities: dict) -> GoValue:
    items = ", ".join(f"{go_quote(name)}:{quantities[name].go_repr()}" for name in sorted(quantities))
    return GoValue(f"core.ResourceList{{{items}}}")


def render_value(value: object) -> str:
    """How ``field.Error.ErrorBody`` (1.11) prints a bad value: strings with
    ``%q``, ints/bools/floats with ``%v``, nil as ``null``, anything else with
    ``%#v`` (pass a :class:`GoValue`; plain dicts/lists of strings are dumped
    as ``map[string]string{...}`` / ``[]string{...}``, other values as JSON)."""
    if value is None:
        return "null"
    if isinstance(value, GoValue):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return _go_string_map(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return _go_string_slice(list(value))
    return json.dumps(value, sort_keys=True, default=str)


# ==========================================================================
# 3. Errors
# ==========================================================================

REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
NOT_FOUND = "Not found"
INTERNAL = "Internal error"
DECODE_ERROR = "DecodeError"

# metav1.CauseType for each type, as the Status JSON carries it.
_CAUSE_TYPES = {
    REQUIRED: "FieldValueRequired",
    INVALID: "FieldValueInvalid",
    NOT_SUPPORTED: "FieldValueNotSupported",
    DUPLICATE: "FieldValueDuplicate",
    FORBIDDEN: "FieldValueForbidden",
    TOO_LONG: "FieldValueTooLong",
    NOT_FOUND: "FieldValueNotFound",
    INTERNAL: "InternalError",
    DECODE_ERROR: "FieldValueInvalid",
}
# field/errors.go: these types never print the bad value.
_VALUELESS = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL})


@dataclass(frozen=True)
class FieldError:
    """One ``field.Error``.

    ``type`` is the human type string (``"Invalid value"``...), or
    ``"DecodeError"`` for a decoding failure (see the module docstring).
    ``value`` is the bad value: a str, int, bool, None, or a :class:`GoValue`
    for the struct/map dumps Go prints with ``%#v``.
    """

    type: str
    field: str
    value: object = None
    detail: str = ""

    def body(self) -> str:
        """``ErrorBody()``: the message without the field path."""
        if self.type == DECODE_ERROR:
            return self.detail
        if self.type in _VALUELESS:
            text = self.type
        else:
            text = f"{self.type}: {render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        if self.type == DECODE_ERROR:
            return self.detail
        return f"{self.field}: {self.body()}"

    @property
    def cause_type(self) -> str:
        """The ``StatusCause.reason`` the API server sends for this error."""
        return _CAUSE_TYPES.get(self.type, "FieldValueInvalid")


def _required(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, "", detail)


def _invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(INVALID, path, value, detail)


def _not_supported(path: str, value: object, valid: Iterable[str]) -> FieldError:
    valid = list(valid)
    detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
    return FieldError(NOT_SUPPORTED, path, value, detail)


def _duplicate(path: str, value: object, detail: str = "") -> FieldError:
    return FieldError(DUPLICATE, path, value, detail)


def _forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, "", detail)


def _too_long(path: str, value: object, max_length: int) -> FieldError:
    return FieldError(TOO_LONG, path, value, f"must have at most {max_length} characters")


def _aggregate(errors: Iterable[FieldError]) -> str:
    """``ErrorList.ToAggregate().Error()``: duplicates dropped, several wrapped in [...]."""
    messages: list[str] = []
    for err in errors:
        text = str(err)
        if text not in messages:
            messages.append(text)
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"


class InvalidError(Exception):
    """What the API server answers when a document is refused.

    ``str(e)`` is the Status ``message``: for validation failures (HTTP 422,
    reason ``Invalid``) ``<Kind>[.<group>] "<name>" is invalid: <errors>``;
    for a decode failure (HTTP 400, reason ``BadRequest``)
    ``<Kind> in version "<version>" cannot be handled as a <Kind>: <error>``.
    """

    def __init__(self, kind: str, name: str, errors: list[FieldError], group: str = "", version: str = "v1"):
        self.kind = kind
        self.name = name
        self.errors = list(errors)
        self.group = group
        self.version = version
        super().__init__(self.message)

    @property
    def is_decode_error(self) -> bool:
        return any(e.type == DECODE_ERROR for e in self.errors)

    @property
    def reason(self) -> str:
        return "BadRequest" if self.is_decode_error else "Invalid"

    @property
    def code(self) -> int:
        return 400 if self.is_decode_error else 422

    @property
    def qualified_kind(self) -> str:
        """``GroupKind.String()``: ``Deployment.apps``, ``Pod``."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @property
    def message(self) -> str:
        if self.is_decode_error:
            decode = next(e for e in self.errors if e.type == DECODE_ERROR)
            version = go_quote(self.version)
            return f"{self.kind} in version {version} cannot be handled as a {self.kind}: {decode.detail}"
        return f"{self.qualified_kind} {go_quote(self.name)} is invalid: {_aggregate(self.errors)}"

    def __str__(self) -> str:
        return self.message

    def cli_message(self) -> str:
        """How ``oc``/``kubectl`` print it (``checkErr``); no trailing newline.

        One cause: ``The Pod "p" is invalid: spec.x: Invalid value: ...``; several:
        the prefix line (ending in ``": "``) and one ``* field: message`` line each.
        A decode failure prints as ``Error from server (BadRequest): <message>``.
        """
        if self.is_decode_error:
            return f"Error from server (BadRequest): {self.message}"
        prefix = f"The {self.kind} {go_quote(self.name)} is invalid: "
        causes = [f"{e.field}: {e.body()}" for e in self.errors]
        if len(causes) == 1:
            return prefix + causes[0]
        return "\n".join([prefix] + [f"* {c}" for c in causes])

    def status(self) -> dict:
        """The ``metav1.Status`` object the API server returns."""
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if not self.is_decode_error:
            details = {"name": self.name, "kind": self.kind}
            if self.group:
                details["group"] = self.group
            details["causes"] = [{"reason": e.cause_type, "message": e.body(), "field": e.field} for e in self.errors]
            status["details"] = details
        return status


# ==========================================================================
# 4. Decoding: JSON types, as encoding/json would check them
# ==========================================================================
#
# A schema node is one of:
#   ("scalar", kind, go_type)   kind: str, bool, int32, int64, intstr, time, any
#   ("map", value_node, go_type)
#   ("list", item_node, go_type)
#   ("struct", go_type, {json_name: node})
# Fields absent from a schema are ignored, as Go ignores unknown fields.


_GO_SCALAR_TYPES = {"str": "string", "bool": "bool", "int32": "int32", "int64": "int64"}


def _scalar(kind: str, go_type: str = "") -> tuple:
    return ("scalar", kind, go_type or _GO_SCALAR_TYPES.get(kind, ""))


def _struct(go_type: str, **fields) -> tuple:
    return ("struct", go_type, fields)


def _map(node: tuple, go_type: str = "map[string]string") -> tuple:
    return ("map", node, go_type)


def _list(node: tuple, go_type: str) -> tuple:
    return ("list", node, go_type)


_STR = _scalar("str")
_BOOL = _scalar("bool")
_INT32 = _scalar("int32")
_INT64 = _scalar("int64")
_INTSTR = _scalar("intstr", "int32")  # IntOrString falls back to decoding an int32
_TIME = _scalar("time", "string")  # metav1.Time decodes a string first
_ANY = _scalar("any")
_STR_MAP = _map(_STR)
_STR_LIST = _list(_STR, "[]string")
_RESOURCE_LIST = _map(_ANY, "v1.ResourceList")  # quantities are checked by validation

_META = _struct(
    "v1.ObjectMeta",
    name=_STR,
    generateName=_STR,
    namespace=_STR,
    selfLink=_STR,
    uid=_STR,
    resourceVersion=_STR,
    generation=_INT64,
    creationTimestamp=_TIME,
    deletionTimestamp=_TIME,
    labels=_STR_MAP,
    annotations=_STR_MAP,
    finalizers=_STR_LIST,
)
_LABEL_SELECTOR = _struct(
    "v1.LabelSelector",
    matchLabels=_STR_MAP,
    matchExpressions=_list(
        _struct(
            "v1.LabelSelectorRequirement",
            key=_STR,
            operator=_scalar("str", "v1.LabelSelectorOperator"),
            values=_STR_LIST,
        ),
        "[]v1.LabelSelectorRequirement",
    ),
)
_TAINT = _struct(
    "v1.Taint", key=_STR, value=_STR, effect=_scalar("str", "v1.TaintEffect"), timeAdded=_TIME
)
_TOLERATION = _struct(
    "v1.Toleration",
    key=_STR,
    operator=_scalar("str", "v1.TolerationOperator"),
    value=_STR,
    effect=_scalar("str", "v1.TaintEffect"),
    tolerationSeconds=_INT64,
)
_TAINTS = _list(_TAINT, "[]v1.Taint")
_TOLERATIONS = _list(_TOLERATION, "[]v1.Toleration")
_NODE_SELECTOR_REQUIREMENTS = _list(
    _struct(
        "v1.NodeSelectorRequirement",
        key=_STR,
        operator=_scalar("str", "v1.NodeSelectorOperator"),
        values=_STR_LIST,
    ),
    "[]v1.NodeSelectorRequirement",
)
_NODE_SELECTOR_TERM = _struct(
    "v1.NodeSelectorTerm", matchExpressions=_NODE_SELECTOR_REQUIREMENTS, matchFields=_NODE_SELECTOR_REQUIREMENTS
)
_NODE_SELECTOR = _struct("v1.NodeSelector", nodeSelectorTerms=_list(_NODE_SELECTOR_TERM, "[]v1.NodeSelectorTerm"))
_POD_AFFINITY_TERM = _struct(
    "v1.PodAffinityTerm", labelSelector=_LABEL_SELECTOR, namespaces=_STR_LIST, topologyKey=_STR
)
_WEIGHTED_POD_AFFINITY_TERM = _struct("v1.WeightedPodAffinityTerm", weight=_INT32, podAffinityTerm=_POD_AFFINITY_TERM)


def _pod_affinity_schema(go_type: str) -> tuple:
    return _struct(
        go_type,
        requiredDuringSchedulingIgnoredDuringExecution=_list(_POD_AFFINITY_TERM, "[]v1.PodAffinityTerm"),
        preferredDuringSchedulingIgnoredDuringExecution=_list(
            _WEIGHTED_POD_AFFINITY_TERM, "[]v1.WeightedPodAffinityTerm"
        ),
    )


_AFFINITY = _struct(
    "v1.Affinity",
    nodeAffinity=_struct(
        "v1.NodeAffinity",
        requiredDuringSchedulingIgnoredDuringExecution=_NODE_SELECTOR,
        preferredDuringSchedulingIgnoredDuringExecution=_list(
            _struct("v1.PreferredSchedulingTerm", weight=_INT32, preference=_NODE_SELECTOR_TERM),
            "[]v1.PreferredSchedulingTerm",
        ),
    ),
    podAffinity=_pod_affinity_schema("v1.PodAffinity"),
    podAntiAffinity=_pod_affinity_schema("v1.PodAntiAffinity"),
)
_RESOURCES = _struct("v1.ResourceRequirements", limits=_RESOURCE_LIST, requests=_RESOURCE_LIST)
_CONTAINER = _struct(
    "v1.Container",
    name=_STR,
    image=_STR,
    imagePullPolicy=_scalar("str", "v1.PullPolicy"),
    terminationMessagePolicy=_scalar("str", "v1.TerminationMessagePolicy"),
    resources=_RESOURCES,
    ports=_list(
        _struct(
            "v1.ContainerPort",
            name=_STR,
            hostPort=_INT32,
            containerPort=_INT32,
            protocol=_scalar("str", "v1.Protocol"),
            hostIP=_STR,
        ),
        "[]v1.ContainerPort",
    ),
)
_POD_SPEC = _struct(
    "v1.PodSpec",
    containers=_list(_CONTAINER, "[]v1.Container"),
    initContainers=_list(_CONTAINER, "[]v1.Container"),
    restartPolicy=_scalar("str", "v1.RestartPolicy"),
    terminationGracePeriodSeconds=_INT64,
    activeDeadlineSeconds=_INT64,
    dnsPolicy=_scalar("str", "v1.DNSPolicy"),
    nodeSelector=_STR_MAP,
    serviceAccountName=_STR,
    nodeName=_STR,
    hostNetwork=_BOOL,
    hostname=_STR,
    subdomain=_STR,
    affinity=_AFFINITY,
    schedulerName=_STR,
    tolerations=_TOLERATIONS,
    priorityClassName=_STR,
    priority=_INT32,
)
_POD_TEMPLATE = _struct("v1.PodTemplateSpec", metadata=_META, spec=_POD_SPEC)


def _top(go_type: str, **fields) -> tuple:
    return _struct(go_type, apiVersion=_STR, kind=_STR, metadata=_META, **fields)


def _schema_for(kind: str, pkg: str) -> tuple:
    """The decode schema of a kind; ``pkg`` is the Go package name (the version)."""
    if kind == "Pod":
        return _top("v1.Pod", spec=_POD_SPEC)
    if kind == "Node":
        return _top(
            "v1.Node",
            spec=_struct("v1.NodeSpec", podCIDR=_STR, providerID=_STR, unschedulable=_BOOL, taints=_TAINTS),
            status=_struct("v1.NodeStatus", capacity=_RESOURCE_LIST, allocatable=_RESOURCE_LIST),
        )
    if kind == "Namespace":
        return _top("v1.Namespace")
    if kind == "PriorityClass":
        return _top(f"{pkg}.PriorityClass", value=_INT32, globalDefault=_BOOL, description=_STR)
    if kind == "Service":
        return _top(
            "v1.Service",
            spec=_struct(
                "v1.ServiceSpec",
                ports=_list(
                    _struct(
                        "v1.ServicePort",
                        name=_STR,
                        protocol=_scalar("str", "v1.Protocol"),
                        port=_INT32,
                        targetPort=_INTSTR,
                        nodePort=_INT32,
                    ),
                    "[]v1.ServicePort",
                ),
                selector=_STR_MAP,
                clusterIP=_STR,
                type=_scalar("str", "v1.ServiceType"),
                sessionAffinity=_scalar("str", "v1.ServiceAffinity"),
                externalName=_STR,
            ),
        )
    if kind == "ReplicationController":
        return _top(
            "v1.ReplicationController",
            spec=_struct(
                "v1.ReplicationControllerSpec",
                replicas=_INT32,
                minReadySeconds=_INT32,
                selector=_STR_MAP,
                template=_POD_TEMPLATE,
            ),
        )
    if kind in ("ReplicaSet", "Deployment", "StatefulSet", "DaemonSet"):
        fields = dict(
            replicas=_INT32,
            minReadySeconds=_INT32,
            revisionHistoryLimit=_INT32,
            selector=_LABEL_SELECTOR,
            template=_POD_TEMPLATE,
        )
        if kind == "Deployment":
            fields.update(
                progressDeadlineSeconds=_INT32,
                paused=_BOOL,
                strategy=_struct(
                    f"{pkg}.DeploymentStrategy",
                    type=_scalar("str", f"{pkg}.DeploymentStrategyType"),
                    rollingUpdate=_struct(
                        f"{pkg}.RollingUpdateDeployment", maxUnavailable=_INTSTR, maxSurge=_INTSTR
                    ),
                ),
            )
        elif kind == "StatefulSet":
            fields.update(
                serviceName=_STR,
                podManagementPolicy=_scalar("str", f"{pkg}.PodManagementPolicyType"),
                updateStrategy=_struct(
                    f"{pkg}.StatefulSetUpdateStrategy",
                    type=_scalar("str", f"{pkg}.StatefulSetUpdateStrategyType"),
                    rollingUpdate=_struct(f"{pkg}.RollingUpdateStatefulSetStrategy", partition=_INT32),
                ),
            )
        elif kind == "DaemonSet":
            fields.update(
                templateGeneration=_INT64,
                updateStrategy=_struct(
                    f"{pkg}.DaemonSetUpdateStrategy",
                    type=_scalar("str", f"{pkg}.DaemonSetUpdateStrategyType"),
                    rollingUpdate=_struct(f"{pkg}.RollingUpdateDaemonSet", maxUnavailable=_INTSTR),
                ),
            )
        return _top(f"{pkg}.{kind}", spec=_struct(f"{pkg}.{kind}Spec", **fields))
    if kind == "PodDisruptionBudget":
        return _top(
            f"{pkg}.PodDisruptionBudget",
            spec=_struct(
                f"{pkg}.PodDisruptionBudgetSpec",
                minAvailable=_INTSTR,
                maxUnavailable=_INTSTR,
                selector=_LABEL_SELECTOR,
            ),
        )
    if kind == "PersistentVolume":
        return _top(
            "v1.PersistentVolume",
            spec=_struct(
                "v1.PersistentVolumeSpec",
                capacity=_RESOURCE_LIST,
                accessModes=_list(_scalar("str", "v1.PersistentVolumeAccessMode"), "[]v1.PersistentVolumeAccessMode"),
                persistentVolumeReclaimPolicy=_scalar("str", "v1.PersistentVolumeReclaimPolicy"),
                storageClassName=_STR,
                nodeAffinity=_struct("v1.VolumeNodeAffinity", required=_NODE_SELECTOR),
                hostPath=_struct("v1.HostPathVolumeSource", path=_STR),
                local=_struct("v1.LocalVolumeSource", path=_STR),
                nfs=_struct("v1.NFSVolumeSource", server=_STR, path=_STR),
            ),
        )
    if kind == "PersistentVolumeClaim":
        return _top(
            "v1.PersistentVolumeClaim",
            spec=_struct(
                "v1.PersistentVolumeClaimSpec",
                accessModes=_list(_scalar("str", "v1.PersistentVolumeAccessMode"), "[]v1.PersistentVolumeAccessMode"),
                selector=_LABEL_SELECTOR,
                resources=_RESOURCES,
                volumeName=_STR,
                storageClassName=_STR,
            ),
        )
    if kind == "StorageClass":
        return _top(
            f"{pkg}.StorageClass",
            provisioner=_STR,
            parameters=_STR_MAP,
            reclaimPolicy=_scalar("str", "v1.PersistentVolumeReclaimPolicy"),
            mountOptions=_STR_LIST,
            allowVolumeExpansion=_BOOL,
            volumeBindingMode=_scalar("str", f"{pkg}.VolumeBindingMode"),
        )
    raise KeyError(kind)


def _json_kind(value: object) -> str:
    """The JSON value kind Go names in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (str, datetime.date)):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _Decoder:
    """Walks a document in order; keeps Go's first type error."""

    def __init__(self) -> None:
        self.error: tuple[str, str] | None = None  # (json path, message)
        self.needs_normalizing = False

    def fail(self, value: object, go_type: str, struct: str, stack: list[str], literal: str = "") -> None:
        if self.error is not None:
            return
        got = _json_kind(value) + (f" {literal}" if literal else "")
        path = ".".join(stack)
        if struct or stack:
            msg = f"json: cannot unmarshal {got} into Go struct field {struct}.{path} of type {go_type}"
        else:
            msg = f"json: cannot unmarshal {got} into Go value of type {go_type}"
        self.error = (path, msg)

    def walk(self, value: object, node: tuple, struct: str, stack: list[str]) -> None:
        if value is None or self.error is not None:
            return  # JSON null leaves the zero value; only the first error counts
        shape = node[0]
        if shape == "struct":
            if not isinstance(value, dict):
                self.fail(value, node[1], struct, stack)
                return
            name = node[1].rpartition(".")[2]
            fields = node[2]
            for key, item in value.items():
                if not isinstance(key, str):
                    self.needs_normalizing = True
                child = fields.get(key)
                if child is not None:
                    self.walk(item, child, name, stack + [key])
        elif shape == "map":
            if not isinstance(value, dict):
                self.fail(value, node[2], struct, stack)
                return
            for key, item in value.items():
                if not isinstance(key, str):
                    self.needs_normalizing = True
                self.walk(item, node[1], struct, stack)
        elif shape == "list":
            if not isinstance(value, list):
                self.fail(value, node[2], struct, stack)
                return
            for item in value:
                self.walk(item, node[1], struct, stack)
        else:
            self.scalar(value, node[1], node[2], struct, stack)

    def scalar(self, value: object, kind: str, go_type: str, struct: str, stack: list[str]) -> None:
        if kind == "any":
            return
        if kind == "time" and isinstance(value, (int, float)) and not isinstance(value, bool):
            # clusterui keeps times on the simulated clock as numbers of seconds
            # (deletionTimestamp, timeAdded, ...): accepted beside RFC 3339 strings.
            return
        if kind in ("str", "time"):
            if isinstance(value, datetime.date):
                # PyYAML turns an unquoted 2018-01-01 into a date; kubectl's YAML
                # library keeps it a string.
                self.needs_normalizing = True
            elif not isinstance(value, str):
                self.fail(value, go_type, struct, stack)
        elif kind == "bool":
            if not isinstance(value, bool):
                self.fail(value, go_type, struct, stack)
        elif kind == "intstr" and isinstance(value, str):
            return
        else:  # int32, int64, intstr
            bits = 64 if kind == "int64" else 32
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(value, go_type, struct, stack)
                return
            if isinstance(value, float):
                if not value.is_integer():
                    self.fail(value, go_type, struct, stack, _quantity.go_json_number(value))
                    return
                literal = _quantity.go_json_number(value)
                value = int(value)
            else:
                literal = str(value)
            if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
                self.fail(value, go_type, struct, stack, literal)


def _normalize(value: object) -> object:
    """Make a PyYAML document look like the JSON kubectl would send: dates
    become strings and non-string map keys become strings."""
    if isinstance(value, dict):
        return {_as_str(k): _normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, datetime.date):
        return _as_str(value)
    return value


# ==========================================================================
# 5. Small helpers on plain documents
# ==========================================================================


def _get(obj: object, key: str, default: object = None) -> object:
    if isinstance(obj, dict):
        value = obj.get(key)
        return default if value is None else value
    return default


def _as_str(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def _as_int(value: object) -> int:
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def _str(obj: object, key: str) -> str:
    return _as_str(_get(obj, key, ""))


def _dict(obj: object, key: str) -> dict:
    value = _get(obj, key)
    return value if isinstance(value, dict) else {}


def _lst(obj: object, key: str) -> list:
    value = _get(obj, key)
    return value if isinstance(value, list) else []


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


Errors = list  # a list[FieldError] being filled in


# ==========================================================================
# 6. Shared validators
# ==========================================================================


def _validate_label_name(name: str, path: str, errs: Errors) -> None:
    """``ValidateLabelName``: one error per message."""
    for msg in _qualified_name_errors(name):
        errs.append(_invalid(path, name, msg))


def _validate_labels(labels: dict, path: str, errs: Errors) -> None:
    """``ValidateLabels``: both key and value errors are reported at the map's
    path (``metadata.labels``), not at the key."""
    for key, value in labels.items():
        _validate_label_name(key, path, errs)
        for msg in _label_value_errors(_as_str(value)):
            errs.append(_invalid(path, _as_str(value), msg))


_TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)


def _validate_annotations(annotations: dict, path: str, errs: Errors) -> None:
    total = 0
    for key, value in annotations.items():
        for msg in _qualified_name_errors(key.lower()):  # keys are checked lower-cased
            errs.append(_invalid(path, key, msg))
        total += _byte_len(key) + _byte_len(_as_str(value))
    if total > _TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(_too_long(path, "", _TOTAL_ANNOTATION_SIZE_LIMIT))


NameFn = Callable[[str, bool], list]


def _validate_object_meta(meta: dict, namespaced: bool, name_fn: NameFn, errs: Errors, path: str = "metadata") -> None:
    """``ValidateObjectMeta`` for a create.

    The namespace is only checked when the document sets it: the API server
    fills a missing one from the request and clears it on cluster-scoped kinds.
    With ``generateName`` and no name the server invents a name (random
    suffix) before validating; we check only ``generateName`` then.
    """
    name = _str(meta, "name")
    generate_name = _str(meta, "generateName")
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(_invalid(_child(path, "generateName"), generate_name, msg))
    if not name:
        if not generate_name:
            errs.append(_required(_child(path, "name"), "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(_invalid(_child(path, "name"), name, msg))
    namespace = _str(meta, "namespace")
    if namespaced and namespace:
        for msg in _dns1123_label_errors(namespace):
            errs.append(_invalid(_child(path, "namespace"), namespace, msg))
    generation = _get(meta, "generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(_invalid(_child(path, "generation"), generation, IS_NEGATIVE_ERROR_MSG))
    _validate_labels(_dict(meta, "labels"), _child(path, "labels"), errs)
    _validate_annotations(_dict(meta, "annotations"), _child(path, "annotations"), errs)


def _validate_nonnegative(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        errs.append(_invalid(path, value, IS_NEGATIVE_ERROR_MSG))


# --- label selectors -------------------------------------------------------

_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_EXISTS_VALUES_FORBIDDEN = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"


def _validate_label_selector(selector: object, path: str, errs: Errors) -> None:
    """``metav1validation.ValidateLabelSelector``."""
    if not isinstance(selector, dict):
        return
    _validate_labels(_dict(selector, "matchLabels"), _child(path, "matchLabels"), errs)
    for i, expr in enumerate(_lst(selector, "matchExpressions")):
        expr_path = _index(_child(path, "matchExpressions"), i)
        operator = _str(expr, "operator")
        values = _lst(expr, "values")
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(
                    _required(_child(expr_path, "values"), "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errs.append(_forbidden(_child(expr_path, "values"), _EXISTS_VALUES_FORBIDDEN))
        else:
            errs.append(_invalid(_child(expr_path, "operator"), operator, "not a valid selector operator"))
        _validate_label_name(_str(expr, "key"), _child(expr_path, "key"), errs)


class _Selector:
    """A converted ``labels.Selector``: Everything, Nothing, or requirements."""

    def __init__(self, requirements: list[tuple[str, str, list[str]]] | None):
        self.requirements = requirements  # None means Nothing()

    def empty(self) -> bool:
        return self.requirements is not None and not self.requirements

    def matches(self, labels: dict) -> bool:
        if self.requirements is None:
            return False
        for key, op, values in self.requirements:
            present = key in labels
            value = _as_str(labels.get(key))
            if op == "=" and not (present and value == values[0]):
                return False
            if op == "In" and not (present and value in values):
                return False
            if op == "NotIn" and present and value in values:
                return False
            if op == "Exists" and not present:
                return False
            if op == "DoesNotExist" and present:
                return False
        return True


def _label_selector_as_selector(selector: object) -> _Selector | None:
    """``metav1.LabelSelectorAsSelector``; None when Go returns an error."""
    if not isinstance(selector, dict):
        return _Selector(None)  # nil selector selects nothing
    match_labels = _dict(selector, "matchLabels")
    exprs = _lst(selector, "matchExpressions")
    if not match_labels and not exprs:
        return _Selector([])  # empty selector selects everything
    reqs: list[tuple[str, str, list[str]]] = []
    for key, value in match_labels.items():
        if _qualified_name_errors(key) or _label_value_errors(_as_str(value)):
            return None
        reqs.append((key, "=", [_as_str(value)]))
    for expr in exprs:
        key, op, values = _str(expr, "key"), _str(expr, "operator"), [_as_str(v) for v in _lst(expr, "values")]
        if op not in _SELECTOR_OPERATORS or _qualified_name_errors(key):
            return None
        if (op in ("In", "NotIn") and not values) or (op in ("Exists", "DoesNotExist") and values):
            return None
        if any(_label_value_errors(v) for v in values):
            return None
        reqs.append((key, op, values))
    return _Selector(reqs)


def _set_as_selector(selector: dict) -> _Selector:
    """``labels.Set(m).AsSelector()``: an invalid entry makes the whole selector
    empty (which then matches everything)."""
    reqs = []
    for key, value in selector.items():
        if _qualified_name_errors(key) or _label_value_errors(_as_str(value)):
            return _Selector([])
        reqs.append((key, "=", [_as_str(value)]))
    return _Selector(reqs)


# --- taints and tolerations ------------------------------------------------

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _validate_taint_effect(effect: str, allow_empty: bool, path: str, errs: Errors) -> None:
    if not allow_empty and not effect:
        errs.append(_required(path))
        return
    if effect not in TAINT_EFFECTS:
        # NoScheduleNoAdmit exists upstream only as a commented-out TODO.
        errs.append(_not_supported(path, effect, TAINT_EFFECTS))


def _validate_taints(taints: list, path: str, errs: Errors) -> None:
    """``validateNodeTaints``."""
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        idx_path = _index(path, i)
        key, value, effect = _str(taint, "key"), _str(taint, "value"), _str(taint, "effect")
        _validate_label_name(key, _child(idx_path, "key"), errs)
        value_errs = _label_value_errors(value)
        if value_errs:
            errs.append(_invalid(_child(idx_path, "value"), value, ";".join(value_errs)))
        _validate_taint_effect(effect, False, _child(idx_path, "effect"), errs)
        if key in seen.get(effect, ()):
            errs.append(_duplicate(idx_path, _go_taint(taint), "taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)


def _validate_tolerations(tolerations: list, path: str, errs: Errors) -> None:
    """``ValidateTolerations``."""
    for i, toleration in enumerate(tolerations):
        idx_path = _index(path, i)
        key, operator = _str(toleration, "key"), _str(toleration, "operator")
        value, effect = _str(toleration, "value"), _str(toleration, "effect")
        if key:
            _validate_label_name(key, _child(idx_path, "key"), errs)
        # an empty key with Exists (and no value) is the "tolerate everything" toleration
        if not key and operator != "Exists":
            errs.append(
                _invalid(
                    _child(idx_path, "operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if _get(toleration, "tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(
                _invalid(
                    _child(idx_path, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"
                )
            )
        if operator in ("Equal", ""):  # an empty operator means Equal
            value_errs = _label_value_errors(value)
            if value_errs:
                # Reported on .operator, not .value — as upstream does.
                errs.append(_invalid(_child(idx_path, "operator"), value, ";".join(value_errs)))
        elif operator == "Exists":
            if value:
                # Upstream passes the whole toleration as the bad value.
                errs.append(
                    _invalid(
                        _child(idx_path, "operator"),
                        _go_toleration(toleration),
                        "value must be empty when `operator` is 'Exists'",
                    )
                )
        else:
            errs.append(_not_supported(_child(idx_path, "operator"), operator, ("Equal", "Exists")))
        if effect:  # an empty effect matches all effects
            _validate_taint_effect(effect, True, _child(idx_path, "effect"), errs)


# --- resources ---------------------------------------------------------------

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)


def _is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended_resource(name: str) -> bool:
    """Anything fully qualified outside kubernetes.io, e.g. ``nvidia.com/gpu``."""
    if _is_native_resource(name) or name.startswith("requests."):
        return False
    return not _qualified_name_errors("requests." + name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended_resource(name)


def _overcommit_allowed(name: str) -> bool:
    """Extended resources and hugepages need requests == limits."""
    return _is_native_resource(name) and not _is_hugepages(name)


def _validate_resource_name(name: str, path: str, errs: Errors) -> bool:
    """``validateResourceName``; returns False when it reported something."""
    msgs = _qualified_name_errors(name)
    for msg in msgs:
        errs.append(_invalid(path, name, msg))
    if msgs:
        return False
    standard = name in _STANDARD_RESOURCES or _is_hugepages(name) or name.startswith("requests.hugepages-")
    if "/" not in name and not standard:
        errs.append(_invalid(path, name, "must be a standard resource type or fully qualified"))
        return False
    return True


def _validate_container_resource_name(name: str, path: str, errs: Errors) -> None:
    _validate_resource_name(name, path, errs)
    if len(name.split("/")) == 1:
        if name not in _STANDARD_CONTAINER_RESOURCES and not _is_hugepages(name):
            errs.append(_invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native_resource(name) and not _is_extended_resource(name):
        errs.append(_invalid(path, name, "doesn't follow extended resource name standard"))


def _parse_resource(raw: object, path: str, errs: Errors) -> _quantity.Quantity | None:
    """Decode a ResourceList entry and round it up to milli, as defaulting does.

    Departure (see module docstring): a malformed quantity is reported here as
    an Invalid value rather than as upstream's whole-request decode error.
    """
    try:
        return _quantity.parse(raw).round_up(-3)
    except _quantity.QuantityError as exc:
        bad = raw if isinstance(raw, (str, int, float, bool)) else GoValue(json.dumps(raw, default=str))
        errs.append(_invalid(path, bad, exc.message))
        return None


def _validate_quantity_value(name: str, q: _quantity.Quantity, path: str, errs: Errors) -> None:
    """``ValidateResourceQuantityValue``."""
    if q.value < 0:
        errs.append(_invalid(path, q.string(), IS_NEGATIVE_ERROR_MSG))
    if _is_integer_resource(name) and q.milli_value() % 1000 != 0:
        # Go passes the Quantity itself, which prints as a %#v dump.
        errs.append(_invalid(path, GoValue(q.go_repr()), "must be an integer"))


def _validate_resource_requirements(resources: dict, path: str, errs: Errors) -> None:
    """``ValidateResourceRequirements`` (limits first, then requests)."""
    lim_path, req_path = _child(path, "limits"), _child(path, "requests")
    raw_limits = _dict(resources, "limits")
    limits: dict[str, _quantity.Quantity] = {}
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name, raw in raw_limits.items():
        fld = _key(lim_path, name)
        _validate_container_resource_name(name, fld, errs)
        q = _parse_resource(raw, fld, errs)
        if q is None:
            continue
        limits[name] = q
        _validate_quantity_value(name, q, fld, errs)
        lim_huge = lim_huge or _is_hugepages(name)
        lim_cpu_mem = lim_cpu_mem or name in ("cpu", "memory")
    for name, raw in _dict(resources, "requests").items():
        fld = _key(req_path, name)
        _validate_container_resource_name(name, fld, errs)
        q = _parse_resource(raw, fld, errs)
        if q is None:
            continue
        _validate_quantity_value(name, q, fld, errs)
        limit = limits.get(name)
        if limit is not None:
            # non-overcommitable resources (extended, hugepages) need requests == limits
            if q.value != limit.value and not _overcommit_allowed(name):
                errs.append(_invalid(req_path, q.string(), f"must be equal to {name} limit"))
            elif q.value > limit.value:
                errs.append(_invalid(req_path, q.string(), f"must be less than or equal to {name} limit"))
        elif name not in raw_limits and not _overcommit_allowed(name):
            errs.append(_required(lim_path, "Limit must be set for non overcommitable resources"))
        req_huge = req_huge or _is_hugepages(name)
        req_cpu_mem = req_cpu_mem or name in ("cpu", "memory")
    if not lim_cpu_mem and not req_cpu_mem and (req_huge or lim_huge):
        errs.append(_forbidden(path, "HugePages require cpu or memory"))


# --- affinity ----------------------------------------------------------------


def _validate_node_selector_requirement(req: dict, path: str, errs: Errors) -> None:
    operator = _str(req, "operator")
    values = _lst(req, "values")
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(_required(_child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(_forbidden(_child(path, "values"), _EXISTS_VALUES_FORBIDDEN))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                _required(_child(path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
            )
    else:
        errs.append(_invalid(_child(path, "operator"), operator, "not a valid selector operator"))
    _validate_label_name(_str(req, "key"), _child(path, "key"), errs)


def _validate_node_field_selector_requirement(req: dict, path: str, errs: Errors) -> None:
    """matchFields (new in 1.11): only ``metadata.name`` In/NotIn one node name."""
    operator = _str(req, "operator")
    values = _lst(req, "values")
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                _required(
                    _child(path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(_invalid(_child(path, "operator"), operator, "not a valid selector operator"))
    key = _str(req, "key")
    if key != "metadata.name":
        errs.append(_invalid(_child(path, "key"), key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            for msg in _name_is_dns_subdomain(_as_str(value), False):
                errs.append(_invalid(_index(_child(path, "values"), i), _as_str(value), msg))


def _validate_node_selector_term(term: dict, path: str, errs: Errors) -> None:
    # No "must have at least one node selector requirement" check: 1.11 dropped
    # it (kubernetes#62448), an empty term simply matches no node.
    for j, req in enumerate(_lst(term, "matchExpressions")):
        _validate_node_selector_requirement(req, _index(_child(path, "matchExpressions"), j), errs)
    for j, req in enumerate(_lst(term, "matchFields")):
        _validate_node_field_selector_requirement(req, _index(_child(path, "matchFields"), j), errs)


def _validate_node_selector(selector: dict, path: str, errs: Errors) -> None:
    terms_path = _child(path, "nodeSelectorTerms")
    terms = _lst(selector, "nodeSelectorTerms")
    if not terms:
        errs.append(_required(terms_path, "must have at least one node selector term"))
        return
    for i, term in enumerate(terms):
        _validate_node_selector_term(term, _index(terms_path, i), errs)


def _validate_weight(weight: object, path: str, errs: Errors) -> None:
    weight = _as_int(weight)
    if weight <= 0 or weight > 100:
        errs.append(_invalid(path, weight, "must be in the range 1-100"))


def _validate_pod_affinity_term(term: dict, path: str, errs: Errors) -> None:
    # Upstream validates the label selector under a ".matchExpressions" child,
    # so errors read "...[0].matchExpressions.matchExpressions[0].operator".
    _validate_label_selector(_get(term, "labelSelector"), _child(path, "matchExpressions"), errs)
    for name in _lst(term, "namespaces"):
        for msg in _dns1123_label_errors(_as_str(name)):
            errs.append(_invalid(_child(path, "namespace"), _as_str(name), msg))
    topology_key = _str(term, "topologyKey")
    if not topology_key:
        errs.append(_required(_child(path, "topologyKey"), "can not be empty"))
    _validate_label_name(topology_key, _child(path, "topologyKey"), errs)


def _validate_pod_affinity(affinity: dict, path: str, errs: Errors) -> None:
    required_path = _child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(_lst(affinity, "requiredDuringSchedulingIgnoredDuringExecution")):
        _validate_pod_affinity_term(term, _index(required_path, i), errs)
    preferred_path = _child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(_lst(affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
        _validate_weight(_get(weighted, "weight", 0), _child(_index(preferred_path, i), "weight"), errs)
        _validate_pod_affinity_term(
            _dict(weighted, "podAffinityTerm"), _child(_index(preferred_path, i), "podAffinityTerm"), errs
        )


def _validate_affinity(affinity: dict, path: str, errs: Errors) -> None:
    node_affinity = _get(affinity, "nodeAffinity")
    if isinstance(node_affinity, dict):
        na_path = _child(path, "nodeAffinity")
        required = _get(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            _validate_node_selector(required, _child(na_path, "requiredDuringSchedulingIgnoredDuringExecution"), errs)
        preferred_path = _child(na_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(_lst(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
            _validate_weight(_get(term, "weight", 0), _child(_index(preferred_path, i), "weight"), errs)
            term_path = _index(preferred_path, i)
            _validate_node_selector_term(_dict(term, "preference"), _child(term_path, "preference"), errs)
    for name in ("podAffinity", "podAntiAffinity"):
        pod_affinity = _get(affinity, name)
        if isinstance(pod_affinity, dict):
            _validate_pod_affinity(pod_affinity, _child(path, name), errs)


# ==========================================================================
# 7. Pods and pod templates
# ==========================================================================

_SUPPORTED_PROTOCOLS = ("TCP", "UDP")  # SCTP arrived in 1.12
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_MAX_INT32 = 2**31 - 1


def _validate_container_ports(ports: list, path: str, errs: Errors) -> None:
    names: set[str] = set()
    for i, port in enumerate(ports):
        idx_path = _index(path, i)
        name = _str(port, "name")
        if name:
            msgs = _is_valid_port_name(name)
            for msg in msgs:
                errs.append(_invalid(_child(idx_path, "name"), name, msg))
            if not msgs:
                if name in names:
                    errs.append(_duplicate(_child(idx_path, "name"), name))
                else:
                    names.add(name)
        container_port = _as_int(_get(port, "containerPort", 0))
        if container_port == 0:
            errs.append(_required(_child(idx_path, "containerPort")))
        else:
            for msg in _is_valid_port_num(container_port):
                errs.append(_invalid(_child(idx_path, "containerPort"), container_port, msg))
        host_port = _as_int(_get(port, "hostPort", 0))
        if host_port != 0:
            for msg in _is_valid_port_num(host_port):
                errs.append(_invalid(_child(idx_path, "hostPort"), host_port, msg))
        protocol = _str(port, "protocol")  # "" is defaulted to TCP
        if protocol and protocol not in _SUPPORTED_PROTOCOLS:
            errs.append(_not_supported(_child(idx_path, "protocol"), protocol, _SUPPORTED_PROTOCOLS))


def _check_host_port_conflicts(containers: list, path: str, errs: Errors) -> None:
    seen: set[str] = set()
    for ci, container in enumerate(containers):
        for pi, port in enumerate(_lst(container, "ports")):
            host_port = _as_int(_get(port, "hostPort", 0))
            if host_port == 0:
                continue
            key = f"{_str(port, 'protocol') or 'TCP'}/{_str(port, 'hostIP')}/{host_port}"
            if key in seen:
                errs.append(_duplicate(_child(_index(_child(_index(path, ci), "ports"), pi), "hostPort"), key))
            else:
                seen.add(key)


def _validate_containers(containers: list, is_init: bool, path: str, errs: Errors) -> None:
    if not containers:
        errs.append(_required(path))
        return
    names: set[str] = set()
    for i, container in enumerate(containers):
        idx_path = _index(path, i)
        name_path = _child(idx_path, "name")
        name = _str(container, "name")
        if not name:
            errs.append(_required(name_path))
        else:
            for msg in _dns1123_label_errors(name):
                errs.append(_invalid(name_path, name, msg))
        if name in names:
            errs.append(_duplicate(name_path, name))
        else:
            names.add(name)
        if not _str(container, "image"):
            errs.append(_required(_child(idx_path, "image")))
        policy = _str(container, "terminationMessagePolicy")
        if policy and policy not in ("File", "FallbackToLogsOnError"):
            errs.append(
                _invalid(
                    _child(idx_path, "terminationMessagePolicy"), policy, "must be 'File' or 'FallbackToLogsOnError'"
                )
            )
        _validate_container_ports(_lst(container, "ports"), _child(idx_path, "ports"), errs)
        pull = _str(container, "imagePullPolicy")
        if pull and pull not in _PULL_POLICIES:
            errs.append(_not_supported(_child(idx_path, "imagePullPolicy"), pull, _PULL_POLICIES))
        _validate_resource_requirements(_dict(container, "resources"), _child(idx_path, "resources"), errs)
    if is_init:
        # init containers run one after the other, so only conflicts within one count
        for i, container in enumerate(containers):
            _check_host_port_conflicts([container], path, errs)
    else:
        _check_host_port_conflicts(containers, path, errs)


def _validate_init_containers(init: list, containers: list, path: str, errs: Errors) -> None:
    if init:
        _validate_containers(init, True, path, errs)
    names = {_str(c, "name") for c in containers}
    for i, container in enumerate(init):
        name = _str(container, "name")
        if name in names:
            errs.append(_duplicate(_child(_index(path, i), "name"), name))
        if name:
            names.add(name)


def _validate_pod_spec(spec: dict, path: str, errs: Errors) -> None:
    """``ValidatePodSpec`` (the parts that matter for scheduling), upstream order."""
    containers = _lst(spec, "containers")
    containers_path = _child(path, "containers")
    _validate_containers(containers, False, containers_path, errs)
    _validate_init_containers(_lst(spec, "initContainers"), containers, _child(path, "initContainers"), errs)
    restart = _str(spec, "restartPolicy")
    if restart and restart not in _RESTART_POLICIES:
        errs.append(_not_supported(_child(path, "restartPolicy"), restart, _RESTART_POLICIES))
    dns = _str(spec, "dnsPolicy")
    if dns and dns not in _DNS_POLICIES:
        errs.append(_not_supported(_child(path, "dnsPolicy"), dns, _DNS_POLICIES))
    _validate_labels(_dict(spec, "nodeSelector"), _child(path, "nodeSelector"), errs)
    if _get(spec, "hostNetwork") is True:
        # a missing hostPort is defaulted to the containerPort
        for i, container in enumerate(containers):
            for j, port in enumerate(_lst(container, "ports")):
                container_port = _as_int(_get(port, "containerPort", 0))
                host_port = _as_int(_get(port, "hostPort", container_port))
                if host_port != container_port:
                    errs.append(
                        _invalid(
                            _child(_index(_child(_index(containers_path, i), "ports"), j), "containerPort"),
                            container_port,
                            "must match `hostPort` when `hostNetwork` is true",
                        )
                    )
    affinity = _get(spec, "affinity")
    if isinstance(affinity, dict):
        _validate_affinity(affinity, _child(path, "affinity"), errs)
    for field, name_fn in (("serviceAccountName", _name_is_dns_subdomain), ("nodeName", _name_is_dns_subdomain)):
        value = _str(spec, field)
        if value:
            for msg in name_fn(value, False):
                errs.append(_invalid(_child(path, field), value, msg))
    deadline = _get(spec, "activeDeadlineSeconds")
    if deadline is not None and not 1 <= _as_int(deadline) <= _MAX_INT32:
        errs.append(
            _invalid(_child(path, "activeDeadlineSeconds"), _as_int(deadline), inclusive_range_error(1, _MAX_INT32))
        )
    for field in ("hostname", "subdomain"):
        value = _str(spec, field)
        if value:
            for msg in _dns1123_label_errors(value):
                errs.append(_invalid(_child(path, field), value, msg))
    tolerations = _lst(spec, "tolerations")
    if tolerations:
        _validate_tolerations(tolerations, _child(path, "tolerations"), errs)
    priority_class = _str(spec, "priorityClassName")
    if priority_class:
        for msg in _dns1123_subdomain_errors(priority_class):
            errs.append(_invalid(_child(path, "priorityClassName"), priority_class, msg))
    # schedulerName is defaulted ("default-scheduler") and not validated in 1.11;
    # spec.priority is checked by the Priority admission plugin, not here.


def _validate_pod_template_spec(template: dict, path: str, errs: Errors) -> None:
    """``ValidatePodTemplateSpec``: note labels are reported at ``<path>.labels``
    (e.g. ``spec.template.labels``), not ``.metadata.labels``."""
    meta = _dict(template, "metadata")
    _validate_labels(_dict(meta, "labels"), _child(path, "labels"), errs)
    _validate_annotations(_dict(meta, "annotations"), _child(path, "annotations"), errs)
    _validate_pod_spec(_dict(template, "spec"), _child(path, "spec"), errs)


def _template_restart_and_deadline(template: dict, path: str, errs: Errors) -> None:
    spec = _dict(template, "spec")
    restart = _str(spec, "restartPolicy") or "Always"
    if restart != "Always":
        errs.append(_not_supported(_child(path, "spec.restartPolicy"), restart, ("Always",)))
    deadline = _get(spec, "activeDeadlineSeconds")
    if deadline is not None:
        errs.append(_invalid(_child(path, "spec.activeDeadlineSeconds"), _as_int(deadline), "must not be specified"))


def _selector_mismatch(template: dict) -> FieldError:
    """The template labels print as a Go map dump (``map[string]string(nil)`` when absent)."""
    labels = _get(_dict(template, "metadata"), "labels")
    value = GoValue(_go_string_map(labels if isinstance(labels, dict) else None))
    return _invalid("spec.template.metadata.labels", value, "`selector` does not match template `labels`")


# ==========================================================================
# 8. Kinds
# ==========================================================================


def _validate_pod(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    _validate_pod_spec(_dict(doc, "spec"), "spec", errs)


def _validate_node(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), False, _name_is_dns_subdomain, errs)
    taints = _lst(_dict(doc, "spec"), "taints")
    if taints:
        # Upstream quirk kept on purpose: ValidateNode builds the taints path from
        # "metadata", so the API server reports spec.taints errors as
        # metadata.taints[i] (observed: 'Node "x" is invalid: metadata.taints[1]:
        # Duplicate value: core.Taint{...}').
        _validate_taints(taints, "metadata.taints", errs)
    status = _dict(doc, "status")
    for section in ("capacity", "allocatable"):
        hugepage_sizes: set[str] = set()
        for name, raw in _dict(status, section).items():
            res_path = f"status.{section}.{name}"  # Child(name), not Key(name)
            q = _parse_resource(raw, res_path, errs)
            if q is None:
                continue
            _validate_quantity_value(name, q, res_path, errs)
            if _is_hugepages(name) and q.int_value() > 0:
                hugepage_sizes.add(name)
            if len(hugepage_sizes) > 1:
                errs.append(
                    _invalid(
                        res_path, GoValue(q.go_repr()), "may not have pre-allocated hugepages for multiple page sizes"
                    )
                )
    pod_cidr = _str(_dict(doc, "spec"), "podCIDR")
    if pod_cidr and not _is_cidr(pod_cidr):
        errs.append(_invalid("spec.podCIDR", pod_cidr, "not a valid CIDR"))


def _is_cidr(text: str) -> bool:
    if "/" not in text:
        return False
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


def _validate_namespace(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), False, _name_is_dns_label, errs)


SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": SYSTEM_CRITICAL_PRIORITY + 1000,
    "system-cluster-critical": SYSTEM_CRITICAL_PRIORITY,
}


def _validate_priority_class(doc: dict, errs: Errors) -> None:
    """``ValidatePriorityClass``.  A missing ``value`` decodes as 0 and is not an error."""
    _validate_object_meta(_dict(doc, "metadata"), False, _name_is_dns_subdomain, errs)
    name = _str(_dict(doc, "metadata"), "name")
    value = _as_int(_get(doc, "value", 0))
    global_default = _get(doc, "globalDefault") is True
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = None
        if name not in SYSTEM_PRIORITY_CLASSES:
            problem = f"{name} is not a known system priority class"
        elif value != SYSTEM_PRIORITY_CLASSES[name]:
            problem = f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
        elif global_default:
            problem = f"globalDefault of {name} PriorityClass must be false"
        if problem:
            errs.append(
                _forbidden(
                    "metadata.name",
                    f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use "
                    f"only. error: {problem}",
                )
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errs.append(_forbidden("value", detail))


_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")  # sets.List() order
_KUBELET_PORT = 10250


def _validate_service(doc: dict, errs: Errors) -> None:
    """``ValidateService`` (defaults applied: type ClusterIP, sessionAffinity None,
    protocol TCP, targetPort = port)."""
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns1035_label, errs)
    spec = _dict(doc, "spec")
    ports = _lst(spec, "ports")
    cluster_ip = _str(spec, "clusterIP")
    headless = cluster_ip == "None"
    service_type = _str(spec, "type") or "ClusterIP"
    if not ports and not headless and service_type != "ExternalName":
        errs.append(_required("spec.ports"))
    if service_type == "LoadBalancer":
        for i, port in enumerate(ports):
            if _as_int(_get(port, "port", 0)) == _KUBELET_PORT:
                errs.append(
                    _invalid(
                        _index("spec.ports", i),
                        _KUBELET_PORT,
                        f"may not expose port {_KUBELET_PORT} externally since it is used by kubelet",
                    )
                )
        if headless:
            errs.append(_invalid("spec.clusterIP", cluster_ip, "may not be set to 'None' for LoadBalancer services"))
    elif service_type == "NodePort" and headless:
        errs.append(_invalid("spec.clusterIP", cluster_ip, "may not be set to 'None' for NodePort services"))
    elif service_type == "ExternalName":
        if cluster_ip:
            errs.append(_forbidden("spec.clusterIP", "must be empty for ExternalName services"))
        external_name = _str(spec, "externalName")
        if external_name:
            for msg in _dns1123_subdomain_errors(external_name):
                errs.append(_invalid("spec.externalName", external_name, msg))
        else:
            errs.append(_required("spec.externalName"))

    port_names: set[str] = set()
    for i, port in enumerate(ports):
        port_path = _index("spec.ports", i)
        name = _str(port, "name")
        if len(ports) > 1 and not name:
            errs.append(_required(_child(port_path, "name")))
        elif name:
            for msg in _dns1123_label_errors(name):
                errs.append(_invalid(_child(port_path, "name"), name, msg))
            if name in port_names:
                errs.append(_duplicate(_child(port_path, "name"), name))
            else:
                port_names.add(name)
        number = _as_int(_get(port, "port", 0))
        for msg in _is_valid_port_num(number):
            errs.append(_invalid(_child(port_path, "port"), number, msg))
        protocol = _str(port, "protocol")
        if protocol and protocol not in _SUPPORTED_PROTOCOLS:
            errs.append(_not_supported(_child(port_path, "protocol"), protocol, _SUPPORTED_PROTOCOLS))
        target = _get(port, "targetPort")
        if target in (None, 0, ""):
            target = number
        if isinstance(target, str):
            for msg in _is_valid_port_name(target):
                errs.append(_invalid(_child(port_path, "targetPort"), target, msg))
        else:
            for msg in _is_valid_port_num(_as_int(target)):
                errs.append(_invalid(_child(port_path, "targetPort"), _as_int(target), msg))

    if isinstance(_get(spec, "selector"), dict):
        _validate_labels(_dict(spec, "selector"), "spec.selector", errs)
    affinity = _str(spec, "sessionAffinity")
    if affinity and affinity not in ("ClientIP", "None"):
        errs.append(_not_supported("spec.sessionAffinity", affinity, ("ClientIP", "None")))
    if cluster_ip and not headless:
        try:
            ipaddress.ip_address(cluster_ip)
        except ValueError:
            errs.append(_invalid("spec.clusterIP", cluster_ip, "must be empty, 'None', or a valid IP address"))
    if _str(spec, "type") and service_type not in _SERVICE_TYPES:
        errs.append(_not_supported("spec.type", service_type, _SERVICE_TYPES))
    if service_type == "ClusterIP":
        for i, port in enumerate(ports):
            if _as_int(_get(port, "nodePort", 0)) != 0:
                node_port_path = _child(_index("spec.ports", i), "nodePort")
                errs.append(_forbidden(node_port_path, "may not be used when `type` is 'ClusterIP'"))
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        node_port = _as_int(_get(port, "nodePort", 0))
        if node_port == 0:
            continue
        key = (_str(port, "protocol") or "TCP", node_port)
        if key in node_ports:
            errs.append(_duplicate(_child(_index("spec.ports", i), "nodePort"), node_port))
        node_ports.add(key)
    seen_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        protocol, number = _str(port, "protocol") or "TCP", _as_int(_get(port, "port", 0))
        if (protocol, number) in seen_ports:
            errs.append(
                _duplicate(
                    _index("spec.ports", i),
                    GoValue(
                        f'core.ServicePort{{Name:"", Protocol:{go_quote(protocol)}, Port:{number}, '
                        f'TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:""}}, NodePort:0}}'
                    ),
                )
            )
        seen_ports.add((protocol, number))


def _defaults_selector_from_template(api_version: str) -> bool:
    """extensions/v1beta1 and apps/v1beta1 default a missing selector to the
    template's labels; apps/v1beta2 and apps/v1 require it."""
    return api_version.startswith("extensions/") or api_version == "apps/v1beta1"


def _workload_selector(doc: dict) -> object:
    spec = _dict(doc, "spec")
    selector = _get(spec, "selector")
    if selector is None and _defaults_selector_from_template(_str(doc, "apiVersion")):
        labels = _get(_dict(_dict(spec, "template"), "metadata"), "labels")
        if isinstance(labels, dict) and labels:
            return {"matchLabels": labels}
    return selector


def _validate_replication_controller(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    template = _get(spec, "template")
    template_labels = _get(_dict(template, "metadata"), "labels") if isinstance(template, dict) else None
    selector = _dict(spec, "selector")
    if not selector and isinstance(template_labels, dict):
        selector = template_labels  # v1 defaulting: selector := template labels
    _validate_nonnegative(_get(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    as_selector = _set_as_selector(selector)
    if as_selector.empty():
        errs.append(_required("spec.selector"))
    _validate_nonnegative(_get(spec, "replicas"), "spec.replicas", errs)
    if not isinstance(template, dict):
        errs.append(_required("spec.template"))
        return
    if not as_selector.empty() and not as_selector.matches(template_labels or {}):
        errs.append(_selector_mismatch(template))
    _validate_pod_template_spec(template, "spec.template", errs)
    _template_restart_and_deadline(template, "spec.template", errs)


def _validate_selector_and_template(doc: dict, kind_word: str, errs: Errors) -> None:
    """The selector/template part shared by Deployment and ReplicaSet."""
    spec = _dict(doc, "spec")
    selector = _workload_selector(doc)
    if selector is None:
        errs.append(_required("spec.selector"))
    else:
        _validate_label_selector(selector, "spec.selector", errs)
        if not _dict(selector, "matchLabels") and not _lst(selector, "matchExpressions"):
            detail = f"empty selector is invalid for {kind_word}"
            errs.append(_invalid("spec.selector", _go_label_selector(selector), detail))
    converted = _label_selector_as_selector(selector)
    if converted is None:
        errs.append(_invalid("spec.selector", _go_label_selector(selector), "invalid label selector"))
        return
    template = _dict(spec, "template")
    labels = _get(_dict(template, "metadata"), "labels")
    if not converted.empty() and not converted.matches(labels if isinstance(labels, dict) else {}):
        errs.append(_selector_mismatch(template))
    _validate_pod_template_spec(template, "spec.template", errs)
    _template_restart_and_deadline(template, "spec.template", errs)


def _int_or_percent_value(value: object) -> int:
    if isinstance(value, str):
        if not _is_valid_percent(value):
            return int(value[:-1])
        return int(value) if value.isdigit() else 0
    return _as_int(value)


def _validate_deployment(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    _validate_nonnegative(_get(spec, "replicas"), "spec.replicas", errs)
    _validate_selector_and_template(doc, "deployment", errs)
    strategy = _dict(spec, "strategy")
    strategy_type = _str(strategy, "type") or "RollingUpdate"
    rolling = _get(strategy, "rollingUpdate")
    if strategy_type == "Recreate":
        if rolling is not None:
            detail = "may not be specified when strategy `type` is 'Recreate'"
            errs.append(_forbidden("spec.strategy.rollingUpdate", detail))
    elif strategy_type == "RollingUpdate":
        rolling = rolling if isinstance(rolling, dict) else {}
        max_unavailable = _get(rolling, "maxUnavailable", "25%")
        max_surge = _get(rolling, "maxSurge", "25%")
        path = "spec.strategy.rollingUpdate"
        _validate_positive_int_or_percent(max_unavailable, _child(path, "maxUnavailable"), errs)
        _validate_positive_int_or_percent(max_surge, _child(path, "maxSurge"), errs)
        if _int_or_percent_value(max_unavailable) == 0 and _int_or_percent_value(max_surge) == 0:
            bad = _go_int_or_string(max_unavailable)
            errs.append(_invalid(_child(path, "maxUnavailable"), bad, "may not be 0 when `maxSurge` is 0"))
        _not_more_than_100_percent(max_unavailable, _child(path, "maxUnavailable"), errs)
    else:
        errs.append(
            _not_supported(
                "spec.strategy",
                GoValue(
                    f"apps.DeploymentStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{_go_pointer('apps.RollingUpdateDeployment', rolling is not None)}}}"
                ),
                ("Recreate", "RollingUpdate"),
            )
        )
    _validate_nonnegative(_get(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    _validate_nonnegative(_get(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)
    deadline = _get(spec, "progressDeadlineSeconds")
    if deadline is not None:
        _validate_nonnegative(deadline, "spec.progressDeadlineSeconds", errs)
        if _as_int(deadline) <= _as_int(_get(spec, "minReadySeconds", 0)):
            detail = "must be greater than minReadySeconds"
            errs.append(_invalid("spec.progressDeadlineSeconds", _as_int(deadline), detail))


def _validate_positive_int_or_percent(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, str):
        for msg in _is_valid_percent(value):
            errs.append(_invalid(path, _go_int_or_string(value), msg))
    else:
        _validate_nonnegative(_as_int(value), path, errs)


def _not_more_than_100_percent(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, str) and not _is_valid_percent(value) and int(value[:-1]) > 100:
        errs.append(_invalid(path, _go_int_or_string(value), "must not be greater than 100%"))


def _validate_replica_set(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    _validate_nonnegative(_get(spec, "replicas"), "spec.replicas", errs)
    _validate_nonnegative(_get(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    # sic: upstream says "deployment" in the ReplicaSet message too
    _validate_selector_and_template(doc, "deployment", errs)


def _validate_stateful_set(doc: dict, errs: Errors) -> None:
    """``ValidateStatefulSetSpec``; in 1.11 the pod template's spec is not validated."""
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    policy = _str(spec, "podManagementPolicy")
    if policy and policy not in ("OrderedReady", "Parallel"):
        errs.append(_invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = _dict(spec, "updateStrategy")
    strategy_type = _str(strategy, "type")
    rolling = _get(strategy, "rollingUpdate")
    if strategy_type == "OnDelete" and rolling is not None:
        errs.append(
            _invalid(
                "spec.updateStrategy.rollingUpdate",
                GoValue(f"apps.RollingUpdateStatefulSetStrategy{{Partition:{_as_int(_get(rolling, 'partition', 0))}}}"),
                "only allowed for updateStrategy 'RollingUpdate'",
            )
        )
    elif strategy_type == "RollingUpdate" and isinstance(rolling, dict):
        _validate_nonnegative(_get(rolling, "partition"), "spec.updateStrategy.rollingUpdate.partition", errs)
    elif strategy_type and strategy_type not in ("OnDelete", "RollingUpdate"):
        errs.append(
            _invalid(
                "spec.updateStrategy",
                GoValue(
                    f"apps.StatefulSetUpdateStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{_go_pointer('apps.RollingUpdateStatefulSetStrategy', rolling is not None)}}}"
                ),
                "must be 'RollingUpdate' or 'OnDelete'",
            )
        )
    _validate_nonnegative(_get(spec, "replicas"), "spec.replicas", errs)
    selector = _workload_selector(doc)
    if selector is None:
        errs.append(_required("spec.selector"))
    else:
        _validate_label_selector(selector, "spec.selector", errs)
        if not _dict(selector, "matchLabels") and not _lst(selector, "matchExpressions"):
            detail = "empty selector is invalid for statefulset"
            errs.append(_invalid("spec.selector", _go_label_selector(selector), detail))
    template = _dict(spec, "template")
    converted = _label_selector_as_selector(selector)
    if converted is None:
        errs.append(_invalid("spec.selector", _go_label_selector(selector), ""))
    else:
        labels = _get(_dict(template, "metadata"), "labels")
        if not converted.empty() and not converted.matches(labels if isinstance(labels, dict) else {}):
            errs.append(_selector_mismatch(template))
        meta = _dict(template, "metadata")
        _validate_labels(_dict(meta, "labels"), "spec.template.labels", errs)
        _validate_annotations(_dict(meta, "annotations"), "spec.template.annotations", errs)
    _template_restart_and_deadline(template, "spec.template", errs)


def _validate_daemon_set(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    selector = _workload_selector(doc)
    _validate_label_selector(selector, "spec.selector", errs)
    template = _dict(spec, "template")
    converted = _label_selector_as_selector(selector)
    labels = _get(_dict(template, "metadata"), "labels")
    # a DaemonSet checks the match even for a nil selector (which matches nothing)
    if converted is not None and not converted.matches(labels if isinstance(labels, dict) else {}):
        errs.append(_selector_mismatch(template))
    if isinstance(selector, dict) and not _dict(selector, "matchLabels") and not _lst(selector, "matchExpressions"):
        errs.append(_invalid("spec.selector", _go_label_selector(selector), "empty selector is invalid for daemonset"))
    _validate_pod_template_spec(template, "spec.template", errs)
    _template_restart_and_deadline(template, "spec.template", errs)
    _validate_nonnegative(_get(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    _validate_nonnegative(_get(spec, "templateGeneration"), "spec.templateGeneration", errs)
    strategy = _dict(spec, "updateStrategy")
    strategy_type = _str(strategy, "type")
    rolling = _get(strategy, "rollingUpdate")
    if strategy_type == "RollingUpdate" and isinstance(rolling, dict):
        max_unavailable = _get(rolling, "maxUnavailable", 1)
        path = "spec.updateStrategy.rollingUpdate.maxUnavailable"
        _validate_positive_int_or_percent(max_unavailable, path, errs)
        if _int_or_percent_value(max_unavailable) == 0:
            errs.append(_invalid(path, _go_int_or_string(max_unavailable), "cannot be 0"))
        _not_more_than_100_percent(max_unavailable, path, errs)
    elif strategy_type and strategy_type not in ("RollingUpdate", "OnDelete"):
        errs.append(
            _not_supported(
                "spec.updateStrategy",
                GoValue(
                    f"apps.DaemonSetUpdateStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{_go_pointer('apps.RollingUpdateDaemonSet', rolling is not None)}}}"
                ),
                ("RollingUpdate", "OnDelete"),
            )
        )
    _validate_nonnegative(_get(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)


def _validate_pod_disruption_budget(doc: dict, errs: Errors) -> None:
    """``ValidatePodDisruptionBudget``.  In 1.11 it does not validate ObjectMeta;
    the generic registry then checks it with path-segment name rules only."""
    spec = _dict(doc, "spec")
    min_available = _get(spec, "minAvailable")
    max_unavailable = _get(spec, "maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        errs.append(
            _invalid(
                "spec",
                GoValue(
                    "policy.PodDisruptionBudgetSpec{"
                    f"MinAvailable:{_go_pointer('intstr.IntOrString', True)}, "
                    f"Selector:{_go_pointer('v1.LabelSelector', _get(spec, 'selector') is not None)}, "
                    f"MaxUnavailable:{_go_pointer('intstr.IntOrString', True)}}}"
                ),
                "minAvailable and maxUnavailable cannot be both set",
            )
        )
    for field, value in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        if value is not None:
            _validate_positive_int_or_percent(value, f"spec.{field}", errs)
            _not_more_than_100_percent(value, f"spec.{field}", errs)
    _validate_label_selector(_get(spec, "selector"), "spec.selector", errs)
    if not errs:
        _validate_object_meta(_dict(doc, "metadata"), True, _name_is_path_segment, errs)


_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce")  # sets.List() order
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
# PV volume sources in the order ValidatePersistentVolume checks them, with the
# path it names when a second one is given (note "cephFS").
_PV_SOURCES = (
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephFS"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", None),  # never "more than 1 volume type" upstream
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
)


def _validate_persistent_volume(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), False, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    modes = _lst(spec, "accessModes")
    if not modes:
        errs.append(_required("spec.accessModes"))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(_not_supported("spec.accessModes", _as_str(mode), _ACCESS_MODES))
    capacity = _dict(spec, "capacity")
    if not capacity:
        errs.append(_required("spec.capacity"))
    parsed: dict[str, _quantity.Quantity] = {}
    for name, raw in capacity.items():
        q = _parse_resource(raw, _key("spec.capacity", name), errs)
        if q is not None:
            parsed[name] = q
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(_not_supported("spec.capacity", _go_resource_list(parsed), ("storage",)))
    for name, q in parsed.items():
        path = _key("spec.capacity", name)
        if q.int_value() < 0:
            errs.append(_invalid(path, q.int_value(), "must be a valid resource quantity"))
        if q.value <= 0:
            errs.append(_invalid(path, q.string(), "must be greater than zero"))
    policy = _str(spec, "persistentVolumeReclaimPolicy")
    if policy and policy not in _RECLAIM_POLICIES:
        errs.append(_not_supported("spec.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES))
    node_affinity = _get(spec, "nodeAffinity")
    if isinstance(node_affinity, dict):
        required = _get(node_affinity, "required")
        if isinstance(required, dict):
            _validate_node_selector(required, "spec.nodeAffinity.required", errs)
        else:
            errs.append(_required("spec.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for key, forbidden_path in _PV_SOURCES:
        source = _get(spec, key)
        if not isinstance(source, dict):
            continue
        if count > 0 and forbidden_path is not None:
            errs.append(_forbidden(f"spec.{forbidden_path}", "may not specify more than 1 volume type"))
            continue
        count += 1
        if key == "hostPath":
            host_path = _str(source, "path")
            if not host_path:
                errs.append(_required("spec.hostPath.path"))
            elif ".." in host_path.replace("\\", "/").split("/"):
                errs.append(_invalid("spec.hostPath.path", host_path, "must not contain '..'"))
        elif key == "nfs":
            if not _str(source, "server"):
                errs.append(_required("spec.nfs.server"))
            nfs_path = _str(source, "path")
            if not nfs_path:
                errs.append(_required("spec.nfs.path"))
            if not nfs_path.startswith("/"):
                errs.append(_invalid("spec.nfs.path", nfs_path, "must be an absolute path"))
        elif key == "local":
            if not _str(source, "path"):
                errs.append(_required("spec.local.path"))
            if not isinstance(node_affinity, dict):
                errs.append(_required("metadata.annotations", "Local volume requires node affinity"))
    if count == 0:
        errs.append(_required("spec", "must specify a volume type"))
    host_path = _get(spec, "hostPath")
    if isinstance(host_path, dict) and _str(host_path, "path").rstrip("/") == "" and _str(host_path, "path"):
        if policy == "Recycle":
            detail = "may not be 'recycle' for a hostPath mount of '/'"
            errs.append(_forbidden("spec.persistentVolumeReclaimPolicy", detail))
    storage_class = _str(spec, "storageClassName")
    if storage_class:
        for msg in _dns1123_subdomain_errors(storage_class):
            errs.append(_invalid("spec.storageClassName", storage_class, msg))


def _validate_persistent_volume_claim(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), True, _name_is_dns_subdomain, errs)
    spec = _dict(doc, "spec")
    modes = _lst(spec, "accessModes")
    if not modes:
        errs.append(_required("spec.accessModes", "at least 1 access mode is required"))
    selector = _get(spec, "selector")
    if isinstance(selector, dict):
        _validate_label_selector(selector, "spec.selector", errs)
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(_not_supported("spec.accessModes", _as_str(mode), _ACCESS_MODES))
    requests = _dict(_dict(spec, "resources"), "requests")
    # sic: upstream names this path spec.resources[storage]
    storage_path = "spec.resources[storage]"
    if "storage" not in requests:
        errs.append(_required(storage_path))
    else:
        q = _parse_resource(requests["storage"], "spec.resources.requests[storage]", errs)
        if q is not None:
            _validate_quantity_value("storage", q, storage_path, errs)
            if q.value <= 0:
                errs.append(_invalid(storage_path, q.string(), "must be greater than zero"))
    storage_class = _str(spec, "storageClassName")
    if storage_class:
        for msg in _dns1123_subdomain_errors(storage_class):
            errs.append(_invalid("spec.storageClassName", storage_class, msg))


def _validate_storage_class(doc: dict, errs: Errors) -> None:
    _validate_object_meta(_dict(doc, "metadata"), False, _name_is_dns_subdomain, errs)
    provisioner = _str(doc, "provisioner")
    if not provisioner:
        errs.append(_required("provisioner"))
    else:
        for msg in _qualified_name_errors(provisioner.lower()):
            errs.append(_invalid("provisioner", provisioner, msg))
    parameters = _dict(doc, "parameters")
    if len(parameters) > 512:
        errs.append(_too_long("parameters", "Provisioner Parameters exceeded max allowed", 512))
    else:
        total = 0
        for key, value in parameters.items():
            if not key:
                errs.append(_invalid("parameters", key, "field can not be empty."))
            total += _byte_len(key) + _byte_len(_as_str(value))
        if total > 256 * (1 << 10):
            errs.append(_too_long("parameters", "", 256 * (1 << 10)))
    policy = _str(doc, "reclaimPolicy")
    if policy and policy not in ("Delete", "Retain"):
        errs.append(_not_supported("reclaimPolicy", policy, ("Delete", "Retain")))
    mode = _str(doc, "volumeBindingMode")
    if mode and mode not in ("Immediate", "WaitForFirstConsumer"):
        errs.append(_not_supported("volumeBindingMode", mode, ("Immediate", "WaitForFirstConsumer")))


_KINDS: dict[str, Callable[[dict, Errors], None]] = {
    "Node": _validate_node,
    "Pod": _validate_pod,
    "Namespace": _validate_namespace,
    "PriorityClass": _validate_priority_class,
    "Service": _validate_service,
    "ReplicationController": _validate_replication_controller,
    "ReplicaSet": _validate_replica_set,
    "Deployment": _validate_deployment,
    "StatefulSet": _validate_stateful_set,
    "DaemonSet": _validate_daemon_set,
    "PodDisruptionBudget": _validate_pod_disruption_budget,
    "PersistentVolume": _validate_persistent_volume,
    "PersistentVolumeClaim": _validate_persistent_volume_claim,
    "StorageClass": _validate_storage_class,
}
SUPPORTED_KINDS = frozenset(_KINDS)

# Group and version assumed when a document has no apiVersion (1.11 defaults).
_DEFAULT_API_VERSIONS = {
    "PriorityClass": "scheduling.k8s.io/v1beta1",
    "ReplicaSet": "apps/v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "PodDisruptionBudget": "policy/v1beta1",
    "StorageClass": "storage.k8s.io/v1",
}


def _group_version(doc: dict) -> tuple[str, str]:
    api_version = _get(doc, "apiVersion")
    if not isinstance(api_version, str) or not api_version:
        api_version = _DEFAULT_API_VERSIONS.get(_as_str(_get(doc, "kind")), "v1")
    group, _, version = api_version.rpartition("/")
    return group, version


# ==========================================================================
# 9. Public entry points
# ==========================================================================


def validate(doc: dict) -> list[FieldError]:
    """Validate one document as the API server would on create.

    Returns the errors in the server's order (empty when valid).  A decode
    failure yields exactly one ``DecodeError`` (see the module docstring).
    Kinds outside :data:`SUPPORTED_KINDS` have no rules here and return ``[]``.
    """
    if not isinstance(doc, dict):
        raise TypeError("validate() expects a document parsed into a dict")
    kind = _get(doc, "kind")
    validator = _KINDS.get(kind) if isinstance(kind, str) else None
    if validator is None:
        return []
    _, version = _group_version(doc)
    decoder = _Decoder()
    decoder.walk(doc, _schema_for(kind, version), "", [])
    if decoder.error is not None:
        path, message = decoder.error
        return [FieldError(DECODE_ERROR, path, None, message)]
    if decoder.needs_normalizing:
        doc = _normalize(doc)
    errs: list[FieldError] = []
    validator(doc, errs)
    return errs


def validate_or_raise(doc: dict) -> None:
    """Raise :class:`InvalidError` (with group and version from ``apiVersion``)
    when :func:`validate` finds anything."""
    errs = validate(doc)
    if errs:
        group, version = _group_version(doc)
        name = _as_str(_get(_get(doc, "metadata", {}), "name", ""))
        raise InvalidError(_as_str(doc.get("kind")), name, errs, group, version)


def _decode_fragment(value: object, node: tuple, struct: str, path: str) -> list[FieldError]:
    decoder = _Decoder()
    stack = [p for p in re.sub(r"\[[^\]]*\]", "", path).split(".") if p]
    decoder.walk(value, node, struct, stack)
    if decoder.error is not None:
        return [FieldError(DECODE_ERROR, decoder.error[0], None, decoder.error[1])]
    return []


def validate_taints(taints: list, path: str) -> list[FieldError]:
    """Validate a list of taint dicts (``{"key", "value", "effect"}``) at ``path``.

    The Node validator uses ``metadata.taints`` (upstream's path); pass
    whatever path your caller should show.  Non-string fields give the decode
    error a ``NodeSpec`` would.
    """
    decode = _decode_fragment(taints, _TAINTS, "NodeSpec", path)
    if decode:
        return decode
    errs: list[FieldError] = []
    _validate_taints(_normalize(taints), path, errs)
    return errs


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    """Validate a list of toleration dicts at ``path`` (e.g. ``spec.tolerations``)."""
    decode = _decode_fragment(tolerations, _TOLERATIONS, "PodSpec", path)
    if decode:
        return decode
    errs: list[FieldError] = []
    _validate_tolerations(_normalize(tolerations), path, errs)
    return errs


def validate_taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    """``validateTaintEffect``: Required when empty (unless allowed), else one of the three."""
    errs: list[FieldError] = []
    _validate_taint_effect(effect, allow_empty, path, errs)
    return errs
