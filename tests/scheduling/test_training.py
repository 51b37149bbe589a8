"""Training mode: sessions, read-only attendees, the script, predict-then-reveal,
rewind and restart, on the stored cluster (the browser tests drive the same through pages)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from scheduling.store import clock, reconcile, services, snapshots
from scheduling.training import sessions as training
from scheduling.models import Attendee, Cluster, ClusterSnapshot, Event, KIND_MODELS, Question, TrainingSession
from scheduling.store.script import cluster_script

pytestmark = pytest.mark.django_db


def play(cluster: Cluster, seconds: float, step: float = 10.0) -> Cluster:
    """Step the clock as the beat would, reconciling after each step."""
    remaining = seconds
    while remaining > 0:
        delta = min(step, remaining)
        clock.step(Cluster.objects.get(pk=cluster.pk), delta)
        reconcile.reconcile(cluster.pk)
        remaining -= delta
    return Cluster.objects.get(pk=cluster.pk)


def loaded(name: str) -> Cluster:
    cluster = services.load_scenario(name)
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def recorded_state(cluster: Cluster) -> tuple[list, list]:
    """Every object (kind, namespace, name, document) and every event as a user sees them."""
    objects = []
    for kind, model in KIND_MODELS.items():
        for obj in model.objects.filter(cluster=cluster).order_by("namespace", "name"):
            doc = obj.document
            doc["metadata"].pop("resourceVersion", None)
            objects.append((kind, obj.namespace, obj.name, json.dumps(doc, sort_keys=True)))
    events = [
        (e.first_time, e.last_time, e.count, e.type, e.reason, e.involved_kind, e.involved_namespace, e.involved_name, e.message)
        for e in Event.objects.filter(cluster=cluster).exclude(reason__in=("Rewound", "Forked", "Restarted")).order_by("id")
    ]
    return objects, events


def confirmation(cluster: Cluster) -> int:
    """What the confirm step of a rewind or restart posts: the revision the user was shown."""
    return Cluster.objects.get(pk=cluster.pk).revision


def join(client, code: str, name: str):
    return client.post(reverse("training-join"), {"code": code, "name": name})


# --- sessions ------------------------------------------------------------------------------------------


def test_an_editor_starts_a_session_and_gets_a_code_a_link_and_a_qr_code(editor_client):
    cluster = loaded("toleration-seconds")
    response = editor_client.post(reverse("training-start", args=[cluster.pk]))
    session = TrainingSession.objects.get(cluster=cluster)
    assert response.status_code == 302 and response["Location"] == f"/training/{session.code}/"
    assert len(session.code) == 8 and set(session.code) <= set(training.CODE_ALPHABET)
    body = editor_client.get(response["Location"]).content.decode()
    assert f"http://testserver/training/join/{session.code}" in body
    assert "<svg" in body and f"{session.code[:4]} {session.code[4:]}" in body
    svg = editor_client.get(reverse("training-qr", args=[session.code]))
    assert svg["Content-Type"] == "image/svg+xml" and svg.content.startswith(b"<svg")


def test_a_viewer_cannot_start_a_session(viewer_client):
    cluster = loaded("toleration-seconds")
    assert viewer_client.post(reverse("training-start", args=[cluster.pk])).status_code == 403
    assert not TrainingSession.objects.exists()


@pytest.mark.parametrize(
    "code, name, message",
    [
        pytest.param("WRONG1", "Ana", "no open training session has this code: check it with your instructor", id="a wrong code"),
        pytest.param(None, "   ", "choose a name the instructor will see", id="no name"),
        pytest.param(None, "x" * 41, "a name has at most 40 characters", id="a name too long"),
    ],
)
def test_joining_is_refused_with_a_reason(client, editor, code, name, message):
    session = training.start_session(loaded("toleration-seconds"), editor)
    response = join(client, code or session.code, name)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not Attendee.objects.exists()


def test_an_attendee_joins_with_a_name_and_lands_on_the_instructors_page(client, editor):
    cluster = loaded("toleration-seconds")
    session = training.start_session(cluster, editor)
    training.set_view(session, f"/clusters/{cluster.pk}/?big=1", f"/clusters/{cluster.pk}/nodes/node1/")
    response = join(client, session.code.lower(), "  Ana  Lima ")
    assert response.status_code == 302 and response["Location"] == f"/clusters/{cluster.pk}/?big=1"
    assert Attendee.objects.get().name == "Ana Lima"
    page = client.get(response["Location"]).content.decode()
    assert 'id="training-bar"' in page and "You are <strong>Ana Lima</strong>" in page
    assert client.get(reverse("training-view", args=[session.code])).json() == {
        "url": f"/clusters/{cluster.pk}/?big=1", "panel": f"/clusters/{cluster.pk}/nodes/node1/",
    }


def test_only_pages_of_this_site_can_be_shown_to_the_room(editor_client, editor):
    session = training.start_session(loaded("toleration-seconds"), editor)
    for url in ("https://elsewhere.example/", "//elsewhere.example/x", "javascript:alert(1)"):
        response = editor_client.post(reverse("training-view", args=[session.code]), {"url": url})
        assert response.status_code == 400
        assert response.content.decode() == "only pages of this site can be shown to the room"


def test_an_attendee_cannot_change_anything_over_http(client, editor):
    cluster = loaded("toleration-seconds")
    session = training.start_session(cluster, editor)
    join(client, session.code, "Bo")
    node = services.get_object(cluster, "Node", "node1")
    doc = node.document
    doc["spec"]["taints"] = []
    question = training.ask_about_edit(session, doc, node.resource_version)
    before = (Cluster.objects.get(pk=cluster.pk).now, Cluster.objects.get(pk=cluster.pk).revision)
    posts = [
        (reverse("clock-action", args=[cluster.pk]), {"action": "play"}),
        (reverse("clock-action", args=[cluster.pk]), {"action": "step-600"}),
        (reverse("apply-edit", args=[cluster.pk]), {"document": json.dumps(doc), "resource_version": node.resource_version}),
        (reverse("training-view", args=[session.code]), {"url": "/"}),
        (reverse("training-close", args=[session.code]), {}),
        (reverse("training-question-action", args=[session.code, question.pk, "reveal"]), {}),
        (reverse("training-ask-edit", args=[cluster.pk]), {"document": json.dumps(doc), "resource_version": node.resource_version}),
        (reverse("training-ask-step", args=[cluster.pk]), {}),
        (reverse("training-script-action", args=[cluster.pk, "next"]), {}),
        (reverse("training-rewind", args=[cluster.pk]), {"at": "0"}),
        (reverse("training-fork-at", args=[cluster.pk]), {"at": "0", "name": "copy"}),
        (reverse("training-restart", args=[cluster.pk]), {}),
        (reverse("training-start", args=[cluster.pk]), {}),
        (reverse("cluster-delete", args=[cluster.pk]), {}),
    ]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    after = Cluster.objects.get(pk=cluster.pk)
    assert (after.now, after.revision) == before
    assert not Question.objects.filter(revealed=True).exists()
    assert TrainingSession.objects.get().is_open and Cluster.objects.count() == 1


def test_the_instructors_presence_fragment_still_answers_once_the_session_is_closed(editor_client, editor):
    """Attendees leaving after the close make the instructor's page refetch who is connected:
    a 404 there was logged as an error by the instructor's browser."""
    session = training.start_session(services.create_cluster("closing"), editor)
    ana = Client()
    join(ana, session.code, "Ana")
    training.close_session(session)
    response = editor_client.get(reverse("training-presence", args=[session.code]))
    assert response.status_code == 200 and 'id="training-presence"' in response.content.decode()
    assert ana.get(reverse("training-presence", args=[session.code])).status_code == 403  # editors only


def test_closing_the_session_ends_the_attendees_view(editor_client, editor):
    client = Client()
    cluster = loaded("toleration-seconds")
    session = training.start_session(cluster, editor)
    join(client, session.code, "Cy")
    assert editor_client.post(reverse("training-close", args=[session.code])).status_code == 302
    assert not TrainingSession.objects.get().is_open
    page = client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert 'id="training-bar"' not in page
    assert client.get(reverse("training-view", args=[session.code])).status_code == 404
    assert "The training session has ended" in client.get(reverse("training-ended", args=[session.code])).content.decode()


# --- the script --------------------------------------------------------------------------------------------


def test_the_script_lists_the_steps_with_times_and_descriptions_and_its_end(client):
    cluster = loaded("toleration-seconds")
    script = cluster_script(cluster)
    assert [(s.time_text, s.text) for s in script.steps] == [
        ("t=0 s", "node1 and node2 are tainted key1=value1:NoExecute: both pods tolerate it for 3600 s (evictions due at t=3600)"),
        ("t=1800 s", "the taint is removed from node1 before its pod's 3600 s are up: that pod is never evicted"),
    ]
    assert script.end_text == "t=4000 s"  # the scenario's until: the eviction at 3600 is part of it
    page = client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert "Script: tolerationSeconds: evicted after 3600 s, unless the taint goes first" in page
    assert "Next at t=1800 s" in page
    assert '<li data-at="0.0" class="done current"><span class="sim-time">t=0 s</span> node1 and node2' in page
    assert "End of the script" in page


def test_event_times_show_the_simulated_clock_with_the_age_beside(client):
    cluster = play(loaded("default-toleration-seconds"), 120)
    page = client.get(f"/clusters/{cluster.pk}/").content.decode()
    event = Event.objects.filter(cluster=cluster, reason="NodeNotReady").first() or Event.objects.filter(cluster=cluster).last()
    age = int(cluster.now - event.last_time)
    assert f'<span class="sim-time" title="simulated time ' in page
    assert f">t={event.last_time:.0f} s</span> <span class=\"hint age\">{age}s</span>" in page or f">t={event.last_time:.0f} s</span> <span class=\"hint age\">{age // 60}m</span>" in page


def test_run_to_the_next_step_then_to_the_end_then_nothing(editor_client):
    cluster = loaded("toleration-seconds")
    url = reverse("training-script-action", args=[cluster.pk, "next"])
    editor_client.post(url)
    assert Cluster.objects.get(pk=cluster.pk).now == 1800
    editor_client.post(url)
    assert Cluster.objects.get(pk=cluster.pk).now == 4000
    body = editor_client.post(url).content.decode()
    assert "the script has ended: nothing left to run to" in body
    assert Cluster.objects.get(pk=cluster.pk).now == 4000


def test_a_running_clock_stops_at_the_end_of_the_script_unless_told_to_go_on(editor_client):
    cluster = loaded("multiple-taints")  # ends at t=60
    clock.play(cluster, 60)
    Cluster.objects.filter(pk=cluster.pk).update(now=75.0)  # the beat moved past the end
    assert clock.hold_at_script_end(cluster.pk)
    held = Cluster.objects.get(pk=cluster.pk)
    assert (held.now, held.paused) == (60.0, True)
    reconcile.reconcile(cluster.pk)

    editor_client.post(reverse("training-script-action", args=[cluster.pk, "go-on"]))
    clock.play(held, 60)
    Cluster.objects.filter(pk=cluster.pk).update(now=90.0)
    assert not clock.hold_at_script_end(cluster.pk)
    assert Cluster.objects.get(pk=cluster.pk).now == 90.0


# --- predict, then reveal -------------------------------------------------------------------------------------


def test_predict_then_reveal_then_apply_an_edit(editor_client, editor):
    cluster = loaded("toleration-seconds")
    session = training.start_session(cluster, editor)
    ana, bo = Client(), Client()
    join(ana, session.code, "Ana")
    join(bo, session.code, "Bo")
    node = services.get_object(cluster, "Node", "node2")
    doc = node.document
    doc["spec"]["taints"] = [{"key": "gone", "value": "now", "effect": "NoExecute"}]
    response = editor_client.post(reverse("training-ask-edit", args=[cluster.pk]),
                                  {"document": json.dumps(doc), "resource_version": node.resource_version})
    assert "Asked the room: “Which pods will be evicted now?”" in response.content.decode()
    question = Question.objects.get()
    assert question.choices == ["leaves", training.NONE_OF_THEM] and question.correct == ["leaves"]

    ana_page = ana.get(reverse("training-question", args=[session.code])).content.decode()
    assert "Which pods will be evicted now?" in ana_page and 'value="leaves"' in ana_page
    answer_url = reverse("training-answer", args=[session.code, question.pk])
    assert "Your answer: leaves" in ana.post(answer_url, {"choice": ["leaves"]}).content.decode()
    bo.post(answer_url, {"choice": [training.NONE_OF_THEM]})
    assert training.tally(question) == [("leaves", 1), (training.NONE_OF_THEM, 1)]
    # Before the reveal an attendee sees no tally and no answer.
    assert "✓ the answer" not in ana.get(reverse("training-question", args=[session.code])).content.decode()

    action = reverse("training-question-action", args=[session.code, question.pk, "apply"])
    assert "reveal the answer first" in editor_client.post(action).content.decode()
    editor_client.post(reverse("training-question-action", args=[session.code, question.pk, "reveal"]))
    revealed = ana.get(reverse("training-question", args=[session.code])).content.decode()
    assert "✓ the answer" in revealed and "You were right." in revealed
    assert "Not this time" in bo.get(reverse("training-question", args=[session.code])).content.decode()
    assert "the answer has been revealed" in bo.post(answer_url, {"choice": ["leaves"]}).content.decode()

    body = editor_client.post(action).content.decode()
    assert "node/node2 replaced" in body
    assert services.get_object(cluster, "Node", "node2").document["spec"]["taints"] == doc["spec"]["taints"]


def test_a_question_about_where_a_new_pod_goes_comes_from_the_engine(editor):
    cluster = loaded("dedicated-nodes")  # at t=10 three pods are created
    question = training.ask_about_next_step(training.start_session(cluster, editor))
    assert (question.text, question.correct, question.multiple) == ("Where will group-member be scheduled at t=10 s?", ["node1"], False)
    assert question.choices == ["node1", "node2", training.STAYS_PENDING]


def test_a_question_about_the_next_step_comes_from_the_engine(editor):
    cluster = loaded("tolerate-all")  # at t=10 node1 gets NoExecute: the ordinary pod goes
    session = training.start_session(cluster, editor)
    question = training.ask_about_next_step(session)
    assert question.text == "Which pods will be evicted by t=10 s?"
    assert question.correct == ["ordinary"]
    assert set(question.choices) >= {"ordinary", training.NONE_OF_THEM}
    training.reveal(question)
    assert training.apply_question(question) == "ran to t=10 s"
    assert Cluster.objects.get(pk=cluster.pk).now == 10


UPDATE_CLUSTER = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.14, clusterID: 5a4c3e2f-0000-4000-8000-000000000001}
status: {desired: {version: 4.13.19}}
---
apiVersion: v1
kind: Node
metadata: {name: master-0, labels: {node-role.kubernetes.io/master: ""}}
""" + "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: worker-{i}, labels: {{node-role.kubernetes.io/worker: ""}}}}
""" for i in range(5))


def test_a_question_about_how_many_pool_nodes_update_at_once_comes_from_the_mco(editor_client, editor):
    from scheduling.models import MachineConfigPool

    cluster = services.import_new_cluster("upd", UPDATE_CLUSTER, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)  # the MCO's pools
    worker = MachineConfigPool.objects.get(cluster=cluster, name="worker").document
    worker["spec"]["maxUnavailable"] = "50%"  # of 5 nodes: 2 (rounded down)
    services.replace_object(cluster, worker)
    session = training.start_session(cluster, editor)
    board = editor_client.get(reverse("cluster-detail", args=[cluster.pk])).content.decode()
    assert "Ask how many worker nodes update at once" in board
    body = editor_client.post(reverse("training-ask-pool", args=[cluster.pk])).content.decode()
    assert "How many nodes of the worker pool will be updating at once?" in body
    question = Question.objects.get(session=session)
    assert (question.choices, question.correct, question.multiple) == (["0", "1", "2", "3", "4", "5"], ["2"], False)
    revealed = editor_client.post(reverse("training-question-action", args=[session.code, question.pk, "reveal"])).content.decode()
    assert "✓ the answer" in revealed and "Now request the update" in revealed
    worker = MachineConfigPool.objects.get(cluster=cluster, name="worker").document
    worker["spec"]["paused"] = True
    services.replace_object(cluster, worker)
    assert training.ask_about_pool(session).correct == ["0"]  # a paused pool updates none
    assert "has no MachineConfigPool" in editor_client.post(reverse("training-ask-pool", args=[cluster.pk]),
                                                             {"pool": "infra"}).content.decode()


# --- rewind, fork, restart -----------------------------------------------------------------------------------------


def test_snapshots_are_taken_when_the_controllers_write_at_most_every_interval():
    cluster = play(loaded("default-toleration-seconds"), 600, step=10)
    times = list(ClusterSnapshot.objects.filter(cluster=cluster).values_list("at", flat=True))
    # The controllers wrote at 0, 60, 105, 110 and 410: 105 and 110 are within the interval.
    assert snapshots.INTERVAL == 60
    assert times == [0.0, 60.0, 410.0]


def test_an_edit_is_kept_in_the_history_whatever_the_interval(editor_client):
    cluster = play(loaded("toleration-seconds"), 30, step=10)  # snapshot at 0 only
    node = services.get_object(cluster, "Node", "node2")
    doc = node.document
    doc["metadata"]["labels"] = {"edited": "at-30"}
    services.replace_object(cluster, doc)
    reconcile.reconcile(cluster.pk)
    cluster = play(cluster, 100, step=50)
    editor_client.post(reverse("training-rewind", args=[cluster.pk]), {"at": "40", "confirm": confirmation(cluster)})
    assert services.get_object(cluster, "Node", "node2").document["metadata"]["labels"] == {"edited": "at-30"}


def test_the_start_is_recorded_even_if_the_clock_moves_before_the_controllers_run(editor_client):
    cluster = services.load_scenario("tolerate-all")  # not reconciled yet
    editor_client.get(f"/clusters/{cluster.pk}/")  # the board records the start
    editor_client.post(reverse("training-script-action", args=[cluster.pk, "next"]))
    reconcile.reconcile(cluster.pk)
    assert list(ClusterSnapshot.objects.filter(cluster=cluster).values_list("at", flat=True)) == [0.0, 10.0]
    editor_client.post(reverse("training-restart", args=[cluster.pk]), {"confirm": confirmation(cluster)})
    restarted = Cluster.objects.get(pk=cluster.pk)
    assert (restarted.now, restarted.paused) == (0.0, True)
    assert "taints" not in services.get_object(cluster, "Node", "node1").document.get("spec", {})
    assert "deletionTimestamp" not in services.get_object(cluster, "Pod", "ordinary", "default").document["metadata"]
    assert not Event.objects.filter(cluster=cluster, reason="TaintManagerEviction").exists()


@pytest.mark.parametrize(
    "back_to",
    [60.0, 105.0, 112.0, 300.0],
    ids=["at a snapshot (node1 stops reporting)", "at Ready Unknown (between snapshots)", "after the unreachable taint",
         "before the evictions"],
)
def test_rewind_gives_exactly_the_state_recorded_then(editor_client, back_to):
    cluster = play(loaded("default-toleration-seconds"), back_to, step=5)
    recorded = recorded_state(cluster)
    cluster = play(cluster, 600 - back_to, step=5)
    assert recorded_state(cluster) != recorded
    response = editor_client.post(reverse("training-rewind", args=[cluster.pk]), {"at": str(back_to), "confirm": confirmation(cluster)})
    assert response.status_code == 302
    rewound = Cluster.objects.get(pk=cluster.pk)
    assert rewound.now == back_to and rewound.paused
    assert recorded_state(rewound) == recorded
    logged = Event.objects.get(cluster=cluster, reason="Rewound")
    assert logged.message == f"Rewound from t=600 s to t={back_to:.0f} s by editor"
    # ... and it continues from there as it did the first time.
    assert recorded_state(play(rewound, 600 - back_to, step=5))[1][: len(recorded[1])] == recorded[1]


def test_fork_from_a_moment_leaves_the_cluster_as_it_is(editor_client):
    cluster = play(loaded("default-toleration-seconds"), 300, step=10)
    recorded = recorded_state(cluster)
    cluster = play(cluster, 300, step=10)
    now_state = recorded_state(cluster)
    response = editor_client.post(reverse("training-fork-at", args=[cluster.pk]), {"at": "300", "name": "replay-300"})
    fork = Cluster.objects.get(name="replay-300")
    assert response["Location"] == f"/clusters/{fork.pk}/"
    assert fork.now == 300 and recorded_state(fork) == recorded
    assert recorded_state(Cluster.objects.get(pk=cluster.pk)) == now_state


def test_restart_resets_the_same_cluster_to_t0(editor_client):
    cluster = loaded("toleration-seconds")
    at_start = recorded_state(cluster)
    cluster = play(cluster, 4000, step=200)
    at_end = recorded_state(cluster)
    assert at_end != at_start
    editor_client.post(reverse("training-restart", args=[cluster.pk]), {"confirm": confirmation(cluster)})
    again = Cluster.objects.get(pk=cluster.pk)
    assert (again.now, again.paused) == (0.0, True)
    assert recorded_state(again) == at_start
    assert Cluster.objects.count() == 1
    assert Event.objects.get(cluster=cluster, reason="Restarted").message == "Restarted at t=0 s from t=4000 s by editor"
    # ... and it plays again as it did the first time.
    assert recorded_state(play(again, 4000, step=200)) == at_end


def test_a_rewind_says_what_it_discards_and_changes_nothing_until_confirmed(editor_client):
    cluster = play(loaded("default-toleration-seconds"), 600, step=10)
    url = reverse("training-rewind", args=[cluster.pk])
    untouched = (recorded_state(cluster), confirmation(cluster), Cluster.objects.get(pk=cluster.pk).now)
    later = list(Event.objects.filter(cluster=cluster, last_time__gt=60).values_list("reason", flat=True))
    top = sorted(set(later), key=lambda r: (-later.count(r), r))[0]
    assert len(later) > 3

    # htmx: the confirm step, in place of #rewind-confirm
    asked = editor_client.post(url, {"at": "60"}, HTTP_HX_REQUEST="true").content.decode()
    # the objects written since the state at 60 s (the snapshot there) and the events since
    writes = untouched[1] - snapshots.latest_at_or_before(cluster, 60).revision
    assert writes > 0
    changes = writes + len(later)
    assert f"Rewind to t=60 s? This discards {changes} later changes ({writes} object writes, {later.count(top)} {top}, " in asked
    assert "): everything after t=60 s up to t=600 s." in asked
    assert f'name="confirm" value="{untouched[1]}"' in asked and f"Rewind and discard {changes} changes" in asked
    assert (recorded_state(cluster), confirmation(cluster), Cluster.objects.get(pk=cluster.pk).now) == untouched

    # a plain post without the confirmation is refused: the board says why and asks there
    refused = editor_client.post(url, {"at": "60"})
    assert refused.status_code == 302 and refused["Location"] == f"/clusters/{cluster.pk}/?confirm_rewind=60"
    board = editor_client.get(refused["Location"]).content.decode()
    assert "Not rewound: going back needs your confirmation. Rewind to t=60 s?" in board
    assert 'id="rewind-confirm" class="confirm-step"' in board
    assert (recorded_state(cluster), confirmation(cluster), Cluster.objects.get(pk=cluster.pk).now) == untouched

    # a confirmation for another revision (the cluster changed since) asks again
    stale = editor_client.post(url, {"at": "60", "confirm": str(untouched[1] - 1)}, HTTP_HX_REQUEST="true").content.decode()
    assert "The cluster changed since you confirmed" in stale and "Rewind to t=60 s? This discards" in stale
    assert (recorded_state(cluster), confirmation(cluster), Cluster.objects.get(pk=cluster.pk).now) == untouched

    # confirmed: rewound
    done = editor_client.post(url, {"at": "60", "confirm": str(untouched[1])}, HTTP_HX_REQUEST="true")
    assert done["HX-Redirect"] == f"/clusters/{cluster.pk}/"
    assert Cluster.objects.get(pk=cluster.pk).now == 60
    assert not Event.objects.filter(cluster=cluster, last_time__gt=60).exclude(reason="Rewound").exists()


def test_a_restart_asks_first_too_and_going_nowhere_asks_nothing(editor_client):
    cluster = play(loaded("toleration-seconds"), 200, step=50)
    untouched = (recorded_state(cluster), confirmation(cluster))
    board = editor_client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert "hx-confirm" not in board  # the server asks, not only the browser
    asked = editor_client.post(reverse("training-restart", args=[cluster.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert "Restart from t=0 s? This discards" in asked and "everything after t=0 s up to t=200 s" in asked
    assert (recorded_state(cluster), confirmation(cluster)) == untouched
    refused = editor_client.post(reverse("training-restart", args=[cluster.pk]))
    assert refused["Location"] == f"/clusters/{cluster.pk}/?confirm_restart=1"
    assert (recorded_state(cluster), confirmation(cluster)) == untouched
    # rewinding to now discards nothing: no question
    now = editor_client.post(reverse("training-rewind", args=[cluster.pk]), {"at": "200"}, HTTP_HX_REQUEST="true")
    assert now["HX-Redirect"] == f"/clusters/{cluster.pk}/"
    assert Event.objects.get(cluster=cluster, reason="Rewound").message == "Rewound from t=200 s to t=200 s by editor"


def test_scenario_copies_are_cleaned_up_from_the_list(editor_client):
    names = [services.load_scenario("tolerate-all").name for _ in range(3)] + [services.load_scenario("toleration-seconds").name]
    assert names == ["tolerate-all", "tolerate-all-2", "tolerate-all-3", "toleration-seconds"]
    response = editor_client.post(reverse("scenario-clean", args=["tolerate-all"]), follow=True)
    assert "2 copies of tolerate-all deleted" in response.content.decode()
    assert sorted(Cluster.objects.values_list("name", flat=True)) == ["tolerate-all", "toleration-seconds"]


def test_a_long_run_keeps_its_start_and_thins_its_older_snapshots(monkeypatch):
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOTS", 4)
    cluster = loaded("toleration-seconds")
    for n in range(1, 6):
        Cluster.objects.filter(pk=cluster.pk).update(reconciled_to=100.0 * n)
        snapshots.take_snapshot(cluster)
    assert list(ClusterSnapshot.objects.filter(cluster=cluster).values_list("at", flat=True)) == [0.0, 200.0, 400.0, 500.0]


def test_a_viewer_of_a_cluster_without_a_script_sees_no_empty_training_box(viewer, editor_client):
    cluster = services.import_new_cluster("plain", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", "plain.yaml")
    url = reverse("cluster-detail", args=[cluster.pk])
    viewer_client = Client()
    viewer_client.force_login(viewer)
    viewer_page = viewer_client.get(url).content.decode()
    assert '<section id="training-script"' in viewer_page  # kept for the live refresh...
    section = viewer_page[viewer_page.index('<section id="training-script"'):]
    assert section[: section.index(">")].endswith(" hidden")  # ...but not shown
    editor_page = editor_client.get(url).content.decode()
    section = editor_page[editor_page.index('<section id="training-script"'):]
    assert " hidden" not in section[: section.index(">")]
    assert "Start a training session" in section[: section.index("</section>")]


def test_applying_an_edit_of_a_pod_follows_the_api_servers_update_rules(editor):
    cluster = services.import_new_cluster("upd", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                          "spec: {containers: [{name: c, image: nginx:1}]}\n", "pod.yaml")
    pod = services.get_object(cluster, "Pod", "p", "default")
    doc = pod.document
    doc["spec"]["nodeSelector"] = {"disk": "ssd"}
    question = training.ask_about_edit(training.start_session(cluster, editor), doc, pod.resource_version)
    training.reveal(question)
    with pytest.raises(training.TrainingError, match=r'^Pod "p" is invalid: spec: Forbidden: pod updates may not change'):
        training.apply_question(question)
    assert services.get_object(cluster, "Pod", "p", "default").resource_version == pod.resource_version
