"""Large imports off the request thread, with progress (embedded mode).

In embedded mode daphne runs every synchronous view in one shared thread, so a slow import
used to hold up every other page, login included, and a client that gave up never learnt
that the import was committed afterwards. An import of `BACKGROUND_BYTES` or more now runs
in a thread of its own: the request answers at once with a progress bar that polls
`status()` until the job reports the new cluster or the reason nothing was imported.

Honest limits: jobs live in this process's memory (embedded mode is one process; in
distributed mode imports stay in the request, PostgreSQL has no global write lock), a
restart forgets running jobs (their transaction is rolled back, nothing is half-written),
and the last phase (admission and the write, one transaction) shows no finer progress.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction

from scheduling.store import kube, services

logger = logging.getLogger(__name__)

BACKGROUND_BYTES = 256 * 1024  # texts this large are imported in the background
KEEP_SECONDS = 3600  # a finished job's outcome stays readable this long

PHASES = {"queued": "waiting to start", "reading": "reading the YAML", "checking": "validating the documents",
          "writing": "admitting and writing the objects", "done": "done", "failed": "nothing was imported"}


@dataclass
class Job:
    id: str
    name: str
    user_id: int | None
    phase: str = "queued"
    fraction: float = 0.0
    cluster_id: int | None = None
    error: str = ""
    finished_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def report(self, phase: str, fraction: float) -> None:
        with self.lock:
            self.phase, self.fraction = phase, fraction

    @property
    def done(self) -> bool:
        return self.phase in ("done", "failed")

    @property
    def percent(self) -> int:
        """One bar over the phases: reading 0-60 %, checking 60-85 %, writing 85-100 %."""
        start, width = {"queued": (0, 0), "reading": (0, 60), "checking": (60, 25), "writing": (85, 0)}.get(
            self.phase, (100, 0))
        return int(start + width * max(0.0, min(1.0, self.fraction)))

    @property
    def phase_label(self) -> str:
        return PHASES.get(self.phase, self.phase)


_JOBS: dict[str, Job] = {}
_JOBS_LOCK = threading.Lock()


def runs_in_background(text: str) -> bool:
    return settings.EMBEDDED and len(text) >= BACKGROUND_BYTES


def start(name: str, text: str, source: str, description: str, user_id: int | None, *, replace: bool = False) -> Job:
    """Start importing `text` into a new cluster `name` in a thread (`replace`: in place of the
    cluster of that name, in the same transaction); returns the job."""
    job = Job(secrets.token_urlsafe(16), name, user_id)
    with _JOBS_LOCK:
        _forget_old()
        _JOBS[job.id] = job
    threading.Thread(target=_run, args=(job, text, source, description, replace), name=f"import-{name}", daemon=True).start()
    return job


def status(job_id: str, user_id: int | None) -> Job | None:
    """The job, if it exists and was started by this user."""
    with _JOBS_LOCK:
        job = _JOBS.get(job_id)
    return job if job is not None and job.user_id == user_id else None


def _run(job: Job, text: str, source: str, description: str, replace: bool = False) -> None:
    try:
        docs = kube.load_documents(text, source, progress=job.report)
        job.report("writing", 0.0)
        with transaction.atomic():
            if replace:
                cluster = services.replace_with_import(job.name, docs, description)
            else:
                cluster = services.create_cluster(job.name, description)
                services.apply_documents(cluster, docs)
    except (kube.DocumentError, services.StoreError) as exc:
        _finish(job, error=str(exc))
    except Exception as exc:  # reported on the page; the transaction was rolled back
        logger.exception("background import of %s failed", job.name)
        _finish(job, error=f"the import failed: {type(exc).__name__}")
    else:
        _finish(job, cluster_id=cluster.pk)
    finally:
        connection.close()  # this thread's own connection


def _finish(job: Job, *, cluster_id: int | None = None, error: str = "") -> None:
    with job.lock:
        job.cluster_id, job.error = cluster_id, error
        job.phase, job.fraction = ("failed" if error else "done"), 1.0
        job.finished_at = time.monotonic()


def _forget_old() -> None:
    now = time.monotonic()
    for key in [k for k, j in _JOBS.items() if j.finished_at is not None and now - j.finished_at > KEEP_SECONDS]:
        del _JOBS[key]
