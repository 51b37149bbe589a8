"""The cluster list and cluster page: anyone may look, only editors change."""

import pytest
from django.urls import reverse

from scheduling.store import services
from scheduling.models import Cluster, Node

pytestmark = pytest.mark.django_db

NODE_YAML = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"


def test_anyone_can_see_the_cluster_list(client):
    services.create_cluster("visible", description="<b>bold</b>")
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "visible" in body
    assert "&lt;b&gt;bold&lt;/b&gt;" in body  # descriptions are escaped
    assert "New empty cluster" not in body  # no change forms for anonymous visitors


@pytest.mark.parametrize(
    "url_name, args, data",
    [
        pytest.param("cluster-create", [], {"name": "x"}, id="create"),
        pytest.param("cluster-import", [], {"name": "x", "text": NODE_YAML}, id="import"),
        pytest.param("cluster-fork", ["PK"], {"name": "x"}, id="fork"),
        pytest.param("cluster-delete", ["PK"], {}, id="delete"),
    ],
)
@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_changes_are_refused_without_edit_rights(client, viewer, who, url_name, args, data):
    cluster = services.create_cluster("target")
    if who == "viewer":
        client.force_login(viewer)
    url = reverse(url_name, args=[cluster.pk if a == "PK" else a for a in args])
    response = client.post(url, data)
    assert response.status_code == 403
    assert list(Cluster.objects.values_list("name", flat=True)) == ["target"]


def test_posts_need_a_csrf_token(editor):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(reverse("cluster-create"), {"name": "x"}).status_code == 403
    assert not Cluster.objects.filter(name="x").exists()


def test_an_editor_creates_a_cluster(editor_client):
    response = editor_client.post(reverse("cluster-create"), {"name": "new-one", "description": "d"})
    cluster = Cluster.objects.get(name="new-one")
    assert response.status_code == 302 and response["Location"] == reverse("cluster-detail", args=[cluster.pk])


def test_an_editor_imports_pasted_yaml(editor_client):
    response = editor_client.post(reverse("cluster-import"), {"name": "pasted", "text": NODE_YAML}, HTTP_HX_REQUEST="true")
    cluster = Cluster.objects.get(name="pasted")
    assert response.status_code == 200 and response["HX-Redirect"] == reverse("cluster-detail", args=[cluster.pk])
    assert Node.objects.filter(cluster=cluster, name="n1").exists()


def test_an_editor_imports_an_uploaded_file(editor_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("nodes.yaml", NODE_YAML.encode(), content_type="application/yaml")
    editor_client.post(reverse("cluster-import"), {"name": "uploaded", "file": upload})
    assert Node.objects.filter(cluster__name="uploaded", name="n1").exists()


def test_import_errors_are_shown_inline_and_nothing_is_written(editor_client):
    bad = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: NoExcute}]}\n"
    response = editor_client.post(reverse("cluster-import"), {"name": "broken", "text": bad}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    body = response.content.decode()
    assert 'id="import-form"' in body
    assert "Nothing was imported" in body
    assert "metadata.taints[0].effect: Unsupported value: &quot;NoExcute&quot;" in body
    assert not Cluster.objects.filter(name="broken").exists()


def test_export_downloads_yaml(client):
    cluster = services.create_cluster("exp")
    services.import_documents(cluster, NODE_YAML)
    response = client.get(reverse("cluster-export", args=[cluster.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="exp.yaml"'
    assert "kind: Node" in response.content.decode()


def test_an_editor_forks_and_deletes(editor_client):
    cluster = services.create_cluster("orig")
    services.import_documents(cluster, NODE_YAML)
    editor_client.post(reverse("cluster-fork", args=[cluster.pk]), {"name": "orig-copy"})
    assert Node.objects.filter(cluster__name="orig-copy", name="n1").exists()
    editor_client.post(reverse("cluster-delete", args=[cluster.pk]))
    assert list(Cluster.objects.values_list("name", flat=True)) == ["orig-copy"]


def test_the_cluster_page_shows_the_objects_and_opens_the_socket(client):
    cluster = services.create_cluster("page")
    services.import_documents(cluster, NODE_YAML)
    body = client.get(reverse("cluster-detail", args=[cluster.pk])).content.decode()
    assert 'ws-connect="/ws/clusters/%d/"' % cluster.pk in body
    assert 'data-kind="Node">Node: 1<' in body


# --- an import into a name that is taken: refused, unless "Replace cluster <name>" confirms ------------

OTHER_YAML = "apiVersion: v1\nkind: Node\nmetadata: {name: imported-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: imported-2}\n"


def _taken(name: str = "demo") -> Cluster:
    cluster = services.create_cluster(name, description="the old one")
    services.import_documents(cluster, NODE_YAML)
    return Cluster.objects.get(pk=cluster.pk)


def test_an_import_into_a_taken_name_is_refused_and_offers_to_replace_it(editor_client):
    old = _taken()
    response = editor_client.post(reverse("cluster-import"), {"name": "demo", "text": OTHER_YAML}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    body = response.content.decode()
    assert "a cluster named &quot;demo&quot; already exists. To replace its contents with this import, press " in body
    assert '<button type="submit" name="replace" value="demo" class="danger">Replace cluster demo</button>' in body
    assert "kind: Node\nmetadata: {name: imported-1}" in body  # the text comes back, to confirm with
    assert list(Cluster.objects.values_list("pk", flat=True)) == [old.pk]
    assert list(Node.objects.filter(cluster=old).values_list("name", flat=True)) == ["n1"]


def test_replace_cluster_name_puts_the_import_in_its_place(editor_client):
    old = _taken()
    response = editor_client.post(reverse("cluster-import"), {"name": "demo", "text": OTHER_YAML, "replace": "demo"},
                                  HTTP_HX_REQUEST="true")
    new = Cluster.objects.get(name="demo")
    assert response["HX-Redirect"] == reverse("cluster-detail", args=[new.pk])
    assert new.pk != old.pk and not Cluster.objects.filter(pk=old.pk).exists()
    assert sorted(Node.objects.filter(cluster=new).values_list("name", flat=True)) == ["imported-1", "imported-2"]
    assert not Node.objects.filter(cluster_id=old.pk).exists()


def test_a_confirmation_for_another_name_replaces_nothing(editor_client):
    old, other = _taken(), _taken("other")
    response = editor_client.post(reverse("cluster-import"), {"name": "other", "text": OTHER_YAML, "replace": "demo"},
                                  HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "Replace cluster other" in response.content.decode()
    assert sorted(Cluster.objects.values_list("pk", flat=True)) == sorted([old.pk, other.pk])


def test_an_invalid_import_replaces_nothing(editor_client):
    old = _taken()
    bad = OTHER_YAML + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n9}\nspec: {taints: [{key: k, effect: NoExcute}]}\n"
    response = editor_client.post(reverse("cluster-import"), {"name": "demo", "text": bad, "replace": "demo"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "Nothing was imported" in response.content.decode()
    assert list(Cluster.objects.values_list("pk", "description")) == [(old.pk, "the old one")]
    assert list(Node.objects.filter(cluster=old).values_list("name", flat=True)) == ["n1"]


def test_a_write_that_fails_half_way_leaves_the_old_cluster_whole(editor_client, monkeypatch):
    """Valid documents, but the write fails after the old cluster was deleted and some rows
    written: the transaction puts everything back."""
    old = _taken()
    real = services.apply_documents

    def fails_after_writing(cluster, docs):
        real(cluster, docs[:1])
        raise services.StoreError("the disk is full")

    monkeypatch.setattr(services, "apply_documents", fails_after_writing)
    response = editor_client.post(reverse("cluster-import"), {"name": "demo", "text": OTHER_YAML, "replace": "demo"},
                                  HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "the disk is full" in response.content.decode()
    assert list(Cluster.objects.values_list("pk", flat=True)) == [old.pk]
    assert list(Node.objects.values_list("cluster_id", "name")) == [(old.pk, "n1")]


def test_a_scenario_loads_without_its_script_for_doing_the_steps_by_hand(editor_client):
    body = editor_client.get(reverse("cluster-list")).content.decode()
    assert body.count('<input type="hidden" name="script" value="off">') == len(services.scripted_scenarios()) > 0
    assert "eus-to-eus-update" in services.scripted_scenarios()
    editor_client.post(reverse("scenario-load", args=["eus-to-eus-update"]), {"script": "off"})
    editor_client.post(reverse("scenario-load", args=["eus-to-eus-update"]))
    bare, scripted = Cluster.objects.get(name="eus-to-eus-update"), Cluster.objects.get(name="eus-to-eus-update-2")
    assert not (bare.controller_state or {}).get("timelines") and (scripted.controller_state or {}).get("timelines")
    assert Node.objects.filter(cluster=bare).count() == Node.objects.filter(cluster=scripted).count() == 9
    assert bare.description.endswith("(loaded without its script: do the steps yourself)")
