"""python manage.py import_cluster NAME FILE... — create or update a cluster from YAML/JSON."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scheduling.store import kube, reconcile, services
from scheduling.engine.api.validation import is_dns1123_label, render_value
from scheduling.models import Cluster


class Command(BaseCommand):
    help = "Import Kubernetes YAML/JSON files (- for stdin) into a cluster, creating it if needed. All or nothing."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--seed", type=int, default=0,
                            help="the random seed of a new cluster (tie-breaks, generated names), as simulate's --seed; default 0")

    def handle(self, *args, name, files, seed=0, **options):
        problems = cluster_name_errors(name)
        if problems:
            raise CommandError("\n".join(problems), returncode=2)
        docs = []
        skipped: list[str] = []
        try:
            for path in files:
                text = _read(path)
                docs.extend(kube.load_documents(text, "<stdin>" if path == "-" else path, skipped=skipped))
            with transaction.atomic():
                cluster = Cluster.objects.filter(name=name).first() or services.create_cluster(name, seed=seed)
                result = services.apply_documents(cluster, docs)
        except (kube.DocumentError, services.StoreError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        for note in skipped:
            self.stderr.write(note)
        reconcile.reconcile(cluster.pk)  # the scheduler's first pass happens now: no worker may run here
        self.stdout.write(
            f'cluster "{name}": {result.created} created, {result.replaced} replaced'
            + (", scheduler policy set" if result.policy_set else "")
        )


def cluster_name_errors(name: str) -> list[str]:
    """A cluster name is a DNS-1123 label, as the web form requires; the API server's wording."""
    if not name:
        return ["cluster name: Required value"]
    return [f"cluster name: Invalid value: {render_value(name)}: {msg}" for msg in is_dns1123_label(name)]


def _read(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read(kube.MAX_TEXT_BYTES + 1)  # past the limit: refused by the loader
        with open(path, encoding="utf-8") as f:
            return f.read(kube.MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise CommandError(f"error: the path \"{path}\" cannot be read: {exc.strerror}", returncode=2) from exc
    except UnicodeDecodeError:
        raise CommandError(f'error: "{path}" is not UTF-8 text', returncode=2) from None
