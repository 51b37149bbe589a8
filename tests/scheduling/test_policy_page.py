"""The scheduler policy page: the policy as JSON/YAML, validation with clear errors, the
documentation's samples one click away, saving, and where the pending pods go under two policies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from scheduling.store import services
from scheduling.engine.scheduler.sample_policies import SAMPLE_POLICIES
from scheduling.models import Cluster

DEMO = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "demo-cluster.yaml"


@pytest.fixture
def demo(db):
    return services.import_new_cluster("demo", DEMO.read_text(), DEMO.name)


def act(client, cluster, **data):
    return client.post(reverse("policy-action", args=[cluster.pk]), data, HTTP_HX_REQUEST="true")


def test_without_a_policy_the_page_shows_the_default_one(client, demo):
    body = client.get(reverse("policy", args=[demo.pk])).content.decode()
    assert "the default policy" in body
    assert "&quot;name&quot;: &quot;PodToleratesNodeTaints&quot;" in body  # JSON
    assert "- name: PodToleratesNodeTaints" in body  # YAML
    for name in SAMPLE_POLICIES:
        assert f'value="sample:{name}"' in body


def test_a_sample_is_one_click_away(client, demo):
    body = act(client, demo, action="sample:require-region-zone-preferred").content.decode()
    assert "RequireRegion" in body and "sample policy &quot;require-region-zone-preferred&quot; loaded" in body


@pytest.mark.parametrize(
    "text, error",
    [
        pytest.param("{not json", "error parsing the Policy at line 1", id="unparsable text"),
        pytest.param(json.dumps({"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "NoSuchPredicate"}]}),
                     "Invalid configuration: Predicate type not found for &quot;NoSuchPredicate&quot;", id="unknown predicate"),
        pytest.param(json.dumps({"kind": "Policy", "apiVersion": "v1", "priorities": [{"name": "LeastRequestedPriority", "weight": 0}]}),
                     "Priority LeastRequestedPriority should have a positive weight applied to it or it has overflown", id="zero weight"),
    ],
)
def test_an_invalid_policy_is_explained_and_not_saved(editor_client, demo, text, error):
    response = editor_client.post(reverse("policy-action", args=[demo.pk]), {"action": "save", "text": text})
    assert response.status_code == 422
    body = response.content.decode()
    assert "The policy is not valid; nothing was saved." in body and error in body
    assert Cluster.objects.get(pk=demo.pk).policy is None


def test_an_editor_saves_a_policy_and_resets_to_the_default(editor_client, demo):
    sample = SAMPLE_POLICIES["modified"]
    body = act(editor_client, demo, action="save", text=json.dumps(sample)).content.decode()
    assert "policy saved" in body
    assert Cluster.objects.get(pk=demo.pk).policy == sample
    act(editor_client, demo, action="save", text="")
    assert Cluster.objects.get(pk=demo.pk).policy is None


def test_yaml_is_accepted_and_validate_writes_nothing(client, demo):
    text = "kind: Policy\nversion: v1\npredicates:\n- name: PodFitsResources\npriorities:\n- {name: LeastRequestedPriority, weight: 1}\n"
    body = act(client, demo, action="validate", text=text).content.decode()
    assert "the policy is valid" in body
    assert Cluster.objects.get(pk=demo.pk).policy is None


def test_two_policies_side_by_side_for_the_pending_pods(client, demo):
    # Under the demo's default policy new-pod-key1 stays pending (key2 is not tolerated);
    # a policy without the taint predicate lets it go to node1 (its node selector).
    lax = {"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "MatchNodeSelector"}, {"name": "PodFitsResources"}],
           "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}
    body = act(client, demo, action="compare", a="current", b="edited", text=json.dumps(lax)).content.decode()
    rows = dict(re.findall(r"<td>(default/[a-z0-9-]+)</td>\s*<td>(.*?)</td>", body, re.S))
    assert set(rows) == {"default/new-pod-key1", "default/ssd-cache", "default/group-job", "default/batch-huge"}
    assert "Pending" in rows["default/new-pod-key1"]
    row = body[body.index("<td>default/new-pod-key1</td>"):]
    row = row[:row.index("</tr>")]
    assert row.rstrip().endswith("<td>node1</td>")
    assert '<tr class="differs">' in body


def test_an_editor_switches_admission_plugins_and_preemption(editor_client):
    from scheduling.store import services
    from scheduling.models import Cluster, Pod

    cluster = services.create_cluster("switches")
    response = editor_client.post(
        f"/clusters/{cluster.pk}/settings", {"admission": ["Priority", "DaemonSetTolerations"]}
    )
    assert response.status_code == 302
    cluster.refresh_from_db()
    assert cluster.preemption_enabled is False
    assert cluster.admission == {"PodNodeConstraints": False, "OriginPodNodeEnvironment": False, "PodNodeSelector": False,
                                 "PodTolerationRestriction": False, "DefaultTolerationSeconds": False, "ControlPlaneTaint": False}
    # DefaultTolerationSeconds is off: a new pod keeps exactly the tolerations it was given
    services.import_documents(cluster, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n")
    assert "tolerations" not in Pod.objects.get(cluster=cluster, name="p").spec
    page = editor_client.get(f"/clusters/{cluster.pk}/policy").content.decode()
    assert 'value="DefaultTolerationSeconds">' in page and 'value="Priority" checked>' in page


def test_with_default_admission_a_new_pod_gets_the_300s_tolerations(editor_client):
    from scheduling.store import services
    from scheduling.models import Pod

    cluster = services.create_cluster("defaults")
    services.import_documents(cluster, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n")
    keys = {(t["key"], t.get("tolerationSeconds")) for t in Pod.objects.get(cluster=cluster, name="p").spec["tolerations"]}
    assert keys == {("node.kubernetes.io/not-ready", 300), ("node.kubernetes.io/unreachable", 300)}


def test_a_viewer_cannot_switch_admission(viewer_client):
    from scheduling.store import services

    cluster = services.create_cluster("locked")
    assert viewer_client.post(f"/clusters/{cluster.pk}/settings", {"admission": []}).status_code == 403
    cluster.refresh_from_db()
    assert cluster.admission == {} and cluster.preemption_enabled is True


def test_an_editor_configures_the_node_selection_plugins_and_imports_obey_them(editor_client):
    from scheduling.store import kube, services

    cluster = services.create_cluster("node-selection")
    config = ("apiVersion: v1\nkind: PodNodeConstraintsConfig\nnodeSelectorLabelBlacklist: [region]\n---\n"
              "apiVersion: v1\nkind: MasterConfig\nprojectConfig: {defaultNodeSelector: 'type=user-node'}\n")
    response = editor_client.post(f"/clusters/{cluster.pk}/admission-config", {"config": config})
    assert response.status_code == 302
    cluster.refresh_from_db()
    assert [d["kind"] for d in cluster.admission_config["documents"]] == ["PodNodeConstraintsConfig", "MasterConfig"]
    assert cluster.admission_config["userCanBind"] is False
    with pytest.raises(kube.DocumentError) as exc:
        services.import_documents(cluster, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                           "spec: {nodeSelector: {region: east}, containers: [{name: c, image: nginx}]}\n")
    assert str(exc.value) == 'pods "p" is forbidden: node selection by label(s) [region] is prohibited by policy for your role'
    services.import_documents(cluster, "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
                                       "apiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: team}\nspec: {containers: [{name: c, image: nginx}]}\n")
    from scheduling.models import Pod

    assert Pod.objects.get(cluster=cluster, name="q").spec["nodeSelector"] == {"type": "user-node"}
    page = editor_client.get(f"/clusters/{cluster.pk}/policy").content.decode()
    assert '<tr id="ns-selector-team"><td>team</td><td><code>type=user-node</code></td><td>projectConfig.defaultNodeSelector</td></tr>' in page


def test_a_bad_admission_configuration_is_not_saved(editor_client):
    from scheduling.store import services

    cluster = services.create_cluster("bad-node-selection")
    response = editor_client.post(f"/clusters/{cluster.pk}/admission-config", {"config": "apiVersion: v1\nkind: Pod\n"}, follow=True)
    assert "the admission configuration was not saved: document 1: kind &#x27;Pod&#x27; is not one of PodNodeConstraintsConfig, PodNodeSelectorConfig, MasterConfig" in response.content.decode()
    cluster.refresh_from_db()
    assert cluster.admission_config == {}


def test_unparsable_admission_configuration_gets_the_one_yaml_error_message(editor_client):
    from scheduling.store import services

    cluster = services.create_cluster("unparsable-node-selection")
    response = editor_client.post(f"/clusters/{cluster.pk}/admission-config",
                                  {"config": "apiVersion: v1\nkind: MasterConfig\nprojectConfig: [x\n"}, follow=True)
    assert ("the admission configuration was not saved: error parsing the admission configuration at line 4, column 1: "
            "did not find expected &#x27;,&#x27; or &#x27;]&#x27;") in response.content.decode()
    cluster.refresh_from_db()
    assert cluster.admission_config == {}


def test_running_pods_are_scored_under_both_policies(client, demo):
    # A: the default policy, under which running-on-node1 (placed before key2=value2:NoSchedule)
    # would not fit node1 again; B: no taint predicate, LeastRequestedPriority only
    least = {"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "GeneralPredicates"}],
             "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}
    body = act(client, demo, action="compare", a="current", b="edited", text=json.dumps(least)).content.decode()
    assert "Running pods under both policies" in body
    row = body[body.index('<tr data-running="default/running-on-node1"'):]
    row = row[:row.index("</tr>")]
    cells = re.findall(r"<td>(.*?)</td>", row, re.S)
    assert cells[0] == "node1"
    assert re.fullmatch(r'<span class="fail">would not fit node1</span>; best [a-z0-9, -]+ \(\d+\)', cells[1]), cells[1]
    assert re.fullmatch(r"node1 scores <strong>\d+</strong>; best [a-z0-9, -]+ \(\d+\)", cells[2]), cells[2]
    assert not re.search(r"\b1000\d\d\b", row)  # avoid-pods left out of the totals
