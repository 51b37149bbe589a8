"""Text the databases can store, names Kubernetes would accept."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from scheduling.models import Cluster

DNS_LABEL = (
    "a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, message",
    [
        pytest.param("", "cluster name: Required value", id="an empty name"),
        pytest.param("/", f'cluster name: Invalid value: "/": {DNS_LABEL}', id="a slash"),
        pytest.param("<b>x</b>", f'cluster name: Invalid value: "<b>x</b>": {DNS_LABEL}', id="html"),
        pytest.param("a" * 300, 'cluster name: Invalid value: "' + "a" * 300 + '": must be no more than 63 characters', id="300 characters"),
        pytest.param("Upper", f'cluster name: Invalid value: "Upper": {DNS_LABEL}', id="uppercase"),
    ],
)
def test_import_cluster_refuses_names_kubernetes_would_refuse(tmp_path, name, message):
    path = tmp_path / "node.yaml"
    path.write_text(NODE)
    with pytest.raises(CommandError) as refused:
        call_command("import_cluster", name, str(path), stdout=io.StringIO())
    assert refused.value.returncode == 2 and str(refused.value) == message
    assert not Cluster.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["", "/", "<b>x</b>", "a" * 300, "nul\x00name"])
def test_the_web_forms_refuse_those_names(editor_client, name):
    created = editor_client.post(reverse("cluster-create"), {"name": name})
    imported = editor_client.post(reverse("cluster-import"), {"name": name, "text": NODE})
    assert created.status_code == imported.status_code == 422
    assert not Cluster.objects.exists()


@pytest.mark.django_db
def test_pasted_text_with_a_nul_gets_the_real_reason(editor_client):
    response = editor_client.post(reverse("cluster-import"), {"name": "pasted", "text": NODE + "# \x00\n"})
    body = response.content.decode()
    assert response.status_code == 422
    assert "Null characters are not allowed." in body and "upload a file or paste YAML" not in body
    assert not Cluster.objects.exists()
