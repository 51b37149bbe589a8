"""The fragments the broadcast pushes to open cluster pages, and the page function that
renders each, out of band, from the committed state. broadcast.py finds its renderers here
and nowhere else; adding a fragment is one line here and one use in broadcast.render_changes.

An app built on this one (updates: the update progress page) adds its own fragment from its
AppConfig.ready() with `register`, so this app never imports it (the apps' arrows run one way)."""

from __future__ import annotations

from typing import Callable

from django.utils.module_loading import import_string


class _Renderers(dict):
    """name -> the page function that renders the fragment, named by its dotted path and
    imported at its first use: a process that never pushes (`manage.py oc`, `simulate`)
    starts without loading the pages (0.15 of its 0.85 CPU s to start `manage.py oc`)."""

    def __getitem__(self, name: str) -> Callable:
        render = super().__getitem__(name)
        if isinstance(render, str):
            render = import_string(render)
            self[name] = render
        return render


FRAGMENTS = _Renderers({
    "cluster-summary": "scheduling.pages.views.board.summary_fragment",  # (cluster)
    "clock": "scheduling.pages.views.clock.clock_fragment",  # (cluster)
    "node-cards": "scheduling.pages.views.board.node_card_fragments",  # (cluster, names, gone)
    "node-tiles": "scheduling.pages.views.board.node_tile_fragments",  # (cluster, names)
    "overview-meta": "scheduling.pages.views.board.overview_meta_fragment",  # (cluster)
    "pending": "scheduling.pages.views.board.pending_fragment",  # (cluster)
    "events": "scheduling.pages.views.board.events_fragment",  # (cluster)
})


def register(name: str, render: Callable | str) -> None:
    """Add a fragment rendered by another app's page function, or its dotted path (its
    AppConfig.ready())."""
    FRAGMENTS[name] = render
