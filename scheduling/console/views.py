"""The `oc` console of every cluster page: the same commands as `manage.py oc --cluster`
(scheduling.store.oc_cli), typed in the browser.

* POST clusters/<pk>/console/run (`command`, optional `confirm=1`, an htmx form): runs one
  command and answers the `output` partial of templates/scheduling/console.html: the
  command's output exactly as the command line prints it (one span per stream write,
  escaped by the template), appended to #oc-output, with the #oc-preview, #oc-drain and
  #oc-waiting partials swapped out of band. Anyone may run read-only commands; writes need
  the edit permission (checked here, server side: others get the API server's Forbidden
  answer). A mutating command is first run as `--dry-run=server` and answered with the
  what-if preview in #oc-preview, whose Apply form posts the command back with
  `confirm=1`. A drain answers its first pass and, in #oc-drain, a form that htmx posts to
  console/drain every second; each post resumes the drain at the cluster's current time
  (engine.oc.drain.resume) and answers the output it made, so the console shows the drain
  progressing as the clock runs; the last one empties #oc-drain, which stops the polling.
* `oc edit TYPE NAME` opens an editor pane (#oc-editor, swapped out of band) holding the
  file kubectl would open (engine.oc.edit: its header comment and the object's YAML); its
  Save posts the edited text to console/edit, which answers as kubectl answers when the
  editor closes (`Edit cancelled, no changes made.`, the pane reopened with the errors in
  its header) or, for a change, the what-if preview whose Apply posts it back with
  `confirm=1` to be written (`deployment.apps/web edited`). Editors only: others get the
  API server's Forbidden answer when they open it.
* GET clusters/<pk>/console/complete: what Tab completes, as JSON data: the commands and
  their subcommands (`rollout status`, `adm top node`), each command's flags and the values
  of --output and --dry-run, the kinds, the object names of each kind (with the namespaces
  a running cluster always has).

The console has no websocket path: everything it changes goes through these POSTs and
the services, whose writes are pushed to every open page as any other change.
"""

from __future__ import annotations

import secrets
import shlex
import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from scheduling.store import oc_cli
from scheduling.pages import previews
from scheduling.engine.oc import commands
from scheduling.engine.oc.core import GLOBAL_FLAGS, RESOURCES
from scheduling.engine.oc.edit import EDIT_FILE
from scheduling.engine.oc.namespaces import SYSTEM_NAMESPACES
from scheduling.engine.openshift.namespaces import cluster_namespaces
from scheduling.engine.store import Store
from scheduling.models import KIND_MODELS, Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user

SESSION_KEY = "console-drains"
MAX_COMMAND = 2000


def _split(command: str) -> list[str]:
    argv = shlex.split(command)
    if argv and argv[0] not in ("oc", "kubectl"):
        argv = ["oc", *argv]
    return argv


def _lines() -> tuple[list[list[str]], oc_cli.Emit]:
    """The lines a command prints, in order, and the emit function that collects them."""
    lines: list[list[str]] = []

    def emit(stream: str, text: str) -> None:
        lines.append([stream, text])

    return lines, emit


OUTPUT = "scheduling/console.html#output"

# htmx stops polling an element whose request is answered with this status.
STOP_POLLING = 286


def _preview(cluster: Cluster, argv: list[str], result) -> dict:
    """The what-if preview of what a server dry run would have applied: the same command
    previewed by the cluster's loop on a copy (previews.summarised_command)."""
    try:
        preview = previews.summarised_command(cluster, argv)
    except previews.PreviewRefused as exc:
        return {"refused": str(exc), "command": shlex.join(argv)}
    return {"preview": preview, "command": shlex.join(argv), "dry_run": result.stdout if result else ""}


def _output(request: HttpRequest, cluster: Cluster, echo: str, lines: list, exit_code: int, **extra) -> HttpResponse:
    """The output partial: the command typed, its output lines, and the preview, drain and
    waiting partials out of band (empty unless given)."""
    return render(request, OUTPUT, {"cluster": cluster, "echo": echo, "lines": lines, "exit_code": exit_code, **extra})


def _dry_run(argv: list[str]) -> list[str]:
    """The command as a server dry run: the flag goes before a `--` (what follows it is a
    container's command: `oc create job pi --image=perl -- sleep 20`)."""
    if "--" in argv:
        dash = argv.index("--")
        return [*argv[:dash], "--dry-run=server", *argv[dash:]]
    return [*argv, "--dry-run=server"]


@require_POST
def console_run(request: HttpRequest, pk: int):
    cluster = get_cluster_for_user(request, pk)
    command = (request.POST.get("command") or "").strip()[:MAX_COMMAND]
    lines, emit = _lines()
    if not command:
        return _output(request, cluster, "", [], 0)
    try:
        argv = _split(command)
    except ValueError as exc:
        return _output(request, cluster, command, [["stderr", f"error: {exc}\n"]], 1)
    if commands.resolve(argv[0], argv[1:])[0] == ("edit",):
        return _edit(request, cluster, command, argv, None)
    user = request.user if request.user.is_authenticated else _anonymous()
    mutating = oc_cli.is_mutating(argv)
    if mutating and request.POST.get("confirm") != "1" and can_edit(request.user):
        # Every change is previewed before it is made: a server dry run where oc has one,
        # and the cluster's loop on a copy in any case (oc adm upgrade has no --dry-run:
        # the loop alone previews it).
        if not oc_cli.has_dry_run(argv):
            return _output(request, cluster, command, [], 0, **_preview(cluster, argv, None))
        result = oc_cli.run_on_cluster(cluster, _dry_run(argv), emit, user=user, wait=False)
        preview = _preview(cluster, argv, result) if result.exit_code == 0 else {}
        return _output(request, cluster, command, lines, result.exit_code, **preview)
    result = oc_cli.run_on_cluster(cluster, argv, emit, user=user, wait=False)
    token = ""
    if result.pending is not None:
        token = secrets.token_urlsafe(12)
        drains = dict(request.session.get(SESSION_KEY) or {})
        drains[token] = {"cluster": cluster.pk, "pending": result.pending}
        request.session[SESSION_KEY] = drains
    return _output(request, cluster, command, lines, result.exit_code, drain=token)


@require_POST
def console_edit(request: HttpRequest, pk: int):
    """Save the editor pane: `command` (the `oc edit` typed), `text` (the edited file),
    `confirm=1` to write the previewed change."""
    cluster = get_cluster_for_user(request, pk)
    command = (request.POST.get("command") or "").strip()[:MAX_COMMAND]
    try:
        argv = _split(command)
    except ValueError as exc:
        return _output(request, cluster, command, [["stderr", f"error: {exc}\n"]], 1)
    if commands.resolve(argv[0], argv[1:])[0] != ("edit",):
        return HttpResponse(status=400)
    return _edit(request, cluster, "", argv, (request.POST.get("text") or "").replace("\r\n", "\n"))


def _edit(request: HttpRequest, cluster: Cluster, echo: str, argv: list[str], text: str | None) -> HttpResponse:
    """`oc edit`: open the editor pane (text None), or what kubectl does when it closes:
    a change is previewed first, written on `confirm=1`."""
    lines, emit = _lines()
    if not can_edit(request.user):
        name = request.user.get_username() if request.user.is_authenticated else "system:anonymous"
        return _output(request, cluster, echo, [["stderr", oc_cli.forbidden(name, argv)]], 1)
    files = {EDIT_FILE: [{"text": text}]} if text is not None else None
    if text is not None and request.POST.get("confirm") == "1":
        result = oc_cli.run_on_cluster(cluster, argv, emit, user=request.user, files=files, wait=False)
    else:
        result = commands.run(oc_cli.cluster_store(cluster), argv, cluster.now, files=files)
        oc_cli.emit_result(result, emit)
        if result.actions:  # a change: previewed by the cluster's loop on a copy before anything is written
            preview = _preview_edit(cluster, argv, files)
            return _output(request, cluster, echo, lines, 0, edit_swap=True, editor={"command": shlex.join(argv), "text": text},
                           **preview)
    editor = {"command": shlex.join(argv), "text": result.edit} if result.edit is not None else None
    return _output(request, cluster, echo, lines, result.exit_code, edit_swap=True, editor=editor)


def _preview_edit(cluster: Cluster, argv: list[str], files: dict) -> dict:
    try:
        preview = previews.summarised_command(cluster, argv, files)
    except previews.PreviewRefused as exc:
        return {"refused": str(exc), "command": shlex.join(argv)}
    return {"preview": preview, "command": shlex.join(argv), "edit_text": files[EDIT_FILE][0]["text"]}


class _Anonymous:
    is_authenticated = False
    is_active = False

    def has_perm(self, perm: str) -> bool:
        return False

    def get_username(self) -> str:
        return "system:anonymous"


def _anonymous() -> _Anonymous:
    return _Anonymous()


@require_POST
def console_drain(request: HttpRequest, pk: int):
    """Resume a drain (or a followed `oc rollout status`) this console started, at the
    cluster's current time."""
    cluster = get_cluster_for_user(request, pk)
    token = request.POST.get("drain") or ""
    drains = dict(request.session.get(SESSION_KEY) or {})
    entry = drains.get(token)
    # a drain writes (editors only); a followed `oc rollout status` only reads
    if entry is None or entry["cluster"] != cluster.pk or (not can_edit(request.user) and not entry["pending"].get("watch")):
        return HttpResponse(status=STOP_POLLING)
    cluster.refresh_from_db()
    due = entry["pending"].get("next_due")
    lines, emit = _lines()
    if due is not None and cluster.now + 1e-9 < due:  # the clock has not reached the next pass
        return _output(request, cluster, "", [], 0, polling=True, drain=token, waiting=cluster.paused)
    result = oc_cli.resume_drain(cluster, entry["pending"], emit)
    if result.pending is None:
        drains.pop(token, None)
    else:
        drains[token] = {"cluster": cluster.pk, "pending": result.pending}
    request.session[SESSION_KEY] = drains
    done = result.pending is None
    return _output(request, cluster, "", lines, result.exit_code, polling=True, drain="" if done else token,
                   waiting=cluster.paused and not done)


def _flag_words(path: tuple[str, ...]) -> list[str]:
    """The flags of a command as typed (`--output`, `-o`), from the command function's
    `flags` or its module's FLAGS, with the global -n and -h."""
    try:
        function = commands.load(commands.COMMANDS[path])
    except (ImportError, AttributeError):
        return []
    specs = getattr(function, "flags", None) or getattr(sys.modules.get(function.__module__), "FLAGS", ()) or ()
    specs = (*specs, *GLOBAL_FLAGS)
    words = {f"--{f.name}" for f in specs} | {f"-{f.short}" for f in specs if f.short}
    return sorted(words)


# the values some flags take, as oc documents them
FLAG_VALUES = {
    "--output": ["json", "yaml", "wide", "name", "jsonpath=", "jsonpath-as-json=", "custom-columns=", "go-template="],
    "--dry-run": ["none", "client", "server"],
}


def _release_namespaces(cluster: Cluster) -> list[str]:
    """An OpenShift 4 cluster's release payload namespaces (engine.openshift.namespaces), read
    from its ClusterVersion and ClusterOperators."""
    docs = [o.document for kind in ("ClusterVersion", "ClusterOperator") for o in KIND_MODELS[kind].objects.filter(cluster=cluster)]
    return list(cluster_namespaces(Store(docs))) if docs else []


@require_GET
def console_complete(request: HttpRequest, pk: int):
    cluster = get_cluster_for_user(request, pk)
    names: dict[str, list[str]] = {}
    for r in RESOURCES:
        model = KIND_MODELS.get(r.kind)
        if model is None:
            continue
        values = sorted(set(model.objects.filter(cluster=cluster).values_list("name", flat=True)))[:500]
        if r.kind == "Namespace":  # a running cluster also has the system namespaces (engine.oc.namespaces)
            used = set(KIND_MODELS["Pod"].objects.filter(cluster=cluster).values_list("namespace", flat=True))
            values = sorted(set(values) | set(SYSTEM_NAMESPACES) | {n for n in used if n} | set(_release_namespaces(cluster)))[:500]
        for word in r.names():
            names[word] = values
    paths = sorted(commands.COMMANDS)
    sub: dict[str, list[str]] = {}
    for p in paths:
        for i in range(1, len(p)):
            sub.setdefault(" ".join(p[:i]), [])
            if p[i] not in sub[" ".join(p[:i])]:
                sub[" ".join(p[:i])].append(p[i])
    return JsonResponse({
        "commands": sorted({p[0] for p in paths}),
        "adm": sorted({p[1] for p in paths if p[0] == "adm" and len(p) > 1}),
        "sub": {k: sorted(v) for k, v in sub.items()},
        "flags": {" ".join(p): _flag_words(p) for p in paths},
        "values": FLAG_VALUES,
        "kinds": sorted({w for r in RESOURCES for w in r.names()} | {"events", "ev", "all"}),
        "names": names,
    })


urlpatterns = [
    path("clusters/<int:pk>/console/run", console_run, name="console-run"),
    path("clusters/<int:pk>/console/drain", console_drain, name="console-drain"),
    path("clusters/<int:pk>/console/edit", console_edit, name="console-edit"),
    path("clusters/<int:pk>/console/complete", console_complete, name="console-complete"),
]
