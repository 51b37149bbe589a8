"""Training mode pages: start a session, join it, follow, ask and answer,
rewind, restart. A view parses, checks access (raising PermissionDenied), calls
scheduling.training.sessions, renders a named partial of templates/scheduling/training.html."""

from __future__ import annotations

import json

import segno
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scheduling.store import clock, script, services, snapshots
from scheduling.training import limits
from scheduling.training import sessions as training
from scheduling.training.fragments import TEMPLATE, presence_context, question_context
from scheduling.engine.scenarios import BY_NAME as SCENARIOS_BY_NAME
from scheduling.models import Attendee, Cluster, Event, MachineConfigPool, Question, TrainingSession
from scheduling.store.permissions import can_edit, get_cluster_for_user, require_editor

SESSION_KEY = "training"  # {code: attendee id} of the sessions this browser joined
CURRENT_KEY = "training_current"  # {"code": ..., "role": "attendee" | "instructor"}


# --- who is who ------------------------------------------------------------------------------------


def _session_or_404(request, code: str) -> TrainingSession:
    """The open session of `code`; a code that leads nowhere counts against the client
    (limits: past the limit, 429)."""
    limits.check_client(request)
    session = training.open_session(code)
    if session is None:
        limits.missed(request)
        raise Http404("no open training session with this code")
    return session


def _instructor_session(request, code: str) -> TrainingSession:
    require_editor(request)
    return _session_or_404(request, code)


def _attendee(request, session: TrainingSession) -> Attendee | None:
    attendee_id = (request.session.get(SESSION_KEY) or {}).get(session.code)
    return Attendee.objects.filter(pk=attendee_id, session=session).first() if attendee_id else None


def current(request) -> tuple[TrainingSession | None, str, Attendee | None]:
    """The open session this browser takes part in, its role in it and its attendee."""
    mine = request.session.get(CURRENT_KEY) or {}
    session = training.open_session(mine.get("code") or "") if mine else None
    if session is None:
        return None, "", None
    if mine.get("role") == "instructor" and can_edit(request.user):
        return session, "instructor", None
    attendee = _attendee(request, session)
    return (session, "attendee", attendee) if attendee else (None, "", None)


def code_text(code: str) -> str:
    """The code as read off a projector: two halves."""
    half = (len(code) + 1) // 2
    return f"{code[:half]} {code[half:]}"


def join_url(request, session: TrainingSession) -> str:
    """The link the room opens: on the address the server serves the room at when it does
    (settings.JOIN_HOST, from `manage.py serve --host 0.0.0.0`), else the one this browser used."""
    path = reverse("training-join-code", args=[session.code])
    if settings.JOIN_HOST:
        _, colon, port = request.get_host().rpartition(":")  # the port this browser used
        port = port if colon and port.isdigit() else ""
        return f"{request.scheme}://{settings.JOIN_HOST}{':' + port if port else ''}{path}"
    return request.build_absolute_uri(path)


def session_context(request, session: TrainingSession, role: str, attendee: Attendee | None = None) -> dict:
    return {
        "session": session,
        "role": role,
        "attendee": attendee,
        "join_url": join_url(request, session),
        "code_text": code_text(session.code),
    }


# --- starting, joining, closing ---------------------------------------------------------------------


@require_POST
def session_start(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    session = training.start_session(cluster, request.user)
    request.session[CURRENT_KEY] = {"code": session.code, "role": "instructor"}
    return _redirect(request, reverse("training-console", args=[session.code]))


@require_GET
@limits.limited
def console(request, code: str):
    session = _instructor_session(request, code)
    request.session[CURRENT_KEY] = {"code": session.code, "role": "instructor"}
    return render(request, TEMPLATE, {
        **session_context(request, session, "instructor"),
        "cluster": session.cluster,
        "can_edit": True,
        "qr_svg": mark_safe(segno.make(join_url(request, session), error="m").svg_inline(scale=5, dark="#111", light="#fff")),
    })


@require_GET
@limits.limited
def qr_code(request, code: str):
    session = _session_or_404(request, code)
    svg = segno.make(join_url(request, session), error="m").svg_inline(scale=10, dark="#111", light="#fff")
    return HttpResponse(svg, content_type="image/svg+xml")


@require_http_methods(["GET", "POST"])
def join(request, code: str = ""):
    code = training.normalise_code(request.POST.get("code", code))
    name = request.POST.get("name", "")
    error = ""
    if request.method == "POST":
        try:
            limits.check_client(request)
            limits.join_attempt(code)
        except limits.TooManyRequests as exc:
            response = render(request, "scheduling/training_join.html",
                              {"code": code, "name": name, "error": f"too many attempts: try again in {exc.retry_after} seconds"},
                              status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        session = training.open_session(code)
        if session is None:
            limits.missed(request)
            error = "no open training session has this code: check it with your instructor"
        else:
            try:
                attendee = training.join(session, name)
            except training.TrainingError as exc:
                error = str(exc)
            else:
                joined = dict(request.session.get(SESSION_KEY) or {})
                joined[session.code] = attendee.pk
                request.session[SESSION_KEY] = joined
                request.session[CURRENT_KEY] = {"code": session.code, "role": "attendee"}
                return _redirect(request, session.view.get("url") or reverse("cluster-detail", args=[session.cluster_id]))
    return render(request, "scheduling/training_join.html", {"code": code, "name": name, "error": error},
                  status=422 if error else 200)


@require_POST
@limits.limited
def session_close(request, code: str):
    session = _instructor_session(request, code)
    training.close_session(session)
    request.session.pop(CURRENT_KEY, None)
    messages.success(request, f"training session {session.code} closed")
    return _redirect(request, reverse("cluster-detail", args=[session.cluster_id]))


@require_GET
@limits.limited
def ended(request, code: str):
    limits.check_client(request)
    session = TrainingSession.objects.filter(code=training.normalise_code(code)).first()
    if session is None:
        limits.missed(request)
        raise Http404("no such training session")
    if request.session.get(CURRENT_KEY, {}).get("code") == session.code and not session.is_open:
        request.session.pop(CURRENT_KEY, None)
    return render(request, "scheduling/training_ended.html", {"session": session})


@require_POST
@limits.limited
def follow_again(request, code: str):
    """An attendee who stepped away comes back: the answer is the #training-view partial,
    what the instructor shows now, which the page follows once swapped in."""
    session = _session_or_404(request, code)
    if _attendee(request, session) is None:
        raise PermissionDenied("join the session first")
    request.session[CURRENT_KEY] = {"code": session.code, "role": "attendee"}
    return render(request, f"{TEMPLATE}#view", {"session": session, "view": session.view or {}})


# --- following ------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@limits.limited
def view_state(request, code: str):
    """GET: what the instructor shows, as data (a page whose session socket closed asks it
    to know whether the session is still open). POST (the instructor's pages): url and
    panel shown now; the room is sent the #training-view partial (broadcast.py)."""
    session = _session_or_404(request, code)
    if request.method == "GET":
        if not can_edit(request.user) and _attendee(request, session) is None:
            raise PermissionDenied("join the session first")
        return JsonResponse(session.view)
    require_editor(request)
    try:
        view = training.set_view(session, request.POST.get("url", ""), request.POST.get("panel", ""))
    except training.TrainingError as exc:
        return HttpResponse(str(exc), status=400)
    return HttpResponse(status=204)


@require_GET
def presence(request, code: str):
    """Who is connected (the #training-presence partial, also pushed on every change). A
    closed session answers too: the instructor's page may still be open after the close."""
    require_editor(request)
    session = get_object_or_404(TrainingSession, code=training.normalise_code(code))
    return render(request, f"{TEMPLATE}#presence", presence_context(session))


# --- predict, then reveal ---------------------------------------------------------------------------


@require_GET
@limits.limited
def question_fragment(request, code: str):
    session = _session_or_404(request, code)
    if can_edit(request.user) and request.GET.get("as") != "attendee":
        return render(request, f"{TEMPLATE}#question-instructor", question_context(session, "instructor"))
    attendee = _attendee(request, session)
    if attendee is None:
        raise PermissionDenied("join the session first")
    return render(request, f"{TEMPLATE}#question", question_context(session, "attendee", attendee))


@require_POST
@limits.limited
def answer(request, code: str, question_id: int):
    session = _session_or_404(request, code)
    attendee = _attendee(request, session)
    if attendee is None:
        raise PermissionDenied("only attendees answer questions")
    question = get_object_or_404(Question, pk=question_id, session=session)
    error = ""
    try:
        training.answer(question, attendee, request.POST.getlist("choice"))
    except training.TrainingError as exc:
        error = str(exc)
    context = {**question_context(session, "attendee", attendee), "error": error}
    return render(request, f"{TEMPLATE}#question", context, status=200 if request.htmx or not error else 422)


def _cluster_session(request, pk: int) -> TrainingSession:
    cluster = get_cluster_for_user(request, pk, write=True)
    session = TrainingSession.objects.filter(cluster=cluster, closed_at__isnull=True).first()
    if session is None:
        raise Http404("no open training session on this cluster")
    return session


@require_POST
def ask_edit(request, pk: int):
    """The what-if editor's "Ask the room first": the previewed document becomes a question."""
    session = _cluster_session(request, pk)
    try:
        doc = json.loads(request.POST.get("document") or "")
        version = int(request.POST.get("resource_version") or "")
        if not isinstance(doc, dict):
            raise ValueError
        training.ask_about_edit(session, doc, version)
    except (ValueError, training.TrainingError) as exc:
        return render(request, f"{TEMPLATE}#asked", {"error": str(exc) or "the preview was incomplete; preview the change again"})
    return render(request, f"{TEMPLATE}#asked", {"session": session, **question_context(session, "instructor")})


@require_POST
def ask_step(request, pk: int):
    session = _cluster_session(request, pk)
    try:
        training.ask_about_next_step(session)
    except training.TrainingError as exc:
        return render(request, f"{TEMPLATE}#question-instructor", {**question_context(session, "instructor"), "error": str(exc)})
    return render(request, f"{TEMPLATE}#question-instructor", question_context(session, "instructor"))


@require_POST
def ask_pool(request, pk: int):
    """Ask the room how many nodes of a pool (default: worker) will be updating at once."""
    session = _cluster_session(request, pk)
    try:
        training.ask_about_pool(session, request.POST.get("pool") or "worker")
    except training.TrainingError as exc:
        return render(request, f"{TEMPLATE}#question-instructor", {**question_context(session, "instructor"), "error": str(exc)})
    return render(request, f"{TEMPLATE}#question-instructor", question_context(session, "instructor"))


@require_POST
@limits.limited
def question_action(request, code: str, question_id: int, action: str):
    session = _instructor_session(request, code)
    question = get_object_or_404(Question, pk=question_id, session=session)
    error = ""
    try:
        if action == "reveal":
            training.reveal(question)
        elif action == "apply":
            training.apply_question(question)  # what it did is kept with the question
        else:
            raise Http404("no such action")
    except training.TrainingError as exc:
        error = str(exc)
    return render(request, f"{TEMPLATE}#question-instructor", {**question_context(session, "instructor"), "error": error})


# --- the script, rewind, restart ------------------------------------------------------------------------


def script_context(request, cluster: Cluster) -> dict:
    # The board shows the rewind slider from the cluster's start: record it the first time
    # the board of a fresh cluster is shown (the clock may move before the controllers run).
    snapshots.record_start(cluster)
    the_script = script.cluster_script(cluster)
    first_at = snapshots.first_at(cluster)
    event_times = sorted(set(Event.objects.filter(cluster=cluster).values_list("first_time", flat=True)))[:300]
    session = TrainingSession.objects.filter(cluster=cluster, closed_at__isnull=True).first()
    current = the_script.current_index(cluster.now) if the_script else None
    return {
        "cluster": cluster,
        "script": the_script,
        "steps": [
            {"step": s, "done": current is not None and i <= current, "current": i == current}
            for i, s in enumerate(the_script.steps if the_script else ())
        ],
        "ended": the_script is not None and cluster.now >= the_script.end,
        "next_at": script.sim_time_text(n) if the_script and (n := the_script.next_stop(cluster.now)) is not None else "",
        "can_edit": can_edit(request.user),
        "rewind_from": first_at,
        "event_times": event_times,
        "open_session": session,
        "has_worker_pool": MachineConfigPool.objects.filter(cluster=cluster, name="worker").exists(),
        "now_text": script.sim_time_text(cluster.now),
        "ask": _asked_on_the_board(request, cluster),
    }


def _asked_on_the_board(request, cluster: Cluster) -> training.Discard | None:
    """Without htmx, a rewind or restart that needs confirming comes back to the board with
    ?confirm_rewind=<at> (or ?confirm_restart=1): the board asks there."""
    if not can_edit(request.user) or request.method != "GET":
        return None
    if request.GET.get("confirm_restart"):
        start = snapshots.first_at(cluster)
        return training.discards(cluster, start, "Restart") if start is not None else None
    try:
        at = float(request.GET.get("confirm_rewind", ""))
    except ValueError:
        return None
    return training.discards(cluster, at) if 0 <= at <= cluster.now else None


@require_GET
def script_fragment(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    return render(request, f"{TEMPLATE}#script", script_context(request, cluster))


@require_POST
def script_action(request, pk: int, action: str):
    cluster = get_cluster_for_user(request, pk, write=True)
    snapshots.record_start(cluster)
    error = ""
    if action == "next":
        try:
            clock.run_to_next_step(cluster)
        except ValueError as exc:
            error = str(exc)
    elif action in ("go-on", "stop-at-end"):
        script.set_go_on(cluster, action == "go-on")
    else:
        raise Http404("no such action")
    cluster.refresh_from_db()
    return render(request, f"{TEMPLATE}#script", {**script_context(request, cluster), "error": error})


def _moment(request) -> float:
    try:
        return float(request.POST.get("at", ""))
    except ValueError:
        raise training.TrainingError("choose a moment on the timeline") from None


def _confirmation(request) -> int | None:
    """The revision the user confirmed going back for (the confirm step's hidden field)."""
    try:
        return int(request.POST.get("confirm", ""))
    except ValueError:
        return None


def _ask_first(request, cluster: Cluster, exc: training.ConfirmFirst, board_query: str):
    """Going back was not confirmed: nothing changed. htmx gets the confirm step in place of
    #rewind-confirm; a plain form post goes back to the board, which asks there."""
    if request.htmx:
        return render(request, f"{TEMPLATE}#rewind-confirm", {"cluster": cluster, "ask": exc.discard})
    messages.error(request, str(exc))
    return redirect(reverse("cluster-detail", args=[cluster.pk]) + board_query)


@require_POST
def rewind(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        at = _moment(request)
        training.rewind(cluster, at, who=request.user.get_username(), confirmed=_confirmation(request))
    except training.ConfirmFirst as exc:
        return _ask_first(request, cluster, exc, f"?confirm_rewind={at:g}")
    except training.TrainingError as exc:
        messages.error(request, str(exc))
    return _redirect(request, reverse("cluster-detail", args=[cluster.pk]))


@require_POST
def fork_at(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    name = (request.POST.get("name") or "").strip() or f"{cluster.name}-fork"
    try:
        fork = training.fork_at(cluster, _moment(request), name)
    except (training.TrainingError, services.StoreError) as exc:
        messages.error(request, str(exc))
        return _redirect(request, reverse("cluster-detail", args=[cluster.pk]))
    return _redirect(request, reverse("cluster-detail", args=[fork.pk]))


@require_POST
def restart(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        training.restart(cluster, who=request.user.get_username(), confirmed=_confirmation(request))
    except training.ConfirmFirst as exc:
        return _ask_first(request, cluster, exc, "?confirm_restart=1")
    except training.TrainingError as exc:
        messages.error(request, str(exc))
    return _redirect(request, reverse("cluster-detail", args=[cluster.pk]))


@require_POST
def clean_copies(request, name: str):
    """Delete the extra copies of a scenario (name-2, name-3, ...) from the cluster list."""
    require_editor(request)
    if name not in SCENARIOS_BY_NAME:
        raise Http404("no such scenario")
    removed = training.delete_scenario_copies(name)
    messages.success(request, f"{removed} cop{'y' if removed == 1 else 'ies'} of {name} deleted")
    return _redirect(request, reverse("cluster-list"))


def _redirect(request, url: str):
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)
