"""Embedded mode: a real Celery worker and the beat scheduler inside the web process.

The broker is kombu's `memory://` transport, which only works within one process, so the
worker runs in a thread here instead of as `celery worker`. Tasks still go through the
broker and the worker (never eager mode); the code is the same as in distributed mode.
"""

from __future__ import annotations

import logging
import threading

from celery.beat import EmbeddedService

from .celery import app

logger = logging.getLogger(__name__)


class EmbeddedCelery:
    def __init__(self, *, beat: bool = True, concurrency: int = 1):
        self.beat_enabled = beat
        self.concurrency = concurrency
        self.worker = None
        self.beat = None
        self.ready = threading.Event()

    def start(self, timeout: float = 30.0) -> "EmbeddedCelery":
        self.worker = app.WorkController(
            pool_cls="solo" if self.concurrency == 1 else "threads",
            concurrency=self.concurrency,
            loglevel="WARNING",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
            hostname="embedded@clusterui",
            ready_callback=lambda *_: self.ready.set(),
        )
        threading.Thread(target=self._run_worker, name="celery-worker", daemon=True).start()
        if not self.ready.wait(timeout):
            raise RuntimeError("the embedded Celery worker did not start")
        if self.beat_enabled:
            self.beat = EmbeddedService(app, thread=True)
            self.beat.name = "celery-beat"
            self.beat.start()
        return self

    def _run_worker(self) -> None:
        try:
            self.worker.start()
        except Exception:
            logger.exception("embedded Celery worker stopped")

    def stop(self) -> None:
        if self.beat is not None:
            self.beat.stop()
        if self.worker is not None:
            self.worker.stop(in_sighandler=False, exitcode=0)
