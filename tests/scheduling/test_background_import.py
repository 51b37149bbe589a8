"""A large import runs off the request thread: the form answers at once with a progress bar,
other pages keep answering, and the outcome (the cluster, or why nothing was imported) is
shown when the job ends."""

from __future__ import annotations

import functools
import re
import time

import pytest
import yaml
from django.test import override_settings
from django.urls import reverse

from scheduling.models import Cluster, Pod
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

TOLERATIONS = 20_000


@functools.lru_cache
def _big_pod(name="patient", cpu="100m") -> str:
    tolerations = [{"key": f"k{i}", "operator": "Equal", "value": f"v{i}", "effect": "NoSchedule"} for i in range(TOLERATIONS)]
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}], "tolerations": tolerations},
    })


def _status_url(response) -> str:
    """The URL the progress bar polls (hx-get)."""
    return re.search(r'hx-get="(/imports/[^"]+)"', response.content.decode()).group(1)


def _poll(client, response):
    """Follow the progress bar's polling until the job answers something else."""
    url = _status_url(response)

    def finished():
        answer = client.get(url, HTTP_HX_REQUEST="true")
        return answer if answer.status_code != 200 or "HX-Redirect" in answer else None

    return wait_for(finished, timeout=120, interval=0.5, what="the background import to finish")


@override_settings(EMBEDDED=True)
def test_a_twenty_thousand_toleration_import_runs_in_the_background(editor_client):
    text = _big_pod()
    started = time.monotonic()
    response = editor_client.post(reverse("cluster-import"), {"name": "big", "text": text}, HTTP_HX_REQUEST="true")
    assert time.monotonic() - started < 5  # the request does not wait for the import
    assert response.status_code == 202 and '<progress id="import-bar-' in response.content.decode()
    assert editor_client.get(reverse("cluster-list")).status_code == 200  # other pages answer meanwhile
    done = _poll(editor_client, response)
    cluster = Cluster.objects.get(name="big")
    assert done.status_code == 200 and done["HX-Redirect"] == reverse("cluster-detail", args=[cluster.pk])
    pod = Pod.objects.get(cluster=cluster, name="patient")
    assert len(pod.document["spec"]["tolerations"]) >= TOLERATIONS
    assert time.monotonic() - started < 120  # generous: about 10 s on a loaded 2-core machine (was over 7 minutes)


SMALL = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"


@pytest.fixture
def small_imports_in_background(monkeypatch):
    from scheduling.store import imports

    monkeypatch.setattr(imports, "BACKGROUND_BYTES", 10)


@override_settings(EMBEDDED=True)
def test_a_refused_background_import_says_why_and_writes_nothing(editor_client, small_imports_in_background):
    bad = "apiVersion: v1\nkind: Pod\nmetadata: {name: second}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: '1e1000'}}}]\n"
    text = SMALL + "---\n" + bad
    response = editor_client.post(reverse("cluster-import"), {"name": "refused", "text": text}, HTTP_HX_REQUEST="true")
    assert response.status_code == 202
    refused = _poll(editor_client, response)
    assert refused.status_code == 422
    assert 'spec.containers[0].resources.requests[cpu]: Invalid value: &quot;1e1000&quot;' in refused.content.decode()
    assert not Cluster.objects.filter(name="refused").exists()


@override_settings(EMBEDDED=True)
def test_only_the_user_who_started_an_import_sees_it(editor_client, client, django_user_model, small_imports_in_background):
    from django.contrib.auth.models import Permission

    response = editor_client.post(reverse("cluster-import"), {"name": "mine", "text": SMALL}, HTTP_HX_REQUEST="true")
    other = django_user_model.objects.create_user("other", password="other-pass-123")
    other.user_permissions.add(Permission.objects.get(codename="edit_cluster"))
    client.force_login(other)
    assert client.get(_status_url(response)).status_code == 404
    _poll(editor_client, response)


@override_settings(EMBEDDED=True)
def test_a_background_import_replaces_a_cluster_only_when_confirmed(editor_client, small_imports_in_background):
    from scheduling.store import services

    old = services.create_cluster("taken")
    refused = editor_client.post(reverse("cluster-import"), {"name": "taken", "text": SMALL}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 422 and "Replace cluster taken" in refused.content.decode()
    started = editor_client.post(reverse("cluster-import"), {"name": "taken", "text": SMALL, "replace": "taken"},
                                 HTTP_HX_REQUEST="true")
    assert started.status_code == 202
    done = _poll(editor_client, started)
    new = Cluster.objects.get(name="taken")
    assert done["HX-Redirect"] == reverse("cluster-detail", args=[new.pk]) and new.pk != old.pk
    assert Cluster.objects.filter(name="taken").count() == 1
