"""The fragments the broadcast pushes to open cluster pages, and the page function that
renders each, out of band, from the committed state. broadcast.py finds its renderers here
and nowhere else; adding a fragment is one line here and one use in broadcast.render_changes.

An app built on this one (updates: the update progress page) adds its own fragment from its
AppConfig.ready() with `register`, so this app never imports it (the apps' arrows run one way)."""

from __future__ import annotations

from typing import Callable

from scheduling.pages.views import board, clock

FRAGMENTS = {
    "cluster-summary": board.summary_fragment,  # (cluster)
    "clock": clock.clock_fragment,  # (cluster)
    "node-cards": board.node_card_fragments,  # (cluster, names, gone)
    "node-tiles": board.node_tile_fragments,  # (cluster, names)
    "overview-meta": board.overview_meta_fragment,  # (cluster)
    "pending": board.pending_fragment,  # (cluster)
    "events": board.events_fragment,  # (cluster)
}


def register(name: str, render: Callable) -> None:
    """Add a fragment rendered by another app's page function (its AppConfig.ready())."""
    FRAGMENTS[name] = render
