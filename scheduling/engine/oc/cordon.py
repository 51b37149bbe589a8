"""`oc adm cordon` / `oc adm uncordon` (kubectl's cordon and uncordon):
`node/n1 cordoned`, `node/n1 already cordoned`."""

from __future__ import annotations

import copy
from typing import Sequence

from scheduling.engine import actions as A
from scheduling.engine.store import Store

from .core import BY_KIND, DRY_RUN, OUTPUT, SELECTOR, OcError, OcResult, dry_run_strategy, finish, not_found, parse_flags
from .taint import check_output, print_obj, select_nodes

FLAGS = (SELECTOR, DRY_RUN, OUTPUT)
NODE = BY_KIND["Node"]


def node_names(store: Store, positional: Sequence[str], selector: str) -> list[str]:
    """The NODE arguments (`n1`, `node/n1`) or the nodes a selector picks; raises NotFound."""
    if selector:
        names, _ = select_nodes(store, (), False, selector)
        return names
    names = []
    for name in positional:
        if name.startswith("node/") or name.startswith("nodes/"):
            name = name.split("/", 1)[1]
        if store.get("Node", "", name) is None:
            raise not_found(NODE, name)
        names.append(name)
    return names


def cordon_lines(store: Store, names: Sequence[str], desired: bool, output: str, dry_run: str) -> tuple[list[str], list]:
    """RunCordonOrUncordon: the printed lines and the SetUnschedulable actions."""
    verb = "cordon" if desired else "uncordon"
    out: list[str] = []
    actions: list = []
    for name in names:
        node = store.get("Node", "", name)
        current = bool((node.get("spec") or {}).get("unschedulable"))
        if current == desired:
            operation = f"already {verb}ed"
        else:
            operation = f"{verb}ed"
            actions.append(A.SetUnschedulable(name, desired))
        updated = copy.deepcopy(node)
        if desired:
            updated.setdefault("spec", {})["unschedulable"] = True
        else:
            updated.setdefault("spec", {}).pop("unschedulable", None)
        out.append(print_obj(updated, NODE, name, operation, output, dry_run))
    return out, actions


def _run(store: Store, args: Sequence[str], desired: bool) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    verb = "cordon" if desired else "uncordon"
    if not positional and not flags.changed("selector"):
        raise OcError(f"USAGE: {verb} NODE [flags]", usage=True)
    if positional and flags.selector:
        raise OcError("error: cannot specify both a node name and a --selector option", usage=True)
    dry_run = dry_run_strategy(flags.dry_run)
    check_output(flags.output)
    names = node_names(store, positional, flags.selector)
    out, actions = cordon_lines(store, names, desired, flags.output, dry_run)
    return finish(out, [], actions, dry_run)


def cordon(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    return _run(store, args, True)


def uncordon(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    return _run(store, args, False)


cordon.help_text = """Mark node as unschedulable.

Examples:
  # Mark node "foo" as unschedulable
  kubectl cordon foo

Options:
    --dry-run='none': Must be "none", "server", or "client".
    -l, --selector='': Selector (label query) to filter on

Usage:
  kubectl cordon NODE [options]
"""

uncordon.help_text = """Mark node as schedulable.

Examples:
  # Mark node "foo" as schedulable
  kubectl uncordon foo

Options:
    --dry-run='none': Must be "none", "server", or "client".
    -l, --selector='': Selector (label query) to filter on

Usage:
  kubectl uncordon NODE [options]
"""
