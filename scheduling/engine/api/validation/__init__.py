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

The package is split by API group: ``field`` (formats, Go printing, FieldError,
InvalidError, small document readers), ``decode`` (JSON type schemas), ``common``
(validators every group shares, pod specs), then one module per group: ``core``,
``apps``, ``policy``, ``scheduling``, ``storage``. This module dispatches by kind and
holds the public entry points; ``from scheduling.engine.api.validation import ...``
names stay as they were.

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
  annotations (upstream TODO in ``ValidatePodTemplateSpecForStatefulSet``),
  except that their container quantities must parse and fit (below): the
  simulator's controller creates pods from the template with no further check.
* Annotation key prefixes must be lowercase (upstream lower-cases the whole key
  before checking it).
* A quantity whose milli value does not fit an int64 is refused (Go keeps it,
  and its ``MilliValue()`` then overflows).
"""

from __future__ import annotations

import re
from typing import Callable

from scheduling.engine.api.kinds import TABLE, resolve
from scheduling.engine.api.validation.field import (
    DECODE_ERROR,
    Errors,
    FieldError,
    InvalidError,
    as_str,
    child_path,
    excerpt,
    get_at,
    index_path,
    key_path,
    name_is_dns_subdomain,
)
from scheduling.engine.api.validation import crd
from scheduling.engine.api.validation.decode import (
    Decoder,
    RESOURCE_LIST,
    TAINTS,
    TOLERATIONS,
    metadata_schema,
    normalize,
    schema_for,
    zero_nulls,
)
from scheduling.engine.api.validation.common import (
    QUANTITY_TOO_LARGE_MSG,
    parse_resource,
    validate_object_meta,
    validate_taint_effect_into,
    validate_taints_into,
    validate_tolerations_into,
)
from scheduling.engine.api.validation.core import (
    validate_namespace,
    validate_node,
    validate_persistent_volume,
    validate_persistent_volume_claim,
    validate_pod,
    validate_pod_update,
    validate_replication_controller,
    validate_service,
)
from scheduling.engine.api.validation.apps import (
    validate_daemon_set,
    validate_deployment,
    validate_replica_set,
    validate_stateful_set,
)
from scheduling.engine.api.validation.policy import (
    validate_pod_disruption_budget,
)
from scheduling.engine.api.validation.scheduling import (
    validate_priority_class,
)
from scheduling.engine.api.validation.storage import (
    validate_storage_class,
)
from scheduling.engine.api.validation.field import (  # noqa: F401 (re-exported)
    DUPLICATE,
    EXCERPT_CHARS,
    FORBIDDEN,
    GoValue,
    INTERNAL,
    INVALID,
    NOT_FOUND,
    NOT_SUPPORTED,
    REQUIRED,
    TOO_LONG,
    go_quote,
    render_value,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

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
    "EXCERPT_CHARS",
    "FieldError",
    "GoValue",
    "InvalidError",
    "excerpt",
    "go_quote",
    "render_value",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "INVALID_OBJECT_REASON",
    "decode_and_validate",
    "decode_only",
    "engine_problem",
    "invalid_error",
    "invalid_object_message",
    "validate",
    "validate_or_raise",
    "validate_update",
    "validate_taint_effect",
    "validate_taints",
    "validate_tolerations",
]

# The create validators and assumed apiVersions, read from the one kinds table (engine.api.kinds).
_KINDS: dict[str, Callable[[dict, Errors], None]] = {k.kind: resolve(k.validator) for k in TABLE if k.validator}
SUPPORTED_KINDS = frozenset(_KINDS)

# Group and version assumed when a document has no apiVersion: the kind's preferred version.
_DEFAULT_API_VERSIONS = {k.kind: k.api_version for k in TABLE}


def _group_version(doc: dict) -> tuple[str, str]:
    api_version = get_at(doc, "apiVersion")
    if not isinstance(api_version, str) or not api_version:
        api_version = _DEFAULT_API_VERSIONS.get(as_str(get_at(doc, "kind")), "v1")
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
    return decode_and_validate(doc)[1]


# ValidateUpdate of the kinds whose update rules are simulated: fn(new, old, errs), run after
# the create rules (the 1.11 pod strategy's ValidateUpdate: ValidatePod, then ValidatePodUpdate).
_UPDATE_KINDS: dict[str, Callable[[dict, dict, Errors], None]] = {
    "Pod": validate_pod_update,
}


def validate_update(doc: dict, old: dict) -> list[FieldError]:
    """Validate `doc` as the API server would on an update of the stored `old` (both
    defaulted and admitted): the create rules, then the kind's update rules (pods only;
    other kinds are checked as on create)."""
    errs = validate(doc)
    update = _UPDATE_KINDS.get(as_str(get_at(doc, "kind")))
    if update is None or any(e.type == DECODE_ERROR for e in errs):
        return errs
    update(doc, old, errs)
    return errs


def decode_and_validate(doc: dict, namespaced: bool | None = None) -> tuple[dict, list[FieldError]]:
    """:func:`validate`, also returning the document as Go's decoder leaves it:
    null items of typed lists and maps hold their zero value, dates are strings
    and map keys are strings. Store that document, not the one passed in.

    `namespaced`: given for a kind the engine stores but has no rules for here (the
    OpenShift kinds: Machine, MachineSet, ClusterVersion, ...), its ObjectMeta is still
    decoded and validated (``ValidateObjectMeta``, names as DNS-1123 subdomains), as
    the API server does for every object; without it such a kind returns ``[]``."""
    if not isinstance(doc, dict):
        raise TypeError("validate() expects a document parsed into a dict")
    kind = get_at(doc, "kind")
    validator = _KINDS.get(kind) if isinstance(kind, str) else None
    if validator is None and (namespaced is None or not isinstance(kind, str)):
        return doc, []
    _, version = _group_version(doc)
    if validator is None:
        validator = _object_meta_only(namespaced)
        schema = metadata_schema(kind, version)
    else:
        schema = schema_for(kind, version)
    decoder = Decoder()
    decoder.walk(doc, schema, "", [])
    if decoder.error is not None:
        path, message = decoder.error
        return doc, [FieldError(DECODE_ERROR, path, None, message)]
    if decoder.has_null_items:
        doc = zero_nulls(doc, schema)
    if decoder.needs_normalizing:
        doc = normalize(doc)
    errs: list[FieldError] = []
    validator(doc, errs)
    if kind in crd.SCHEMAS and namespaced is not None:
        doc = crd.check_custom_resource(doc, errs)
    return doc, errs


def decode_only(doc: dict) -> tuple[dict, FieldError | None]:
    """The decode step of :func:`decode_and_validate` alone: the document as Go's typed
    decoder leaves it and its first decode error (None when it decodes). No validation,
    no defaults: what a client that decodes a file into typed objects (kubectl's
    ``unable to decode "FILE": ...``) accepts, for snapshots taken exactly as given.

    Covers every kind the engine stores (the OpenShift kinds by their CRD schema's types)
    and core Events; a quantity that does not parse is a decode error as in Go (reported,
    as everywhere here, as an Invalid value naming the field), one that parses but is
    huge is kept as Go keeps it. Other kinds are returned as they are."""
    if not isinstance(doc, dict):
        raise TypeError("decode_only() expects a document parsed into a dict")
    kind = get_at(doc, "kind")
    if not isinstance(kind, str):
        return doc, None
    _, version = _group_version(doc)
    custom = kind in crd.SCHEMAS
    if custom:
        schema = metadata_schema(kind, version)
    elif kind in _KINDS or kind == "Event":
        schema = schema_for(kind, version)
    else:
        return doc, None
    decoder = Decoder()
    decoder.walk(doc, schema, "", [])
    if decoder.error is not None:
        return doc, FieldError(DECODE_ERROR, decoder.error[0], None, decoder.error[1])
    if decoder.has_null_items:
        doc = zero_nulls(doc, schema)
    if decoder.needs_normalizing:
        doc = normalize(doc)
    errs: list[FieldError] = []
    if custom:
        doc = crd.check_custom_resource(doc, errs)
    else:
        _check_quantities(doc, schema, "", errs, _quantity_syntax)
    return doc, (errs[0] if errs else None)


def _quantity_syntax(raw: object, path: str, errs: Errors) -> None:
    """A ResourceList entry as Go's Quantity.UnmarshalJSON takes it: it must parse; its
    size is not checked (Go keeps 1e1000, see ``parse_resource``'s departure)."""
    found: list[FieldError] = []
    parse_resource(raw, path, found)
    errs.extend(e for e in found if e.detail != QUANTITY_TOO_LARGE_MSG)


def _object_meta_only(namespaced: bool) -> Callable[[dict, Errors], None]:
    def validate_meta(doc: dict, errs: Errors) -> None:
        meta = get_at(doc, "metadata")
        validate_object_meta(meta if isinstance(meta, dict) else {}, namespaced, name_is_dns_subdomain, errs)

    return validate_meta


# --- what the engine can use --------------------------------------------------------------

INVALID_OBJECT_REASON = "InvalidObject"


def engine_problem(doc: dict) -> FieldError | None:
    """The first reason the engine cannot use a *stored* document, or None.

    Imports validate everything, but a document stored before a rule existed (or written
    around the API) may still hold a wrong type or a quantity that does not parse or fit.
    This is the cheap part of :func:`validate` that protects the engine: the decode walk
    (types of every field the engine reads) and every quantity of every resource list.
    A reconcile uses it to skip such an object and report it instead of failing whole."""
    kind = get_at(doc, "kind") if isinstance(doc, dict) else None
    if isinstance(kind, str) and kind in crd.SCHEMAS:
        return _custom_resource_problem(doc, kind)
    if not isinstance(kind, str) or kind not in _KINDS:
        return None
    _, version = _group_version(doc)
    schema = schema_for(kind, version)
    decoder = Decoder()
    decoder.walk(doc, schema, "", [])
    if decoder.error is not None:
        return FieldError(DECODE_ERROR, decoder.error[0], None, decoder.error[1])
    errs: list[FieldError] = []
    _check_quantities(doc, schema, "", errs)
    return errs[0] if errs else None


def _custom_resource_problem(doc: dict, kind: str) -> FieldError | None:
    """engine_problem of an OpenShift kind: its ObjectMeta as Go decodes it, then the types of
    its CRD's schema (validation.crd: every field the engine reads)."""
    _, version = _group_version(doc)
    decoder = Decoder()
    decoder.walk(doc, metadata_schema(kind, version), "", [])
    if decoder.error is not None:
        return FieldError(DECODE_ERROR, decoder.error[0], None, decoder.error[1])
    errs: list[FieldError] = []
    crd.check_custom_resource(doc, errs)
    return errs[0] if errs else None


def invalid_object_message(doc: dict, problem: FieldError) -> str:
    """The Warning event a reconcile records for an object it skipped."""
    name = as_str(get_at(get_at(doc, "metadata", {}), "name", ""))
    return f'{as_str(doc.get("kind"))} "{excerpt(name, quote=False)}" is skipped by the controllers: {problem}'


def _check_quantities(value: object, node: tuple, path: str, errs: Errors,
                      parse: Callable[[object, str, Errors], object] = parse_resource) -> None:
    if errs or not isinstance(value, (dict, list)):
        return
    shape = node[0]
    if node is RESOURCE_LIST and isinstance(value, dict):
        for name, raw in value.items():
            parse(raw, child_path(path, as_str(name)), errs)
    elif shape == "struct" and isinstance(value, dict):
        for key, item in value.items():
            child = node[2].get(key)
            if child is not None:
                _check_quantities(item, child, child_path(path, key), errs, parse)
    elif shape == "map" and isinstance(value, dict):
        for key, item in value.items():
            _check_quantities(item, node[1], key_path(path, as_str(key)), errs, parse)
    elif shape == "list" and isinstance(value, list):
        for i, item in enumerate(value):
            _check_quantities(item, node[1], index_path(path, i), errs, parse)


def invalid_error(doc: dict, errors: list[FieldError]) -> InvalidError:
    """The API server's answer refusing `doc` for `errors`: ``errors.NewInvalid`` names the
    object by its ``qualifiedKind.String()``, the kind and the group of its ``apiVersion``
    (``Pod "p"``, ``Deployment.apps "d"``, ``MachineSet.machine.openshift.io "ms"``); a
    document without ``apiVersion`` is of its kind's usual group."""
    group, version = _group_version(doc)
    meta = get_at(doc, "metadata", {})
    name = as_str(get_at(meta, "name", "") if isinstance(meta, dict) else "")
    return InvalidError(as_str(doc.get("kind")), name, errors, group, version)


def validate_or_raise(doc: dict) -> None:
    """Raise :class:`InvalidError` (with group and version from ``apiVersion``)
    when :func:`validate` finds anything."""
    errs = validate(doc)
    if errs:
        raise invalid_error(doc, errs)


def _decode_fragment(value: object, node: tuple, struct: str, path: str) -> list[FieldError]:
    decoder = Decoder()
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
    decode = _decode_fragment(taints, TAINTS, "NodeSpec", path)
    if decode:
        return decode
    errs: list[FieldError] = []
    validate_taints_into(normalize(taints), path, errs)
    return errs


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    """Validate a list of toleration dicts at ``path`` (e.g. ``spec.tolerations``)."""
    decode = _decode_fragment(tolerations, TOLERATIONS, "PodSpec", path)
    if decode:
        return decode
    errs: list[FieldError] = []
    validate_tolerations_into(normalize(tolerations), path, errs)
    return errs


def validate_taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    """``validateTaintEffect``: Required when empty (unless allowed), else one of the three."""
    errs: list[FieldError] = []
    validate_taint_effect_into(effect, allow_empty, path, errs)
    return errs
