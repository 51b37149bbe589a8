"""The YAML loader builds libyaml's events straight into values (scheduling/store/kube.py
`_Loader`: PyYAML's composer and constructor fused, with budgets). Within the budgets it
must read every text as PyYAML's own SafeLoader does followed by the plain-value check:
the same documents, the same keys in the same order, or a refusal where that refuses.

Texts are generated from a small YAML grammar with what makes the difference: anchors,
aliases and `<<` merges, explicit tags, YAML 1.1 scalars (`yes`, `0x1f`, `1:30`, `.inf`,
`~`, `=`), quoted scalars with escapes (`\\0`, `\\ud800`), non-string keys, duplicate keys,
block and flow styles, several documents. Derandomized, as the one-truth properties are: CI
sees the same examples every run; CLUSTERUI_FUZZ_EXAMPLES explores further."""

from __future__ import annotations

import json
import os
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.store.kube import DocumentError, parse_values, plain_value

EXAMPLES = int(os.environ.get("CLUSTERUI_FUZZ_EXAMPLES", "300"))


class ReferenceLoader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):
    """PyYAML's SafeLoader as the product reads YAML: timestamps stay strings, and so does a
    plain `=` (YAML 1.1's value key, which PyYAML cannot construct)."""


ReferenceLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class StrictReferenceLoader(ReferenceLoader):
    """The same, refusing a mapping that names a key twice."""

    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)
        keys = [self.construct_object(k, deep=True) for k, _ in node.value]
        if any(isinstance(k, (list, dict)) for k in keys) or len(keys) != len(set(keys)):
            raise yaml.constructor.ConstructorError(None, None, "duplicate key", node.start_mark)
        return super().construct_mapping(node, deep)


def has_duplicate_key(text: str) -> bool:
    try:
        list(yaml.load_all(text, Loader=StrictReferenceLoader))
    except yaml.constructor.ConstructorError as e:
        return "duplicate key" in str(e)
    except Exception:
        return False
    return False


def reference(text: str):
    """PyYAML's documents made plain, or None when either refuses."""
    try:
        docs = list(yaml.load_all(text, Loader=ReferenceLoader))
        return [plain_value(d) for d in docs if d is not None]
    except Exception:  # a YAML error, or the plain check's refusal
        return None


SCALARS = st.sampled_from([
    "a", "web", "yes", "No", "on", "OFF", "true", "False", "~", "null", "", "0", "12", "-3", "+7", "0x1f", "0o17", "017",
    "0b101", "1_000", "1:30", "3.5", "1e3", "-.5", ".inf", "-.Inf", ".nan", "1e400", "=", "<<", "2024-01-02",
    "'quoted'", "'it''s'", '"double"', '"tab\\tx"', '"nul\\0x"', '"sur\\ud800x"', '"\\u00e9t\\u00e9"', "!!str 12",
    "!!int '7'", "!!float 1", "!!bool yes", "!!null ''", "!!binary aGk=", "!!timestamp 2024-01-02", "!foo x",
    '"1"', "'true'", "é", "a b", "a:b",
])
KEYS = st.sampled_from(["a", "b", "name", "1", "'1'", '"1"', "true", "yes", "~", "1.5", ".nan", "<<", "=", "'<<'",
                        '"k\\0"', "0x1", "!!str 2", "a", "b"])
ANCHORS = st.sampled_from(["x", "y", "z"])


def _flow_level(child):
    """Flow-style YAML values (text) whose children come from `child`."""
    alias = ANCHORS.map(lambda a: "*" + a)
    leaf = st.one_of(SCALARS, alias)
    pairs = st.lists(st.tuples(KEYS, child), max_size=4)
    mapping = pairs.map(lambda ps: "{" + ", ".join(f"{k}: {v}" for k, v in ps) + "}")
    merged = st.one_of(alias, st.lists(alias, min_size=1, max_size=3).map(lambda l: "[" + ", ".join(l) + "]"), child)
    merging = st.tuples(merged, pairs).map(lambda m: "{" + ", ".join([f"<<: {m[0]}"] + [f"{k}: {v}" for k, v in m[1]]) + "}")
    sequence = st.lists(child, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
    container = st.one_of(mapping, merging, sequence)
    anchored = st.tuples(ANCHORS, st.one_of(container, SCALARS)).map(lambda t: f"&{t[0]} {t[1]}")
    tagged = st.tuples(st.sampled_from(["!!map", "!!seq", "!!str", "!!merge", "!"]), container).map(lambda t: f"{t[0]} {t[1]}")
    return st.one_of(leaf, container, anchored, tagged)


FLOW = st.one_of(SCALARS, ANCHORS.map(lambda a: "*" + a))
for _ in range(3):
    FLOW = _flow_level(FLOW)

# What the loader refuses beyond PyYAML: the budgets at the door, a wrongly tagged merge value,
# which PyYAML never constructs, and a bad value under a key that a duplicate key then
# overrides, which PyYAML drops before the plain-value check sees it (kube.py's docstrings).
BUDGETS = ("an alias may not refer to the node that contains it", "excessive aliasing", "exceeded max depth")
WRONG_TAG_MERGED = re.compile(r"<<: (\[.*)?!!(map|seq|str|merge) ")


def same_as_pyyaml(text: str) -> None:
    expected = reference(text)
    try:
        got = parse_values(text)
    except DocumentError as e:
        if expected is not None:
            assert (any(b in str(e) for b in BUDGETS) or WRONG_TAG_MERGED.search(text)
                    or has_duplicate_key(text)), (text, str(e), expected)
        return
    assert got == expected, text
    assert json.dumps(got) == json.dumps(expected), text  # the same key order, not only equal mappings


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.lists(FLOW, min_size=1, max_size=3))
def test_flow_documents_read_as_pyyaml_reads_them(values):
    same_as_pyyaml("\n".join(f"--- {v}" for v in values) + "\n")


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=12)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.one_of(st.text(max_size=6), st.integers(0, 3), st.booleans()), children,
                                               max_size=4)),
    max_leaves=20,
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.lists(JSONISH, min_size=1, max_size=3), st.booleans(), st.sampled_from([None, '"', "'"]))
def test_dumped_documents_read_as_pyyaml_reads_them(values, flow_style, quote):
    same_as_pyyaml(yaml.safe_dump_all(values, default_flow_style=flow_style, default_style=quote, allow_unicode=True))


def test_a_merge_applies_under_the_mappings_own_keys_and_the_first_of_a_list_wins():
    text = "base: &b {a: 1, b: 2}\nother: &o {b: 3, c: 4}\nuse: {<<: [*o, *b], a: 9}\n"
    assert parse_values(text) == reference(text) == [{"base": {"a": 1, "b": 2}, "other": {"b": 3, "c": 4},
                                              "use": {"b": 3, "c": 4, "a": 9}}]


def test_an_alias_is_a_copy_not_the_same_object():
    [doc] = parse_values("a: &x {k: [1]}\nb: *x\n")
    doc["b"]["k"].append(2)
    assert doc["a"] == {"k": [1]}
