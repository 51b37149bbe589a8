"""A write asks for a reconcile without subscribing to its result: the web process sends
the task by name (it need not have imported the tasks), and Celery's Redis result backend
subscribed to the result channel of every task sent that way (`on_task_call`): a
connection and a subscription per edit in daphne, under a room of editors 40% of an
edit's time in the web process. The reconcile's result is never read."""

from __future__ import annotations

import pytest

from clusterui.celery import app as celery_app
from scheduling.live import broadcast
from scheduling.store import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_edit_enqueues_its_reconcile_without_subscribing_to_a_result(monkeypatch):
    cluster = services.create_cluster("enqueued")
    # as in the web process, where the tasks module was never imported: sent by name
    monkeypatch.delitem(celery_app.tasks, services.RECONCILE_TASK, raising=False)
    subscribed, sent = [], []
    monkeypatch.setattr(celery_app.backend, "on_task_call", lambda producer, task_id: subscribed.append(task_id))
    monkeypatch.setattr(celery_app.amqp, "send_task_message", lambda producer, name, message, **options: sent.append(name))

    services.import_documents(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")

    assert broadcast.flush()  # the push of the write, rendered while the database is there
    assert sent == [services.RECONCILE_TASK]
    assert subscribed == []
