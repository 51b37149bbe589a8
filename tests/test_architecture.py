"""The dependency rules of docs/architecture.md, checked on the source.

Every module's imports are read from its syntax tree, top-level and inside functions alike
(an import hidden in a function is still an arrow), so nothing has to be imported to check.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scheduling", "updates", "clusterui")
FRAMEWORKS = ("django", "celery", "channels", "redis", "kombu", "asgiref", "daphne", "django_htmx")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            out[module_name(path)] = path
    return out


MODULES = modules()


def imported_names(name: str, path: Path) -> list[tuple[str, int]]:
    """(dotted name, line) of every import of the module, wherever it stands. `from a import b`
    names `a.b` when that is a module, else `a`; relative imports are made absolute."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                out.append((candidate if candidate in MODULES else base, node.lineno))
    return out


def internal_target(imported: str) -> str | None:
    """The project module an import names (its nearest existing module), None when external."""
    parts = imported.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for imported, _ in imported_names(name, path):
            target = internal_target(imported)
            # A module may import its own package's __init__ (a package re-exporting it): not a cycle.
            if target is not None and target != name and not name.startswith(target + "."):
                edges[name].add(target)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None when the graph is acyclic."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(edges, WHITE)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = GREY
        stack.append(node)
        for nxt in sorted(edges[node]):
            if colour[nxt] == GREY:
                return stack[stack.index(nxt):] + [nxt]
            if colour[nxt] == WHITE:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = BLACK
        return None

    for node in sorted(edges):
        if colour[node] == WHITE:
            found = visit(node)
            if found:
                return found
    return None


ENGINE = "scheduling.engine"
APPS = ("scheduling", "updates", "clusterui")


def dotted_strings(path: Path) -> list[tuple[str, int]]:
    """(string, line) of every string constant of the module that reads as a dotted module
    path of one of the project's packages ("updates.views", "scheduling.tasks:x", ...):
    an import by name that the syntax tree's imports do not show."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.split(":", 1)[0]
            if text.split(".")[0] in APPS and "." in text and all(part.isidentifier() for part in text.split(".")):
                out.append((node.value, node.lineno))
    return out


def test_the_engine_imports_no_framework_and_no_app_module_not_even_by_name():
    """The one engine package imports nothing but itself and the standard library: no
    framework, no module of the Django apps, and no such module named in a string (a dotted
    path handed to importlib is an import all the same)."""
    offences = []
    for name, path in MODULES.items():
        if name != ENGINE and not name.startswith(ENGINE + "."):
            continue
        for imported, line in imported_names(name, path):
            top = imported.split(".")[0]
            if top in FRAMEWORKS:
                offences.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
            target = internal_target(imported)
            if target is not None and not target.startswith(ENGINE):
                offences.append(f"{path.relative_to(ROOT)}:{line} imports the app module {target}")
        for text, line in dotted_strings(path):
            module = text.split(":", 1)[0]
            if not (module == ENGINE or module.startswith(ENGINE + ".")):
                offences.append(f"{path.relative_to(ROOT)}:{line} names the app module {module!r} in a string")
    assert offences == [], "\n".join(offences)


def test_the_string_check_finds_a_dotted_path_naming_an_app_module(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('CONTROLLERS = ["updates.engine.cvo:ClusterVersionOperator", "scheduling.engine.store", "a.b"]\n')
    assert dotted_strings(module) == [("updates.engine.cvo:ClusterVersionOperator", 1), ("scheduling.engine.store", 1)]


def test_there_is_no_import_cycle_between_the_modules():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize(
    "edges, expected",
    [
        pytest.param({"a": {"b"}, "b": {"c"}, "c": set()}, None, id="a chain has no cycle"),
        pytest.param({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"], id="a circle of three is reported in order"),
        pytest.param({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None, id="a diamond is not a cycle"),
    ],
)
def test_the_cycle_finder_reports_the_circle_it_finds(edges, expected):
    assert find_cycle(edges) == expected


# The only modules that may import inside a function, and why (docs/architecture.md: "imports
# placed inside functions to get around a cycle" are forbidden; these are not about cycles).
LAZY_IMPORTS = {
    "scheduling.apps": "ready() subscribes the broadcast once the app registry is ready",
    "updates.apps": "ready() registers the update progress fragment once the app registry is ready",
    "scheduling.management.commands.serve": "daphne and twisted are loaded only when it serves",
    "scheduling.bench.board": "a benchmark script: configures Django before importing it",
    "scheduling.bench.interactive": "a benchmark script: configures Django before importing it",
    "scheduling.bench.preview": "a benchmark script: configures Django before importing it",
    "scheduling.bench.rewind": "a benchmark script: configures Django before importing it",
    "scheduling.bench.machineset": "a benchmark script: configures Django before importing it",
    "scheduling.bench.editors": "a benchmark script: configures Django before importing it",
    "scheduling.bench.live": "a benchmark script: its child steps configure Django before importing it",
    "scheduling.bench.scale": "a benchmark script: configures Django before importing it",
}


def test_imports_stand_at_the_top_of_modules_but_where_a_reason_is_listed():
    hidden = []
    for name, path in MODULES.items():
        if name in LAZY_IMPORTS:
            continue
        for function in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden.extend(f"{name}:{node.lineno} in {function.name}()" for node in ast.walk(function)
                              if isinstance(node, (ast.Import, ast.ImportFrom)))
    assert hidden == []


def test_no_module_uses_another_modules_private_names():
    """docs/architecture.md: importing another module's `_private` helpers is forbidden
    (`from m import _x`, or `m._x` on an imported project module)."""
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        modules_here: set[str] = set()  # local names bound to project modules
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if internal_target(alias.name):
                        modules_here.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                if internal_target(base) is None:
                    continue
                for alias in node.names:
                    if f"{base}.{alias.name}" in MODULES:
                        modules_here.add(alias.asname or alias.name)
                    elif alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{name}:{node.lineno} imports {base}.{alias.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules_here
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{name}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert found == []


# The layers of the Django side, from the bottom up (docs/architecture.md): a module may import
# its own layer and the layers below it, never one above. The engine is below them all;
# the project's configuration (clusterui) and the modules Django and Celery look for at the
# top of an app (urls, apps, admin, tasks, consumers, templatetags, management commands) and
# the benchmarks stand above them all.
LAYERS = (
    ("engine", ("scheduling.engine",)),
    ("models", ("scheduling.models",)),
    ("store", ("scheduling.store",)),
    ("pages", ("scheduling.pages",)),
    ("live push", ("scheduling.live",)),
    ("console and training", ("scheduling.console", "scheduling.training")),
    ("the update and machine pages", ("updates.services", "updates.machine_previews", "updates.views",
                                      "updates.views_machines")),
)


def layer_of(module: str) -> int | None:
    for i, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return None


def test_the_apps_arrows_run_one_way_from_the_pages_down_to_the_engine():
    upward = []
    for name, targets in graph().items():
        here = layer_of(name)
        if here is None:
            continue
        for target in targets:
            there = layer_of(target)
            if there is not None and there > here:
                upward.append(f"{name} ({LAYERS[here][0]}) imports {target} ({LAYERS[there][0]})")
    assert upward == [], "\n".join(upward)


def test_the_scheduling_app_never_imports_the_updates_app():
    """updates builds on scheduling (its pages use the store and the previews); scheduling
    knows nothing of it: the update progress fragment is registered from updates' ready()."""
    # (the benchmarks behind `make bench` stand above both apps: they time updates' pages too)
    found = [f"{name} imports {target}" for name, targets in graph().items()
             if name.startswith("scheduling.") and not name.startswith("scheduling.bench.")
             for target in targets if target.startswith("updates.")]
    found += [f"{path.relative_to(ROOT)}:{line} names {text!r}" for name, path in MODULES.items()
              if name.startswith("scheduling.") for text, line in dotted_strings(path) if text.startswith("updates.")]
    assert found == [], "\n".join(found)


def test_the_scheduling_app_stands_in_folders_by_job():
    """The top of the app holds only what Django and Celery look for there; everything else
    lives in a folder that says its job."""
    top = sorted(p.name for p in (ROOT / "scheduling").glob("*.py"))
    assert top == ["__init__.py", "admin.py", "apps.py", "consumers.py", "models.py", "tasks.py", "urls.py"]
    folders = sorted(p.name for p in (ROOT / "scheduling").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == ["bench", "console", "demo", "engine", "live", "management", "migrations", "pages", "store",
                       "templatetags", "training"]


WRITE_METHODS = {"create", "bulk_create", "bulk_update", "delete", "update", "update_or_create", "get_or_create", "save"}


def object_row_writes(path: Path) -> list[tuple[int, str]]:
    """(line, code) of every ORM write of a cluster object's row or an Event row: a call of
    a write method on a queryset of `Event`, of a kind's model (Pod, Node, ..., `model`,
    `KIND_MODELS[...]`) or on such a row."""
    from scheduling.models import KIND_MODELS  # noqa: the kinds' model names, read once

    names = {m.__name__ for m in KIND_MODELS.values()} | {"Event", "model", "KIND_MODELS"}
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITE_METHODS:
            receiver = ast.unparse(node.func.value)
            head = receiver.split(".")[0].split("[")[0]
            if ".objects" in receiver and head in names:
                found.append((node.lineno, ast.unparse(node)[:100]))
    return found


def test_only_the_services_write_the_cluster_objects_rows():
    """scheduling.store.services is the one writer of the cluster's object rows and events:
    no other module creates, updates or deletes them through the ORM."""
    found = [f"{path.relative_to(ROOT)}:{line}: {code}" for name, path in MODULES.items()
             if name.startswith(("scheduling.", "updates.")) and name != "scheduling.store.services"
             and not name.startswith(("scheduling.bench", "scheduling.engine")) for line, code in object_row_writes(path)]
    assert found == [], "\n".join(found)


# --- one kinds table, one selector matcher ----------------------------------------------------------------
# engine.api.kinds.TABLE is the one list of kinds (names, scope, versions, printer, validator);
# engine.api.selectors is the one place that evaluates a selector's operators.

KINDS_TABLE_MODULE = "scheduling.engine.api.kinds"
MATCHER_MODULE = "scheduling.engine.api.selectors"


def _table():
    from scheduling.engine.api.kinds import TABLE  # noqa: read once by these tests

    return TABLE


def test_every_list_of_kinds_is_the_kinds_tables():
    """`oc get`'s resources, the importer's kinds, the validated kinds, the store's resource
    names and the Django models' kinds are the table's kinds, no more, no fewer."""
    from scheduling.engine.api import defaults, validation  # noqa: the derived lists, read once
    from scheduling.engine.oc import core as oc_core  # noqa
    from scheduling.models import KIND_MODELS  # noqa
    from scheduling.store import kube, services  # noqa

    table = {k.kind for k in _table()}
    assert len(table) == len(_table())
    assert {r.kind for r in oc_core.RESOURCES} == table
    assert all(oc_core.find_resource(name).kind == k.kind for k in _table() for name in k.names())
    assert set(defaults.KINDS) == table
    assert set(defaults.WORKLOAD_KINDS) == {k.kind for k in _table() if k.workload}
    assert validation.SUPPORTED_KINDS == {k.kind for k in _table() if k.validator}
    assert set(services.RESOURCES) == table
    assert set(KIND_MODELS) == table
    refused = []
    for k in _table():
        try:
            kube.check_documents([{"kind": k.kind, "apiVersion": k.api_version, "metadata": {"name": "x"}}])
        except kube.DocumentError as e:
            refused += [p for p in e.problems if "no matches for kind" in p]
    assert refused == []
    with pytest.raises(kube.DocumentError, match="no matches for kind"):
        kube.check_documents([{"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "x"}}])


def _kind_names() -> tuple[set[str], set[str]]:
    """(the table's kinds, every resource name and apiVersion the table spells)."""
    kinds = {k.kind for k in _table()}
    names = {n for k in _table() for n in (*k.names(), k.resource_string, *k.api_versions) if n not in ("v1",)}
    return kinds, names


def kinds_mapping_literals(path: Path, kinds: set[str], names: set[str]) -> list[tuple[int, str]]:
    """(line, first keys) of every dict literal with two or more table kinds as keys whose
    values spell a resource name or apiVersion of the table (a string, or a tuple/list of
    constants holding one, nested or not): a kinds table written out again. A tuple holding
    code (`("pods", Pod.from_doc)`: where a kind's objects go) is not a names table."""
    def constant(value: ast.AST) -> bool:
        return isinstance(value, ast.Constant) or (
            isinstance(value, (ast.Tuple, ast.List)) and all(constant(e) for e in value.elts))

    def spells(value: ast.AST) -> bool:
        if isinstance(value, ast.Constant):
            return isinstance(value.value, str) and value.value in names
        if isinstance(value, (ast.Tuple, ast.List)) and constant(value):
            return any(spells(e) for e in value.elts)
        return False

    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Dict):
            keyed = [(k.value, v) for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and k.value in kinds]
            if len(keyed) >= 2 and any(spells(v) for _, v in keyed):
                found.append((node.lineno, ", ".join(k for k, _ in keyed[:3])))
    return found


def test_no_module_but_the_kinds_table_maps_kinds_to_their_names():
    kinds, names = _kind_names()
    found = [f"{path.relative_to(ROOT)}:{line}: {{{keys}, ...}}" for name, path in MODULES.items()
             if name != KINDS_TABLE_MODULE for line, keys in kinds_mapping_literals(path, kinds, names)]
    assert found == [], "\n".join(found)


def test_the_kinds_literal_scan_finds_a_plural_table(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('A = {"Pod": "pods", "Node": "nodes"}\nB = {"Pod": (("pods", "po"), None), "Node": 1}\n'
                      'C = {"Pod": ("pods", f), "Service": ("services", g)}\nD = {"Pod": "x", "Node": "y"}\n')
    kinds, names = _kind_names()
    assert [line for line, _ in kinds_mapping_literals(module, kinds, names)] == [1, 2]


OPERATOR_LITERALS = ("NotIn", "DoesNotExist")


def operator_evaluations(path: Path) -> list[tuple[int, str]]:
    """(line, code) of every comparison with, or dispatch table keyed by, the operator names
    "NotIn" / "DoesNotExist", outside functions whose name says they validate (validation's
    messages name the operators too)."""
    def literal(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in OPERATOR_LITERALS
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(literal(e) for e in node.elts)
        return False

    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, validating: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            validating = validating or "validate" in node.name
        if not validating:
            if isinstance(node, ast.Compare) and any(literal(n) for n in (node.left, *node.comparators)):
                found.append((node.lineno, ast.unparse(node)[:80]))
            if isinstance(node, ast.Dict) and any(k is not None and literal(k) for k in node.keys):
                found.append((node.lineno, ast.unparse(node)[:80]))
        for child in ast.iter_child_nodes(node):
            visit(child, validating)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def test_no_module_but_the_selectors_evaluates_selector_operators():
    found = [f"{path.relative_to(ROOT)}:{line}: {code}" for name, path in MODULES.items()
             if name != MATCHER_MODULE for line, code in operator_evaluations(path)]
    assert found == [], "\n".join(found)


def test_the_operator_scan_finds_a_matcher_and_spares_a_validator(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('def matches(op):\n    return op == "NotIn"\n'
                      'OPS = {"In": 1, "DoesNotExist": 2}\n'
                      'def validate(op):\n    return op in ("Exists", "DoesNotExist")\n')
    assert [line for line, _ in operator_evaluations(module)] == [2, 3]


# --- one protocol to the page: named partials swapped by id ------------------------------------------
#
# Over HTTP a view answers HTML partials (htmx); over the websocket the server pushes
# out-of-band partials. JSON stays for data (Tab completion, the training view's page and
# panel): no view puts rendered HTML in a JSON answer, the training push sends partials,
# and the page's scripts open no socket of their own (the htmx ws extension does).

HTML_RENDERERS = {"render_to_string", "render_block_to_string"}
JSON_SINKS = {"JsonResponse", "dumps"}


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return ""


def html_in_json(path: Path) -> list[tuple[int, str]]:
    """(line, code) of every JsonResponse(...) or json.dumps(...) whose payload holds rendered
    HTML: a render_to_string call, a call of a function of the module that returns one, or
    a name (or a dict item) assigned from one, in the same function."""
    tree = ast.parse(path.read_text(), str(path))
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    renderers = set(HTML_RENDERERS)
    for _ in range(3):  # functions returning what a renderer returns, a few calls deep
        renderers |= {f.name for f in functions for r in ast.walk(f) if isinstance(r, ast.Return) and r.value is not None
                      and any(_call_name(c) in renderers for c in ast.walk(r.value))}

    def rendered(node: ast.AST, tainted: set[str]) -> bool:
        return any(_call_name(n) in renderers or (isinstance(n, ast.Name) and n.id in tainted) for n in ast.walk(node))

    found = []
    for function in functions:
        tainted: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and rendered(node.value, tainted):
                for target in node.targets:
                    while isinstance(target, ast.Subscript):  # answer["preview"] = html: answer holds HTML
                        target = target.value
                    if isinstance(target, ast.Name):
                        tainted.add(target.id)
        for node in ast.walk(function):
            if _call_name(node) in JSON_SINKS and any(rendered(a, tainted) for a in [*node.args, *(k.value for k in node.keywords)]):
                found.append((node.lineno, ast.unparse(node)[:100]))
    return found


def test_no_answer_carries_rendered_html_inside_json():
    found = [f"{path.relative_to(ROOT)}:{line}: {code}" for name, path in MODULES.items()
             if name.startswith(("scheduling.", "updates.")) for line, code in html_in_json(path)]
    assert found == [], "\n".join(found)


def test_the_html_in_json_finder_sees_html_passed_through_a_helper_or_a_dict(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "def _preview(x):\n    return render_to_string('t.html#p', x)\n\n"
        "def view(r):\n    answer = {'lines': []}\n    answer['preview'] = _preview(r)\n    return JsonResponse(answer)\n\n"
        "def other(r):\n    return JsonResponse({'html': render_to_string('t.html')})\n\n"
        "def data(r):\n    return JsonResponse({'names': sorted(r)})\n")
    assert [line for line, _ in html_in_json(module)] == [7, 10]


def test_the_pages_scripts_open_no_websocket_of_their_own():
    """Every socket of a page is the htmx ws extension's (ws-connect), which swaps what it
    receives by id: no script parses socket messages to decide what to fetch."""
    found = [path.name for path in sorted((ROOT / "static" / "js").glob("*.js")) if "new WebSocket(" in path.read_text()]
    assert found == sorted(OWN_SOCKETS)


# Scripts that still open a socket of their own, and why.
OWN_SOCKETS: dict[str, str] = {}


@pytest.mark.django_db
def test_the_training_push_sends_partials_not_signals(monkeypatch, django_capture_on_commit_callbacks, editor):
    """Everything training.broadcast sends to a session's pages is out-of-band partials:
    elements with an id and hx-swap-oob, never a JSON signal telling the page to refetch."""
    import re

    from scheduling.store import services
    from scheduling.training import broadcast
    from scheduling.training import sessions as training

    sent: list[str] = []

    class Layer:
        async def group_send(self, group, message):
            sent.append(message.get("text") or message.get("html") or "")

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: Layer())
    session = training.start_session(services.load_scenario("toleration-seconds"), editor)
    attendee = training.join(session, "Ana")
    with django_capture_on_commit_callbacks(execute=True):
        training.set_view(session, "/", "")
        question = training.ask_about_next_step(session)
        training.answer(question, attendee, question.correct)
        training.reveal(question)
        training.attendee_connected(attendee.pk, +1)
        training.close_session(session)
    assert sent
    for text in sent:
        assert not text.lstrip().startswith(("{", "[")), text
        tops = re.findall(r"<(\w+)\b([^>]*)>", text)
        assert tops and all('id="' in attrs for tag, attrs in tops[:1]) and 'hx-swap-oob="true"' in text, text
