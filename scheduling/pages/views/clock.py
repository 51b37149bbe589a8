"""The clock controls of the cluster page: play, pause, speed, step."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from scheduling.pages import board, forms
from scheduling.store import clock
from scheduling.models import Cluster
from scheduling.store.permissions import get_cluster_for_user
from scheduling.pages.views.common import form_errors

SPEEDS = (1, 10, 60, 120, 300, 600)
STEPS = ((10, "+10 s"), (60, "+1 min"), (600, "+10 min"))


def clock_context(cluster: Cluster) -> dict:
    return {"cluster": cluster, "clock_text": board.format_clock(cluster.now), "speeds": SPEEDS, "steps": STEPS}


@require_POST
def clock_action(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    form = forms.ClockForm(request.POST)
    if not form.is_valid():
        return HttpResponse(form_errors(form), status=400)
    action = form.cleaned_data["action"]
    if action == "play":
        clock.play(cluster, form.cleaned_data["speed"])
    elif action == "pause":
        clock.pause(cluster)
    elif action == "speed":
        if form.cleaned_data["speed"] is None:
            return HttpResponse("choose a speed", status=400)
        clock.set_speed(cluster, form.cleaned_data["speed"])
    else:
        clock.step(cluster, float(action.split("-", 1)[1]))
    cluster.refresh_from_db()
    if request.htmx:
        return render(request, "scheduling/cluster_detail.html#clock", {**clock_context(cluster), "can_edit": True})
    return redirect("cluster-detail", pk=cluster.pk)


def clock_fragment(cluster: Cluster) -> str:
    """The clock, out of band (the broadcast, when the cluster itself changed)."""
    return render_to_string("scheduling/cluster_detail.html#clock", {**clock_context(cluster), "oob": True})
