"""Create the demo cluster from scheduling/demo/demo-cluster.yaml (idempotent)."""

from pathlib import Path

from django.core.management.base import BaseCommand

from scheduling.store import reconcile, services
from scheduling.models import Cluster

DEMO_FILE = Path(__file__).resolve().parents[2] / "demo" / "demo-cluster.yaml"
DEMO_NAME = "demo"


class Command(BaseCommand):
    help = "Load the demo cluster (the documentation's examples: zones, control plane, the taints of the examples)."

    def add_arguments(self, parser):
        parser.add_argument("--name", default=DEMO_NAME)
        parser.add_argument("--reset", action="store_true", help="delete and load again if it exists")

    def handle(self, *args, name, reset, **options):
        existing = Cluster.objects.filter(name=name).first()
        if existing and not reset:
            self.stdout.write(f'cluster "{name}" already exists (use --reset to load it again)')
            return
        if existing:
            services.delete_cluster(existing)
        cluster = services.import_new_cluster(
            name, DEMO_FILE.read_text(), DEMO_FILE.name,
            description="Demo: three zones, control plane, the taint examples of the OpenShift docs.",
        )
        reconcile.reconcile(cluster.pk)  # the scheduler's first pass happens now: no worker may run here
        self.stdout.write(f'cluster "{cluster.name}" loaded from {DEMO_FILE.name}')
