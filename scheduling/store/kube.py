"""Kubernetes YAML in and out.

`load_documents` turns the text a user pastes or a file holds (YAML or JSON, one or many
documents, `kind: List` unpacked) into validated documents with the API server's defaults
applied, or raises `DocumentError` naming every bad document, its field path and the
Kubernetes message. Nothing here touches the database, so the `simulate` command uses it
too. `dump_documents` writes multi-document YAML that loads back to the same objects.

Limits at the door. Every entry point (`simulate`, `import_cluster`, the web import, the
editor previews, the policy page) parses through `parse_documents` / `parse_value`, which
bound the work *before* any object is built:

* **Size.** Text longer than `MAX_TEXT_BYTES` is refused outright (the API server's
  "Request entity too large").
* **JSON** (text starting with `{` or `[`) is read with `json.loads`; its C decoder raises
  `RecursionError` rather than crashing on absurd nesting, and the walk below bounds depth.
* **YAML** is scanned and parsed by libyaml (`yaml.CSafeLoader`) when PyYAML has it (the
  pure-Python scanner is ~50x slower), but the *composer* is PyYAML's Python one, run on
  libyaml's events. libyaml's own C composer recurses without a limit and segfaults the
  process on ~100,000 nested `[`; ours counts depth and stops at `MAX_DEPTH`.
* **Anchors and aliases are allowed, within a budget.** kubectl accepts them (people write
  `<<: *defaults`), so refusing them would refuse real manifests. What makes an alias bomb
  is *expansion*: each alias stands for the whole subtree it names. The composer keeps the
  expanded node count of every composed subtree; each alias adds its target's count to the
  expansion, and once the nodes added by aliases exceed `ALIAS_BUDGET_MIN` or the
  document's own node count (whichever is larger) the input is refused with go-yaml's
  message `yaml: document contains excessive aliasing`. A recursive alias (`&a [*a]`) is
  refused too. The cost is linear in the input, so a 600-byte bomb is refused in
  microseconds instead of expanding to gigabytes downstream.
* **Only JSON values.** Kubernetes YAML is JSON written as YAML: explicit tags that build
  anything else (`!!binary`, `!!timestamp`, `!!set`, `!!omap`, `!!pairs`, `!!python/...`,
  local `!tags`) are refused, naming the field; implicit timestamps stay strings (as with
  kubectl). After construction one walk copies the value into plain dicts and lists
  (aliases are materialised, within the budget above) and refuses, naming the field:
  NUL characters and unpaired surrogates (neither database stores them), `.nan`/`.inf`
  and numbers beyond float range (JSON has neither), and keys that are not strings.
  Integer and boolean keys become strings, as sigs.k8s.io/yaml does; two keys that then
  collide (`1:` and `"1":`) are a duplicate.
* Messages quote at most `EXCERPT_CHARS` characters of a value.
"""

from __future__ import annotations

import json
import math
import re
from typing import Callable

import yaml
from yaml.composer import ComposerError
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from scheduling.engine.api.defaults import KINDS, apply_defaults
from scheduling.engine.framework import config as framework_config
from scheduling.engine.api.validation import decode_and_validate, excerpt, invalid_error


# Documents that are not cluster objects but are accepted beside them.
POLICY_KIND = "Policy"
# The OpenShift 4 scheduler's configuration documents (a cluster's, like its Policy).
SCHEDULER_CONFIG_KINDS = framework_config.CONFIG_KINDS
TIMELINE_KIND = "Timeline"

MAX_TEXT_BYTES = 20 * 1024 * 1024  # the web import's file limit; the same for every entry point
MAX_DEPTH = 100  # nested mappings/sequences; the objects the simulator reads nest ~15 deep
ALIAS_BUDGET_MIN = 10_000  # nodes aliases may add, or the document's own node count if larger
EXCESSIVE_ALIASING = "yaml: document contains excessive aliasing"
PROGRESS_EVERY = 20_000  # composed nodes between two progress reports

Progress = Callable[[str, float], None]  # (phase, fraction done)


class DocumentError(ValueError):
    """One or more documents are unusable; str() is the whole message for the user."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class _Refused(Exception):
    """Raised inside the loader; becomes a DocumentError with the source prepended."""

    def __init__(self, message: str, mark=None):
        super().__init__(message)
        self.mark = mark


# The scalar and collection tags a JSON value can carry; `merge` is the `<<` key.
_JSON_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")
)
_TAG_PREFIX = "tag:yaml.org,2002:"


def _path(stack: list) -> str:
    out = ""
    for part in stack:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = excerpt(part, quote=False)
            out += f".{part}" if out else part
    if len(out) > 120:
        out = out[:60] + "..." + out[-40:]
    return out or "<document>"


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextReader:
    """A text read in slices (what libyaml asks for), so no copy of all of it is made."""

    def __init__(self, text: str):
        self.text, self.position = text, 0

    def read(self, size: int = -1) -> str:
        end = len(self.text) if size is None or size < 0 else self.position + size
        chunk = self.text[self.position:end]
        self.position += len(chunk)
        return chunk


class _Loader(_BaseLoader):
    """libyaml events, a Python composer with depth and alias budgets, JSON tags only.

    Timestamps stay strings (JSON has no dates)."""

    def __init__(self, stream, progress: Progress | None = None):
        # libyaml reads a str whole as a UTF-8 copy; a reader it reads in chunks
        super().__init__(_TextReader(stream) if isinstance(stream, str) and _BaseLoader is not yaml.SafeLoader else stream)
        self._progress = progress
        self._length = max(1, len(stream))
        self.anchors = {}
        self._sizes: dict[int, int] = {}  # id(node) -> expanded node count of its subtree
        self._nodes = 0  # nodes composed from the text
        self._aliased = 0  # nodes the aliases add on expansion
        self._stack: list = []
        self._plain_tags: dict[str, str] = {}

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # more than sys.get_int_max_str_digits() digits
            raise _Refused(f"Invalid value: {excerpt(node.value)}: the number has too many digits", node.start_mark) from None

    # -- the composer (yaml.composer.Composer's logic, with the budgets) -------------------

    def check_node(self):
        if self.check_event(yaml.StreamStartEvent):
            self.get_event()
        return not self.check_event(yaml.StreamEndEvent)

    def get_node(self):
        if not self.check_event(yaml.StreamEndEvent):
            return self.compose_document()
        return None

    def get_single_node(self):
        self.get_event()  # StreamStartEvent
        node = None
        if not self.check_event(yaml.StreamEndEvent):
            node = self.compose_document()
        if not self.check_event(yaml.StreamEndEvent):
            event = self.get_event()
            raise ComposerError("expected a single document in the stream", None, "but found another document", event.start_mark)
        self.get_event()
        return node

    def compose_document(self):
        self.get_event()  # DocumentStartEvent
        self._sizes = {}
        node = self.compose_node(None, None)
        self.get_event()  # DocumentEndEvent
        self.anchors = {}
        self._sizes = {}
        return node

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            event = self.get_event()
            node = self.anchors.get(event.anchor)
            if node is None:
                raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
            size = self._sizes.get(id(node))
            if size is None:
                raise _Refused(f"{_path(self._stack)}: Invalid value: {excerpt('*' + event.anchor)}: an alias may not refer to the node that contains it", event.start_mark)
            self._aliased += size
            if self._aliased > max(ALIAS_BUDGET_MIN, self._nodes):
                raise _Refused(EXCESSIVE_ALIASING, event.start_mark)
            return node
        event = self.peek_event()
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise ComposerError(
                "found duplicate anchor %r; first occurrence" % anchor, self.anchors[anchor].start_mark,
                "second occurrence", event.start_mark,
            )
        if len(self._stack) >= MAX_DEPTH:
            raise _Refused(f"{_path(self._stack)}: exceeded max depth of {MAX_DEPTH} nested mappings and sequences", event.start_mark)
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and not (tag.startswith(_TAG_PREFIX) and tag in _JSON_TAGS):
            shown = "!!" + tag[len(_TAG_PREFIX):] if tag.startswith(_TAG_PREFIX) else tag
            raise _Refused(
                f"{_path(self._stack)}: Invalid value: {excerpt(shown)}: only JSON values are supported "
                "(strings, numbers, booleans, null, mappings and sequences), not explicit YAML tags",
                event.start_mark,
            )
        self.descend_resolver(parent, index)
        if self.check_event(ScalarEvent):
            node = self.compose_scalar_node(anchor)
            size = 1
        elif self.check_event(SequenceStartEvent):
            node, size = self._compose_sequence(anchor)
        else:
            node, size = self._compose_mapping(anchor)
        self.ascend_resolver()
        self._nodes += 1
        if self._progress is not None and self._nodes % PROGRESS_EVERY == 0:
            self._progress("reading", min(1.0, node.end_mark.index / self._length))
        self._sizes[id(node)] = size
        return node

    def compose_scalar_node(self, anchor):
        event = self.get_event()
        tag = event.tag
        if tag is None or tag == "!":
            implicit = event.implicit
            if implicit[0] and len(event.value) <= 32:
                # The same plain words come back thousands of times (Equal, NoSchedule, cpu):
                # resolve each once. No path resolvers are registered, so only the text counts.
                tag = self._plain_tags.get(event.value)
                if tag is None:
                    tag = self._plain_tags[event.value] = self.resolve(ScalarNode, event.value, implicit)
            else:
                tag = self.resolve(ScalarNode, event.value, implicit)
            if tag not in _JSON_TAGS:  # e.g. `=` (tag:yaml.org,2002:value): a plain string
                tag = _TAG_PREFIX + "str"
        node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        if anchor is not None:
            self.anchors[anchor] = node
        return node

    def _compose_sequence(self, anchor):
        start = self.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = self.resolve(SequenceNode, None, start.implicit)
        node = SequenceNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        size = 1
        index = 0
        while not self.check_event(SequenceEndEvent):
            self._stack.append(index)
            child = self.compose_node(node, index)
            self._stack.pop()
            node.value.append(child)
            size += self._sizes[id(child)]
            index += 1
        node.end_mark = self.get_event().end_mark
        return node, size

    def _compose_mapping(self, anchor):
        start = self.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = self.resolve(MappingNode, None, start.implicit)
        node = MappingNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        size = 1
        while not self.check_event(MappingEndEvent):
            key = self.compose_node(node, None)
            self._stack.append(key.value if isinstance(key, ScalarNode) else "<key>")
            value = self.compose_node(node, key)
            self._stack.pop()
            node.value.append((key, value))
            size += self._sizes[id(key)] + self._sizes[id(value)]
        node.end_mark = self.get_event().end_mark
        return node, size


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _plain(value, stack: list):
    """A fresh JSON-shaped copy; refuses what JSON or the databases cannot hold."""
    if isinstance(value, str):
        _check_text(value, stack)
        return value
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Refused(f"{_path(stack)}: Invalid value: {_float_text(value)}: must be a finite number")
        return value
    if len(stack) >= MAX_DEPTH:
        raise _Refused(f"{_path(stack)}: exceeded max depth of {MAX_DEPTH} nested mappings and sequences")
    if isinstance(value, list):
        out_list = []
        for i, item in enumerate(value):
            stack.append(i)
            out_list.append(_plain(item, stack))
            stack.pop()
        return out_list
    if isinstance(value, dict):
        out: dict = {}
        for key, item in value.items():
            if isinstance(key, bool):
                name = "true" if key else "false"
            elif isinstance(key, int):
                name = str(key)
            elif isinstance(key, str):
                name = key
            else:
                raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(str(key))}: a mapping key must be a string")
            stack.append(name)
            if name is key:
                _check_text(name, stack)
            if name in out:
                raise _Refused(f"{_path(stack[:-1])}: Duplicate value: {excerpt(name)}: the key appears twice")
            out[name] = _plain(item, stack)
            stack.pop()
        return out
    raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(str(value))}: only JSON values are supported")


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    return ".inf" if value > 0 else "-.inf"


def _check_text(text: str, stack: list) -> None:
    if "\x00" in text:
        raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(text)}: must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(text)}: must be valid UTF-8 (it holds an unpaired surrogate)") from None


def _where(source: str, mark) -> str:
    """`source: line L, column C: ` (each part only when known)."""
    parts = [source] if source else []
    if mark is not None:
        parts.append(f"line {mark.line + 1}, column {mark.column + 1}")
    return ": ".join(parts) + ": " if parts else ""


# What the walk refuses can only reach a JSON text as a raw surrogate or as an escape (a raw
# NUL is not JSON): with none of these in the text, and no NaN/Infinity or float out of range
# (the hooks below), the decoded value is already plain but for its depth.
_JSON_SUSPECT = re.compile("[\ud800-\udfff]|\\\\u(?:0000|[dD][89abAB])")


class _NotPlain(Exception):
    """Decoded JSON the quick path leaves to the walk (which says what is wrong)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotPlain
    return value


def _no_constant(name: str) -> float:
    raise _NotPlain


def _within_depth(value) -> bool:
    """No mapping or sequence nested MAX_DEPTH deep (what the walk checks), containers only."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth >= MAX_DEPTH:
            return False
        children = item.values() if type(item) is dict else item
        for child in children:
            if type(child) is dict or type(child) is list:
                pending.append((child, depth + 1))
    return True


def _plain_json(text: str) -> list | None:
    """The JSON document of `text` when it needs no walk: nothing in it the walk would refuse
    or change (None: take the walk)."""
    if _JSON_SUSPECT.search(text) is not None:
        return None
    try:
        value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except (_NotPlain, ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return None
    if (type(value) is dict or type(value) is list) and not _within_depth(value):
        return None
    return [value]


def _json_values(text: str) -> list | None:
    """One JSON document, or None when the text is not JSON (then it is read as YAML)."""
    if _first_character(text) not in ("{", "["):
        return None
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise _Refused(f"exceeded max depth of {MAX_DEPTH} nested mappings and sequences") from None
    except ValueError as exc:  # e.g. an integer with more than 4300 digits
        raise _Refused(f"error parsing JSON: {excerpt(str(exc), quote=False)}") from None


def _yaml_values(text: str, progress: Progress | None = None) -> list:
    loader = _Loader(text, progress)
    try:
        values = []
        while loader.check_data():
            values.append(loader.get_data())
        return values
    except ValueError as exc:  # int() of a 5,000-digit scalar
        raise _Refused(f"error parsing YAML: {excerpt(str(exc), quote=False)}") from None
    finally:
        loader.dispose()


def _first_character(text: str) -> str:
    """text.lstrip()[:1] without a copy of the text."""
    match = _LEADING_SPACE.match(text)
    return text[match.end():match.end() + 1]


_LEADING_SPACE = re.compile(r"\s*")


def _utf8_length(text: str, chunk: int = 1 << 20) -> int:
    """len(text.encode()) without a copy of the whole text."""
    return sum(len(text[i:i + chunk].encode("utf-8", "surrogatepass")) for i in range(0, len(text), chunk))


def parse_values(text: str, source: str = "<input>", what: str = "YAML", progress: Progress | None = None) -> list:
    """YAML/JSON text -> list of plain JSON values (one per non-empty document), within the
    limits at the door (see the module docstring). Raises DocumentError; its messages start
    with `source: ` (unless empty) and a syntax error reads `error parsing <what> at ...`."""
    if len(text) > MAX_TEXT_BYTES or (not text.isascii() and _utf8_length(text) > MAX_TEXT_BYTES):
        raise DocumentError([f"{_where(source, None)}Request entity too large: limit is {MAX_TEXT_BYTES} bytes"])
    try:
        plain = _plain_json(text) if _first_character(text) in ("{", "[") else None
        if plain is not None:
            return [value for value in plain if value is not None]
        raw = _json_values(text)
        if raw is None:
            raw = _yaml_values(text, progress)
        return [_plain(value, []) for value in raw if value is not None]
    except _Refused as exc:
        raise DocumentError([f"{_where(source, exc.mark)}{exc}"]) from None
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            line, column = mark.line, mark.column
            if line > text.count("\n"):  # libyaml puts the end of an unterminated last line on the next one
                line, column = text.count("\n"), len(text) - text.rfind("\n") - 1
            where = f" at line {line + 1}, column {column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise DocumentError([f"{_where(source, None)}error parsing {what}{where}: {excerpt(problem, quote=False, limit=200)}"]) from None


MAX_MESSAGE_CHARS = 2000


def short(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message cut to `limit` characters (`...` marks the cut): for messages built by code
    that quotes whole values (a Policy's `not {value!r}`), so an answer stays small."""
    return message if len(message) <= limit else message[:limit] + "..."


def parse_value(text: str, source: str = "<input>", what: str = "YAML"):
    """One YAML/JSON document (a policy, an editor's text) as a plain value, or None when the
    text is empty. Same limits as parse_documents. Raises DocumentError."""
    values = parse_values(text, source, what)
    if len(values) > 1:
        raise DocumentError([f"{_where(source, None)}expected a single document, found {len(values)}"])
    return values[0] if values else None


def _describe(source: str, index: int, total: int) -> str:
    return f"{source} (document {index})" if total > 1 else source


def parse_documents(text: str, source: str = "<input>", progress: Progress | None = None) -> list[dict]:
    """YAML/JSON text -> list of mappings, `kind: List` unpacked. No validation."""
    raw = parse_values(text, source, progress=progress)
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


def load_documents(
    text: str, source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, *SCHEDULER_CONFIG_KINDS, TIMELINE_KIND),
    progress: Progress | None = None, skipped: list[str] | None = None,
) -> list[dict]:
    """Parse, check kinds, validate and default every document; all or nothing.
    `progress(phase, fraction)` is called now and then ("reading", then "checking").

    Snapshots (`oc get -o yaml` Lists, must-gather files) load as they are: server-side
    `metadata.managedFields` are dropped; with a `skipped` list, documents of kinds the
    simulator does not know (Routes, Secrets, Events, ...) are left out and each gets a
    note there instead of failing the load."""
    docs = [without_managed_fields(d) for d in parse_documents(text, source, progress)]
    if skipped is not None:
        known = []
        for i, doc in enumerate(docs, start=1):
            kind = doc.get("kind")
            if isinstance(kind, str) and kind and kind not in KINDS and kind not in extra_kinds:
                meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
                name = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
                skipped.append(f'{_describe(source, i, len(docs))}: skipped {kind} "{name}": kind "{kind}" '
                               f"({doc.get('apiVersion')}) is not simulated")
            else:
                known.append(doc)
        docs = known
    return check_documents(docs, source, extra_kinds=extra_kinds, progress=progress, owned=True)


def without_managed_fields(doc: dict) -> dict:
    """The document without `metadata.managedFields` (the server-side apply bookkeeping of a snapshot)."""
    meta = doc.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        return {**doc, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return doc


def check_documents(
    docs: list[dict], source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, *SCHEDULER_CONFIG_KINDS, TIMELINE_KIND),
    progress: Progress | None = None, owned: bool = False,
) -> list[dict]:
    """Check kinds, validate and default every document; all or nothing. `owned`: the
    documents were just parsed for this call (they are defaulted in place, not copied)."""
    problems: list[str] = []
    out: list[dict] = []
    seen: set[tuple[str, str, str]] = set()
    for i, doc in enumerate(docs, start=1):
        if progress is not None and i % 50 == 0:
            progress("checking", i / len(docs))
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
        doc, errors = decode_and_validate(doc, info.namespaced)
        if errors:
            problems.append(f"{where}: {invalid_error({**doc, 'apiVersion': api_version or info.api_versions[0]}, errors)}")
            continue
        doc = apply_defaults(doc, in_place=owned)
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
