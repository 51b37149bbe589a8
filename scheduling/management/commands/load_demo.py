"""Create the demo clusters (idempotent): `demo` from scheduling/demo/demo-cluster.yaml (the
OpenShift 3.11 documentation's examples) and `openshift4` from
scheduling/demo/openshift4-cluster.yaml (an OpenShift 4.18 cluster to rehearse updates on)."""

from pathlib import Path

from django.core.management.base import BaseCommand

from scheduling.store import reconcile, services
from scheduling.models import Cluster

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_FILE = DEMO_DIR / "demo-cluster.yaml"
DEMO_NAME = "demo"
OPENSHIFT4_FILE = DEMO_DIR / "openshift4-cluster.yaml"
OPENSHIFT4_NAME = "openshift4"
DEMOS = {
    "demo": (DEMO_FILE, "Demo: three zones, control plane, the taint examples of the OpenShift docs."),
    "openshift4": (OPENSHIFT4_FILE, "OpenShift 4.18 on AWS: 3 control-plane, 3 infra and 6 worker nodes in three zones, "
                                    "pools master/infra/worker; rehearse an update (EUS to EUS: channel eus-4.20)."),
}


class Command(BaseCommand):
    help = ("Load the demo clusters: `demo` (the documentation's examples: zones, control plane, the taints of the "
            "examples) and `openshift4` (an OpenShift 4.18 cluster with a ClusterVersion, pools and machines).")

    def add_arguments(self, parser):
        parser.add_argument("--name", default=DEMO_NAME, help="the name of the `demo` cluster")
        parser.add_argument("--openshift4-name", default=OPENSHIFT4_NAME, help="the name of the `openshift4` cluster")
        parser.add_argument("--only", choices=sorted(DEMOS), help="load only this one of the demos")
        parser.add_argument("--reset", action="store_true", help="delete and load again if it exists")

    def handle(self, *args, name, openshift4_name, only, reset, **options):
        names = {"demo": name, "openshift4": openshift4_name}
        for which in sorted(DEMOS):
            if only is None or only == which:
                self._load(names[which], *DEMOS[which], reset)

    def _load(self, name: str, path: Path, description: str, reset: bool) -> None:
        existing = Cluster.objects.filter(name=name).first()
        if existing and not reset:
            self.stdout.write(f'cluster "{name}" already exists (use --reset to load it again)')
            return
        if existing:
            services.delete_cluster(existing)
        cluster = services.import_new_cluster(name, path.read_text(), path.name, description=description)
        reconcile.reconcile(cluster.pk)  # the controllers' first pass happens now: no worker may run here
        self.stdout.write(f'cluster "{cluster.name}" loaded from {path.name}')
