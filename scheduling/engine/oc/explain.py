"""`oc explain RESOURCE[.FIELD...] [--recursive]` (kubectl pkg/cmd/explain, rendered by the
OpenAPI v3 plaintext template kubectl pkg/explain/v2/templates/plaintext.tmpl, ported here
template by template: "output", "fieldList", "fieldDetail", "description", "typeGuess",
"extractEnum"; `wrap` is go-wordwrap's WrapString, `indent` pads after every newline).

The field documentation is the upstream OpenAPI v3 document of Kubernetes v1.27.0 (kubectl's
testdata/openapi/v3 api/v1 and apis/apps/v1), cut to the schemas the simulated core and apps
kinds reach and to the keys the template reads: data/openapi-v3-subset.json. A simulated kind
outside it (the OpenShift custom resources, PodDisruptionBudget, StorageClass) gets kubectl's
answer for a GVR its OpenAPI document lacks. PriorityClass (group scheduling.k8s.io, v1) comes from
kubernetes' api/openapi-spec/v3; Job and CronJob (batch/v1) from kubernetes/api batch/v1 (the
fields of types.go with the descriptions of types_swagger_doc_generated.go, as the OpenAPI
document is generated from them)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from scheduling.engine.api.defaults import KINDS
from scheduling.engine.store import Store

from .core import Flag, OcError, OcResult, parse_flags, resource_or_error

FLAGS = (Flag("recursive", "bool", "", False), Flag("api-version", "string", "", ""), Flag("output", "string", "", "plaintext"))
DATA = Path(__file__).with_name("data") / "openapi-v3-subset.json"


@functools.lru_cache(maxsize=1)
def document() -> Mapping[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def _schemas() -> Mapping[str, Any]:
    return document()["components"]["schemas"]


def _resolve(ref: str) -> Mapping[str, Any] | None:
    if not ref:
        return None
    return _schemas().get(ref.rsplit("/", 1)[-1])


def wrap(text: str, limit: int) -> str:
    """github.com/mitchellh/go-wordwrap WrapString."""
    out: list[str] = []
    current = 0
    word: list[str] = []
    space: list[str] = []
    for ch in text:
        if ch == "\n":
            out.extend(space)
            space = []
            out.extend(word)
            word = []
            out.append(ch)
            current = 0
        elif ch.isspace() and ch != "\u00a0":
            if not space or word:
                current += len(space) + len(word)
                out.extend(space)
                space = []
                out.extend(word)
                word = []
            space.append(ch)
        else:
            word.append(ch)
            if current + len(space) + len(word) > limit and len(word) < limit:
                out.append("\n")
                current = 0
                space = []
    if not word:
        if current + len(space) <= limit:
            out.extend(space)
    else:
        out.extend(space)
        out.extend(word)
    return "".join(out)


def indent(amount: int, text: str) -> str:
    pad = " " * amount
    return pad + text.replace("\n", "\n" + pad)


def _is_map_schema(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value)


def type_guess(schema: Mapping[str, Any]) -> str:
    if schema.get("items"):
        return "[]" + type_guess(schema["items"])
    if _is_map_schema(schema.get("additionalProperties")):
        return "map[string]" + type_guess(schema["additionalProperties"])
    if schema.get("allOf") and not schema.get("properties") and len(schema["allOf"]) == 1:
        return type_guess(schema["allOf"][0])
    ref = schema.get("$ref")
    if ref:
        target = _resolve(ref)
        if not target or not target.get("type") or target.get("type") == "object":
            name = ref.split("/")[-1]
            return name.split(".")[-1] or "Object"
        return target["type"]
    if schema.get("type") == "object":
        return "Object"
    return schema.get("type") or "Object"


def _enum(schema: Mapping[str, Any], long_view: bool, limit: int, indent_amount: int = 0) -> str:
    values = schema.get("enum")
    if not values:
        return ""
    out = "ENUM:" if long_view else "\n" + " " * indent_amount + "enum: "
    for i, v in enumerate(values):
        if limit > -1 and i >= limit:
            out += ", ...."
            break
        if i > 0 and not long_view:
            out += ", "
        elif long_view:
            out += "\n    "
        out += '""' if v == "" else str(v)
    return out


def description(schema: Mapping[str, Any]) -> str:
    s = _resolve(schema.get("$ref", "")) or schema
    out = ""
    if s.get("description"):
        out += s["description"] + "\n"
    for sub in s.get("allOf") or ():
        out += description(sub)
    if s.get("items"):
        out += description(s["items"])
    if _is_map_schema(s.get("additionalProperties")):
        out += description(s["additionalProperties"])
    return out


def _external_docs(schema: Mapping[str, Any]) -> str:
    docs = schema.get("externalDocs")
    if not docs:
        return ""
    out = "EXTERNAL DOCS:\n"
    if docs.get("description"):
        out += indent(4, wrap(docs["description"], 76)) + "\n"
    if docs.get("url"):
        out += indent(4, "URL: " + docs["url"]) + "\n"
    return out


def field_detail(name: str, schema: Mapping[str, Any], short: bool, level: int) -> str:
    amount = level * 2
    field = schema["properties"][name]
    out = indent(amount, name) + "\t<" + type_guess(field) + ">"
    if name in (schema.get("required") or ()):
        out += " -required-"
    out += _enum(field, False, 4, amount) + "\n"
    if not short:
        out += indent(amount + 2, wrap(field.get("description") or "<no description>", 78 - amount)) + "\n"
        docs = field.get("externalDocs")
        if docs:
            out += "\n" + indent(amount + 2, "EXTERNAL DOCS:") + "\n"
            if docs.get("description"):
                out += indent(amount + 4, wrap(docs["description"], 76 - amount)) + "\n"
            if docs.get("url"):
                out += indent(amount + 4, "URL: " + docs["url"]) + "\n"
        out += "\n"
    return out


def field_list(schema: Mapping[str, Any], level: int, recursive: bool, history: frozenset = frozenset()) -> str:
    ref = schema.get("$ref") or ""
    if ref and ref in history:
        return ""
    history = history | {ref}
    s = _resolve(ref) or schema
    out = ""
    for name in sorted(s.get("properties") or {}):
        out += field_detail(name, s, recursive, level)
        if recursive:
            out += field_list(s["properties"][name], level + 1, recursive, history)
    for sub in s.get("allOf") or ():
        out += field_list(sub, level, recursive, history)
    if s.get("items"):
        out += field_list(s["items"], level, recursive, history)
    if _is_map_schema(s.get("additionalProperties")):
        out += field_list(s["additionalProperties"], level, recursive, history)
    return out


def output(schema: Mapping[str, Any], path: Sequence[str], recursive: bool, history: frozenset = frozenset()) -> str:
    ref = schema.get("$ref") or ""
    s = _resolve(ref) or schema
    if not path:
        out = "DESCRIPTION:\n" + indent(4, wrap(description(s) or "<empty>", 76)) + "\n"
        docs = _external_docs(s)
        if docs:
            out += "\n" + docs
        fields = field_list(s, 1, recursive)
        if fields:
            out += "FIELDS:\n" + fields
        return out
    if ref and ref in history:
        return ""
    history = history | {ref}
    props = s.get("properties") or {}
    if path[0] in props:
        sub = props[path[0]]
        out = ""
        if len(path) == 1:
            out += f"FIELD: {path[0]} <{type_guess(sub)}>\n" + _enum(sub, True, -1) + "\n" + "\n"
        return out + output(sub, path[1:], recursive)
    if s.get("items"):
        return output(s["items"], path, recursive, history)
    if _is_map_schema(s.get("additionalProperties")):
        return output(s["additionalProperties"], path, recursive, history)
    for sub in s.get("allOf") or ():
        text = output(sub, path, recursive, history)
        if text:
            return text
    return ""


def _kind_schema(group: str, version: str, kind: str) -> Mapping[str, Any] | None:
    for schema in _schemas().values():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            if (gvk.get("group") or "", gvk.get("version"), gvk.get("kind")) == (group, version, kind):
                return schema
    return None


def explain(word: str, recursive: bool = False, api_version: str = "") -> str:
    """The text of `oc explain WORD`; OcError with kubectl's message."""
    resource_word, *path = word.split(".") if "." in word else (word,)
    resource = resource_or_error(resource_word)
    # the server's preferred version: the first of the kind's versions the OpenAPI document describes
    versions = [api_version] if api_version else list(KINDS[resource.kind].api_versions if resource.kind in KINDS
                                                      else resource.api_versions)
    schema = None
    for candidate in versions:
        group, _, version = candidate.rpartition("/")
        schema = _kind_schema(group, version, resource.kind)
        if schema is not None:
            break
    if schema is None:  # named in the GA version, as today's servers prefer it
        shown = next((v for v in versions if v == "v1" or v.endswith("/v1")), versions[0])
        group, _, version = shown.rpartition("/")
        gv = f"{group}/{version}" if group else f"/{version}"
        raise OcError(f"GVR ({gv}, Resource={resource.plural}) not found in OpenAPI schema")
    head = (f"GROUP:      {group}\n" if group else "") + f"KIND:       {resource.kind}\nVERSION:    {version}\n\n"
    body = output(schema, path, recursive)
    if not body:
        raise OcError(f'field "{path[-1]}" does not exist')
    return head + body + "\n"


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    if not positional:
        raise OcError('You must specify the type of resource to explain. Use "oc api-resources" for a complete list of '
                      "supported resources.\n")
    if len(positional) > 1:
        raise OcError("We accept only this format: explain RESOURCE\n")
    return OcResult(stdout=explain(positional[0], flags.recursive, flags.api_version))


run.help_text = """Describe fields and structure of various resources.

 This command describes the fields associated with each supported API resource. Fields are identified via a simple JSONPath identifier:

        <type>.<fieldName>[.<fieldName>]

 Information about each field is retrieved from the server in OpenAPI format.

Examples:
  # Get the documentation of the resource and its fields
  kubectl explain pods

  # Get the documentation of a specific field of a resource
  kubectl explain pods.spec.containers

Usage:
  kubectl explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext|plaintext-openapiv2] [options]
"""
