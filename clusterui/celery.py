"""The Celery app. Distributed mode: `celery -A clusterui worker` and `celery -A clusterui beat`.
Embedded mode: clusterui.embedded runs a worker thread and the beat scheduler in-process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")

app = Celery("clusterui")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
