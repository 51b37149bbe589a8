"""Kubernetes YAML in and out.

`load_documents` turns the text a user pastes or a file holds (YAML or JSON, one or many
documents, `kind: List` unpacked) into validated documents with the API server's defaults
applied, or raises `DocumentError` naming every bad document, its field path and the
Kubernetes message. Nothing here touches the database, so the `simulate` command uses it
too. `dump_documents` writes multi-document YAML that loads back to the same objects.
"""

from __future__ import annotations

import json

import yaml

from .engine.defaults import KINDS, WORKLOAD_KINDS, apply_defaults  # noqa: F401 (re-exported)
from .engine.validation import InvalidError, validate


# Documents that are not cluster objects but are accepted beside them.
POLICY_KIND = "Policy"
TIMELINE_KIND = "Timeline"


class DocumentError(ValueError):
    """One or more documents are unusable; str() is the whole message for the user."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class _Loader(yaml.SafeLoader):
    """SafeLoader that leaves timestamps as strings (JSON has no dates)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _describe(source: str, index: int, total: int) -> str:
    return f"{source} (document {index})" if total > 1 else source


def parse_documents(text: str, source: str = "<input>") -> list[dict]:
    """YAML/JSON text -> list of mappings, `kind: List` unpacked. No validation."""
    try:
        raw = [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise DocumentError([f"{source}: error parsing YAML{where}: {problem}"]) from exc
    docs: list[dict] = []
    problems: list[str] = []
    for i, doc in enumerate(raw, start=1):
        where = _describe(source, i, len(raw))
        if not isinstance(doc, dict):
            problems.append(f"{where}: a document must be a mapping (an object), not {type(doc).__name__}")
        elif _is_list(doc):
            items = doc.get("items") or []
            if not isinstance(items, list):
                problems.append(f"{where}: items: must be a list")
                continue
            for j, item in enumerate(items):
                if isinstance(item, dict):
                    docs.append(item)
                else:
                    problems.append(f"{where}: items[{j}]: a document must be a mapping")
        else:
            docs.append(doc)
    if problems:
        raise DocumentError(problems)
    return docs


def _is_list(doc: dict) -> bool:
    """`kind: List`, or any `<Kind>List` with items (what `kubectl get -o yaml` prints)."""
    kind = doc.get("kind")
    return isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc))


def load_documents(text: str, source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, TIMELINE_KIND)) -> list[dict]:
    """Parse, check kinds, validate and default every document; all or nothing."""
    docs = parse_documents(text, source)
    return check_documents(docs, source, extra_kinds=extra_kinds)


def check_documents(docs: list[dict], source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, TIMELINE_KIND)) -> list[dict]:
    problems: list[str] = []
    out: list[dict] = []
    seen: set[tuple[str, str, str]] = set()
    for i, doc in enumerate(docs, start=1):
        where = _describe(source, i, len(docs))
        kind = doc.get("kind")
        if kind in extra_kinds:
            out.append(doc)
            continue
        if not isinstance(kind, str) or not kind:
            problems.append(f"{where}: Object 'Kind' is missing in '{_short(doc)}'")
            continue
        info = KINDS.get(kind)
        if info is None:
            supported = ", ".join(sorted(KINDS) + list(extra_kinds))
            problems.append(f'{where}: no matches for kind "{kind}": supported kinds are {supported}')
            continue
        api_version = doc.get("apiVersion")
        if api_version is not None and api_version not in info.api_versions:
            problems.append(
                f'{where}: no matches for kind "{kind}" in version "{api_version}" (use {" or ".join(info.api_versions)})'
            )
            continue
        errors = validate(doc)
        if errors:
            name = (doc.get("metadata") or {}).get("name") if isinstance(doc.get("metadata"), dict) else None
            problems.append(f"{where}: {InvalidError(kind, name or '', errors)}")
            continue
        doc = apply_defaults(doc)
        key = (kind, doc["metadata"].get("namespace", ""), doc["metadata"]["name"])
        if key in seen:
            ns = f'{key[1]}/' if key[1] else ""
            problems.append(f'{where}: {kind} "{ns}{key[2]}" appears twice in the input')
            continue
        seen.add(key)
        out.append(doc)
    if problems:
        raise DocumentError(problems)
    return out


def _short(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True)[:80]


# --- out -----------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper, data):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_documents(docs: list[dict]) -> str:
    """Multi-document YAML, keys in the order Kubernetes prints them."""
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
