"""Training mode on the existing pages: the follow bar (base.html), the script and rewind
section (the cluster page), the "Ask the room first" button (the what-if preview)."""

from django import template
from django.template.loader import render_to_string

from scheduling.training import fragments as training_fragments
from scheduling.training import views as training_views
from scheduling.models import TrainingSession
from scheduling.store.permissions import can_edit

register = template.Library()


@register.simple_tag(takes_context=True)
def training_bar(context) -> str:
    request = context.get("request")
    if request is None or not hasattr(request, "session"):
        return ""
    session, role, attendee = training_views.current(request)
    if session is None:
        return ""
    ctx = training_views.session_context(request, session, role, attendee)
    ctx.update(training_fragments.question_context(session, role, attendee))
    ctx["view"] = session.view or {}
    if role == "instructor":
        ctx.update(training_fragments.presence_context(session))
    return render_to_string(f"{training_fragments.TEMPLATE}#bar", ctx, request=request)


@register.simple_tag(takes_context=True)
def training_script(context) -> str:
    request, cluster = context.get("request"), context.get("cluster")
    if request is None or cluster is None:
        return ""
    return render_to_string(f"{training_fragments.TEMPLATE}#script", training_views.script_context(request, cluster), request=request)


@register.simple_tag(takes_context=True)
def training_ask(context) -> str:
    request, cluster = context.get("request"), context.get("cluster")
    if request is None or cluster is None or not can_edit(request.user):
        return ""
    session = TrainingSession.objects.filter(cluster=cluster, closed_at__isnull=True).first()
    if session is None:
        return ""
    return render_to_string(f"{training_fragments.TEMPLATE}#ask-button", {"cluster": cluster, "session": session}, request=request)
