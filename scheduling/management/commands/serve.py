"""Serve the dashboard: the ASGI app (HTTP + websockets) with daphne, and in embedded mode
(no REDIS_URL) a Celery worker thread and the beat scheduler in the same process."""

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve clusterui (embedded mode also runs the Celery worker and beat in-process)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="embedded mode without the worker thread")

    def handle(self, *args, host, port, no_worker, **options):
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        from clusterui.asgi import application

        embedded = None
        if settings.EMBEDDED and not no_worker:
            from clusterui.embedded import EmbeddedCelery

            embedded = EmbeddedCelery().start()
            self.stdout.write("embedded mode: Celery worker and beat running in this process")
        mode = "embedded" if settings.EMBEDDED else "distributed"
        self.stdout.write(f"clusterui ({mode} mode) serving on http://{host}:{port}/  (Ctrl-C to stop)")
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
