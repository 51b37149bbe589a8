"""python manage.py clock NAME (--advance SECONDS | --to SECONDS)

Move a stored cluster's simulated clock and run its controllers up to the new time before
returning (no worker needed), then print `cluster "NAME": t=<seconds>`. The same loop as
the clock controls of the pages and as `simulate --until`: a cluster moved in any
increments ends where one long run ends.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from scheduling.store import clock, reconcile
from scheduling.models import Cluster


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f'invalid argument "{text}": must be a number of seconds', returncode=2) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise CommandError(f'invalid argument "{text}": must be a number of seconds', returncode=2)
    return value


class Command(BaseCommand):
    help = "Move a cluster's simulated clock (--advance SECONDS or --to SECONDS) and run its controllers up to it."

    def add_arguments(self, parser):
        parser.add_argument("name")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--advance", metavar="SECONDS")
        group.add_argument("--to", metavar="SECONDS")

    def handle(self, *args, name, advance=None, to=None, **options):
        cluster = Cluster.objects.filter(name=name).first()
        if cluster is None:
            raise CommandError(f'no cluster named "{name}"', returncode=1)
        if advance is not None:
            seconds = _seconds(advance)
            if seconds < 0:
                raise CommandError(f"--advance {advance}: must be greater than or equal to 0", returncode=2)
        else:
            target = _seconds(to)
            if target < cluster.now:
                raise CommandError(
                    f"--to {to}: the clock is at t={cluster.now:g} s and does not go back (rewind a training "
                    "session from the board instead)", returncode=2)
            seconds = target - cluster.now
        if seconds > 0:
            clock.step(cluster, seconds)
        reconcile.reconcile(cluster.pk)
        cluster.refresh_from_db()
        self.stdout.write(f'cluster "{name}": t={cluster.now:g}')
