"""The progress of a background import (scheduling.store.imports): started by the import form,
polled by the progress bar (htmx every second, or a refreshing page without JavaScript)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect

from scheduling.pages import forms
from scheduling.store import imports
from scheduling.store.permissions import require_editor


def started(request, job: imports.Job):
    """The answer to the import form's POST when the import runs in the background."""
    template = "scheduling/import_progress.html#import-progress" if request.htmx else "scheduling/import_progress.html"
    return render(request, template, {"job": job}, status=202)


@require_GET
def import_status(request, job_id: str):
    require_editor(request)
    job = imports.status(job_id, request.user.pk)
    if job is None:
        raise Http404("no such import")
    if job.phase == "done":
        url = reverse("cluster-detail", args=[job.cluster_id])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if job.phase == "failed":
        form = forms.ImportForm(initial={"name": job.name})
        return render(request, "scheduling/import_progress.html#import-failed" if request.htmx else "scheduling/import_progress.html",
                      {"job": job, "import_form": form}, status=422)
    template = "scheduling/import_progress.html#import-progress" if request.htmx else "scheduling/import_progress.html"
    return render(request, template, {"job": job})
