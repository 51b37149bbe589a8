"""Helpers the page modules share."""

from __future__ import annotations

import re

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse

from scheduling.store import services
from scheduling.models import Cluster


def page_urls(cluster: Cluster) -> dict:
    """URL prefixes the templates join with names (no reverse() per pod chip)."""
    return {
        "pod_base": reverse("cluster-detail", args=[cluster.pk]) + "pods/",
        "node_base": reverse("cluster-detail", args=[cluster.pk]) + "nodes/",
    }


def error_status(request, status: int) -> int:
    """htmx requests get 200 for a refused change too: the fragment (with its role="alert"
    message) is what the page swaps in, and browsers log every 4xx response as a console
    error. Plain form posts get the real status."""
    return 200 if request.htmx else status


def panel(request, template: str, partial: str, context: dict, status: int = 200):
    """A panel of the cluster page (htmx) or the same content as a page of its own."""
    if request.htmx:
        return render(request, f"{template}#{partial}", context, status=status)
    return render(request, template, context, status=status)


APPLIED = re.compile(r"^[a-z]+/[a-z0-9][-a-z0-9.]{0,252} [a-z]+$")


def applied(request) -> str:
    """The confirmation shown after an apply ("node/node2 tainted"), passed back by URL;
    anything else is ignored (a link must not put words in the page's mouth)."""
    text = request.GET.get("applied") or ""
    return text if APPLIED.match(text) else ""


def object_or_404(cluster: Cluster, kind: str, name: str, namespace: str = ""):
    try:
        return services.get_object(cluster, kind, name, namespace)
    except services.NotFound as exc:
        raise Http404(str(exc)) from None


def form_errors(form) -> str:
    return "; ".join(e for errs in form.errors.values() for e in errs)
