"""python manage.py import_cluster NAME FILE... — create or update a cluster from YAML/JSON."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scheduling import kube, services
from scheduling.models import Cluster


class Command(BaseCommand):
    help = "Import Kubernetes YAML/JSON files (- for stdin) into a cluster, creating it if needed. All or nothing."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, name, files, **options):
        docs = []
        try:
            for path in files:
                text = sys.stdin.read() if path == "-" else _read(path)
                docs.extend(kube.load_documents(text, "<stdin>" if path == "-" else path))
            with transaction.atomic():
                cluster = Cluster.objects.filter(name=name).first() or services.create_cluster(name)
                result = services.apply_documents(cluster, docs)
        except (kube.DocumentError, services.StoreError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        self.stdout.write(
            f'cluster "{name}": {result.created} created, {result.replaced} replaced'
            + (", scheduler policy set" if result.policy_set else "")
        )


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise CommandError(f"error: the path \"{path}\" cannot be read: {exc.strerror}", returncode=2) from exc
    except UnicodeDecodeError:
        raise CommandError(f'error: "{path}" is not UTF-8 text', returncode=2) from None
