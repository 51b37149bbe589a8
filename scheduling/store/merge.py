"""An editor's change re-applied to an object that moved on since it was read, as the API
server applies kubectl's patches: a two-way patch from the document read (`base`) to the
edited one, applied to the latest document.

Maps merge key by key (JSON merge patch, RFC 7386: a key the edit removed is removed, one
it set is set, the others are the latest's); lists are replaced whole, except the lists
the Kubernetes API merges by a key (strategic merge patch, `patchMergeKey`): a Node's
`spec.taints` by `key`, a pod's `spec.containers` by `name`, and `metadata.ownerReferences`
by `uid`, where an entry the edit added, changed or removed is added, changed or removed
and the others are the latest's. So two editors who change different fields (two labels,
two taints) both win, and the last writer wins a field both changed."""

from __future__ import annotations

import copy
from typing import Any

MERGE_KEYS: dict[tuple[str, ...], str] = {
    ("spec", "taints"): "key",
    ("spec", "containers"): "name",
    ("metadata", "ownerReferences"): "uid",
}
_SERVER_FIELDS = {("metadata", "resourceVersion"), ("metadata", "uid")}


def three_way(base: Any, edited: Any, latest: Any, path: tuple[str, ...] = ()) -> Any:
    """`latest` with what the edit changed from `base` to `edited` applied."""
    if path in _SERVER_FIELDS:
        return copy.deepcopy(latest)
    if isinstance(base, dict) and isinstance(edited, dict) and isinstance(latest, dict):
        out = {k: copy.deepcopy(v) for k, v in latest.items()}
        for key in set(base) | set(edited):
            if key not in edited:
                out.pop(key, None)  # the edit removed it
                continue
            before = base.get(key, {} if isinstance(edited[key], dict) else [] if path + (key,) in MERGE_KEYS else None)
            if key in base and base[key] == edited[key]:
                continue  # the edit left it: the latest's stands
            out[key] = three_way(before, edited[key], latest[key], path + (key,)) if key in latest else copy.deepcopy(edited[key])
        return out
    merge_key = MERGE_KEYS.get(path)
    if merge_key and all(isinstance(x, list) and all(isinstance(e, dict) for e in x) for x in (base, edited, latest)):
        return _merge_list(base, edited, latest, merge_key, path)
    return copy.deepcopy(edited)


def _merge_list(base: list, edited: list, latest: list, key: str, path: tuple[str, ...]) -> list:
    before = {e.get(key): e for e in base}
    after = {e.get(key): e for e in edited}
    out = []
    for entry in latest:
        k = entry.get(key)
        if k in before and k not in after:
            continue  # the edit removed it
        if k in after and after[k] != before.get(k):
            out.append(copy.deepcopy(after[k]) if k not in before else three_way(before[k], after[k], entry, path + ("[]",)))
        else:
            out.append(copy.deepcopy(entry))
    have = {e.get(key) for e in out}
    out += [copy.deepcopy(e) for k, e in after.items() if k not in before and k not in have]  # added by the edit
    return out
