"""The fragments the broadcast pushes to open cluster pages, and the page function that
renders each, out of band, from the committed state. broadcast.py finds its renderers here
and nowhere else; adding a fragment is one line here and one use in broadcast.render_changes."""

from __future__ import annotations

from updates import views as update_views

from scheduling.pages.views import board, clock

FRAGMENTS = {
    "cluster-summary": board.summary_fragment,  # (cluster)
    "clock": clock.clock_fragment,  # (cluster)
    "node-cards": board.node_card_fragments,  # (cluster, names, gone)
    "node-tiles": board.node_tile_fragments,  # (cluster, names)
    "pending": board.pending_fragment,  # (cluster)
    "events": board.events_fragment,  # (cluster)
    "update-progress": update_views.progress_fragment,  # (cluster); "" without a ClusterVersion
}
