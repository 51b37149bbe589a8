from django.apps import AppConfig


class UpdatesConfig(AppConfig):
    """The update and machine pages (ClusterVersion, ClusterOperators, MachineConfigPools,
    Machines); their controllers are the engine's (scheduling.engine.openshift)."""

    name = "updates"

    def ready(self):
        # The live update progress fragment, pushed with the scheduling app's fragments
        # (which never import this app), named by path: imported when first pushed.
        from scheduling.pages.views import fragments

        fragments.register("update-progress", "updates.views.progress_fragment")  # (cluster); "" without a ClusterVersion
        # (cluster, kinds, deleted machines); "" without Machine API objects
        fragments.register("machines", "updates.views_machines.machine_fragments")
