from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling"
    verbose_name = "Scheduling"

    def ready(self):
        # The one listener of the store's changes: render and push them to open pages.
        # Imported here, once the app registry is ready (broadcast renders templates).
        from . import broadcast, changes

        changes.subscribe(broadcast.push)

