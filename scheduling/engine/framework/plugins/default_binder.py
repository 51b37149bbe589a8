"""DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder): binds the pod to the
chosen node with a Binding. The runtime writes the binding (the simulated API server), so
the plugin only names the extension point."""

from __future__ import annotations

from scheduling.engine.framework.interface import OK, Plugin, Status


class DefaultBinder(Plugin):
    name = "DefaultBinder"

    def bind(self, cs, pod, node_name: str) -> Status:
        return OK
