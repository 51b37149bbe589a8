"""The descheduler's strategies (openshift/descheduler v3.11.0, pkg/descheduler/strategies).

One module per strategy, each exporting `run(ctx, nodes, strategy) -> None`, which asks the
shared `common.Evictor` to evict pods; `STRATEGIES` (in engine.controllers.descheduler) is
the literal list, in the order the 3.11 binary runs them.
"""
