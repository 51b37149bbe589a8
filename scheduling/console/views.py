"""The `oc` console of every cluster page: the same commands as `manage.py oc --cluster`
(scheduling.store.oc_cli), typed in the browser.

* POST clusters/<pk>/console/run (`command`, optional `confirm=1`): runs one command and
  answers JSON `{"lines": [[stream, text], ...], "exit_code": n}` with the output exactly
  as the command line prints it. Anyone may run read-only commands; writes need the
  edit permission (checked here, server side: others get the API server's Forbidden
  answer). A mutating command is first run as `--dry-run=server` and answered with the
  what-if preview (`"preview"`: HTML, `"confirm"`: the command to send back with
  `confirm=1` to apply it). A drain answers its first pass and a `"drain"` token; the
  page polls console/drain while the cluster's clock runs, and each poll resumes the
  drain at the cluster's current time (engine.oc.drain.resume), so the console shows
  the drain progressing as the clock runs.
* GET clusters/<pk>/console/complete: what Tab completes (commands, kinds, object names).

The console has no websocket path: everything it changes goes through these POSTs and
the services, whose writes are pushed to every open page as any other change.
"""

from __future__ import annotations

import secrets
import shlex

from django.http import HttpRequest, JsonResponse
from django.template.loader import render_to_string
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from scheduling.store import oc_cli
from scheduling.pages import previews
from scheduling.engine.oc import commands
from scheduling.engine.oc.core import RESOURCES
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


def _preview_html(cluster: Cluster, argv: list[str], result) -> str:
    """The what-if preview of what a server dry run would have applied: the same command
    previewed by the cluster's loop on a copy (previews.summarised_command)."""
    try:
        preview = previews.summarised_command(cluster, argv)
    except previews.PreviewRefused as exc:
        return render_to_string("scheduling/console.html#preview", {"refused": str(exc), "command": shlex.join(argv)})
    return render_to_string("scheduling/console.html#preview", {"preview": preview, "command": shlex.join(argv),
                                                                   "dry_run": result.stdout if result else ""})


def _dry_run(argv: list[str]) -> list[str]:
    return [*argv, "--dry-run=server"]


@require_POST
def console_run(request: HttpRequest, pk: int):
    cluster = get_cluster_for_user(request, pk)
    command = (request.POST.get("command") or "").strip()[:MAX_COMMAND]
    lines, emit = _lines()
    if not command:
        return JsonResponse({"lines": [], "exit_code": 0})
    try:
        argv = _split(command)
    except ValueError as exc:
        return JsonResponse({"lines": [["stderr", f"error: {exc}\n"]], "exit_code": 1})
    user = request.user if request.user.is_authenticated else _anonymous()
    mutating = oc_cli.is_mutating(argv)
    if mutating and request.POST.get("confirm") != "1" and can_edit(request.user):
        # Every change is previewed before it is made: a server dry run where oc has one,
        # and the cluster's loop on a copy in any case (oc adm upgrade has no --dry-run:
        # the loop alone previews it).
        if not oc_cli.has_dry_run(argv):
            return JsonResponse({"lines": [], "exit_code": 0, "preview": _preview_html(cluster, argv, None),
                                 "confirm": shlex.join(argv)})
        result = oc_cli.run_on_cluster(cluster, _dry_run(argv), emit, user=user, wait=False)
        answer = {"lines": lines, "exit_code": result.exit_code}
        if result.exit_code == 0:
            answer["preview"] = _preview_html(cluster, argv, result)
            answer["confirm"] = shlex.join(argv)
        return JsonResponse(answer)
    result = oc_cli.run_on_cluster(cluster, argv, emit, user=user, wait=False)
    answer = {"lines": lines, "exit_code": result.exit_code}
    if result.pending is not None:
        token = secrets.token_urlsafe(12)
        drains = dict(request.session.get(SESSION_KEY) or {})
        drains[token] = {"cluster": cluster.pk, "pending": result.pending}
        request.session[SESSION_KEY] = drains
        answer["drain"] = token
    return JsonResponse(answer)


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
    """Resume a drain this console started, at the cluster's current time."""
    cluster = get_cluster_for_user(request, pk)
    token = request.POST.get("drain") or ""
    drains = dict(request.session.get(SESSION_KEY) or {})
    entry = drains.get(token)
    if entry is None or entry["cluster"] != cluster.pk or not can_edit(request.user):
        return JsonResponse({"lines": [], "exit_code": 1, "done": True}, status=404)
    cluster.refresh_from_db()
    due = entry["pending"].get("next_due")
    lines, emit = _lines()
    if due is not None and cluster.now + 1e-9 < due:
        return JsonResponse({"lines": [], "done": False, "now": cluster.now, "next_due": due, "paused": cluster.paused})
    result = oc_cli.resume_drain(cluster, entry["pending"], emit)
    if result.pending is None:
        drains.pop(token, None)
    else:
        drains[token] = {"cluster": cluster.pk, "pending": result.pending}
    request.session[SESSION_KEY] = drains
    return JsonResponse({"lines": lines, "exit_code": result.exit_code, "done": result.pending is None,
                         "paused": cluster.paused})


@require_GET
def console_complete(request: HttpRequest, pk: int):
    cluster = get_cluster_for_user(request, pk)
    names: dict[str, list[str]] = {}
    for r in RESOURCES:
        model = KIND_MODELS.get(r.kind)
        if model is None:
            continue
        values = sorted(set(model.objects.filter(cluster=cluster).values_list("name", flat=True)))[:500]
        for word in r.names():
            names[word] = values
    paths = sorted(commands.COMMANDS)
    return JsonResponse({
        "commands": sorted({p[0] for p in paths}),
        "adm": sorted({p[1] for p in paths if p[0] == "adm" and len(p) > 1}),
        "kinds": sorted({w for r in RESOURCES for w in r.names()} | {"events", "ev"}),
        "names": names,
    })


urlpatterns = [
    path("clusters/<int:pk>/console/run", console_run, name="console-run"),
    path("clusters/<int:pk>/console/drain", console_drain, name="console-drain"),
    path("clusters/<int:pk>/console/complete", console_complete, name="console-complete"),
]
