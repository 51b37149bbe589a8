from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling"
    verbose_name = "Scheduling"

    def ready(self):
        # The one listener of the store's changes: render and push them to open pages.
        # Imported here, once the app registry is ready (broadcast renders templates).
        from scheduling.live import broadcast
        from scheduling.store import changes, reconcile, services

        changes.subscribe(broadcast.push)
        # A user's write is taken at the cluster's clock: the controllers first run up to it.
        services.set_catch_up(reconcile.catch_up)

