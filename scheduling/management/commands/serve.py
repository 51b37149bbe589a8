"""Serve the dashboard: the ASGI app (HTTP + websockets) with daphne, and in embedded mode
(no REDIS_URL) a Celery worker thread and the beat scheduler in the same process.

Start-up checks the database first (a missing or unreachable one is one line from
manage.py, not a traceback). SIGTERM and Ctrl-C stop daphne's reactor; then the embedded
worker stops, requests still running get `SHUTDOWN_GRACE_SECONDS` to finish, and the
process exits even if one has not (Python would otherwise wait for the request thread,
however long the request takes)."""

import os
import signal
import sys
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

from clusterui.hosts import WILDCARDS, serve_on, url_host

SHUTDOWN_GRACE_SECONDS = 10.0


class Command(BaseCommand):
    help = "Serve clusterui (embedded mode also runs the Celery worker and beat in-process)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="embedded mode without the worker thread")

    def handle(self, *args, host, port, no_worker, **options):
        # Lazy on purpose, not to dodge a cycle: every manage.py command loads this module,
        # and only `serve` needs daphne, the ASGI application and the embedded worker.
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        room = serve_on(host, port)  # before the ASGI app is built: its origin check reads ALLOWED_HOSTS
        from clusterui.asgi import application
        from scheduling.models import Cluster
        from scheduling.store.reconcile import enqueue_due

        connection.ensure_connection()
        Cluster.objects.exists()  # the tables are there (else: run migrate)
        connection.close()
        embedded = None
        if settings.EMBEDDED and not no_worker:
            from clusterui.embedded import EmbeddedCelery

            embedded = EmbeddedCelery().start()
            self.stdout.write("embedded mode: Celery worker and beat running in this process")
        enqueue_due()  # work a process without a worker left behind (an import, a paused clock)
        connection.close()
        _stop_on_signal_before_the_reactor_runs()
        mode = "embedded" if settings.EMBEDDED else "distributed"
        self.stdout.write(f"clusterui ({mode} mode) serving on http://{url_host(host)}:{port}/  (Ctrl-C to stop)")
        if room["hosts"]:
            self.stdout.write("the room reaches it at " + ", ".join(f"http://{h}:{port}/" for h in room["hosts"]))
        elif host in WILDCARDS:
            self.stdout.write("no network address found: set CLUSTERUI_ADDRESSES to the address the room reaches")
        try:
            Server(
                application=application,
                endpoints=build_endpoint_description_strings(host=host, port=port),
                signal_handlers=True,
                action_logger=None,
            ).run()
        finally:
            if embedded is not None:
                embedded.stop()
        self.stdout.write("clusterui stopped")
        _exit_after_grace(SHUTDOWN_GRACE_SECONDS)


def _stop_on_signal_before_the_reactor_runs() -> None:
    """A SIGTERM or Ctrl-C that comes after "serving on" but before daphne's reactor has
    installed its own handlers stops the server as cleanly as one that comes later (without
    this, SIGTERM in that window killed the process outright)."""
    from twisted.internet import reactor

    def stop(signum, frame):
        reactor.callWhenRunning(reactor.stop)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def _exit_after_grace(seconds: float) -> None:
    """Give threads still serving a request `seconds` to finish, then exit for sure."""
    deadline = time.monotonic() + seconds
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
