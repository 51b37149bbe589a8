"""python manage.py export_cluster NAME — the cluster as multi-document YAML on stdout."""

from django.core.management.base import BaseCommand, CommandError

from scheduling.store import kube, services
from scheduling.models import Cluster


class Command(BaseCommand):
    help = "Print a cluster's objects as multi-document YAML that import_cluster reads back."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("-o", "--output", help="write to this file instead of stdout")

    def handle(self, *args, name, output, **options):
        cluster = Cluster.objects.filter(name=name).first()
        if cluster is None:
            raise CommandError(f'cluster "{name}" not found', returncode=2)
        text = kube.dump_documents(services.export_documents(cluster))
        if output:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            self.stdout.write(text, ending="")
