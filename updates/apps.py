from django.apps import AppConfig


class UpdatesConfig(AppConfig):
    """ClusterVersion, ClusterOperators, MachineConfigPools and Machines: a later issue."""

    name = "updates"
