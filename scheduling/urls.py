from django.urls import include, path

from scheduling.pages.views import (
    board,
    clock,
    clusters,
    descheduler,
    imports,
    node,
    node_selection,
    pod,
    policy,
    whatif,
)

urlpatterns = [
    path("", clusters.cluster_list, name="cluster-list"),
    path("clusters/new", clusters.cluster_create, name="cluster-create"),
    path("scenarios/<slug:name>/load", clusters.scenario_load, name="scenario-load"),
    path("clusters/import", clusters.cluster_import, name="cluster-import"),
    path("imports/<str:job_id>", imports.import_status, name="import-status"),
    path("clusters/<int:pk>/", board.cluster_detail, name="cluster-detail"),
    path("clusters/<int:pk>/fork", clusters.cluster_fork, name="cluster-fork"),
    path("clusters/<int:pk>/delete", clusters.cluster_delete, name="cluster-delete"),
    path("clusters/<int:pk>/export.yaml", clusters.cluster_export, name="cluster-export"),
    # the board's sections, refetched with the viewer's filters
    path("clusters/<int:pk>/pending", board.pending_section, name="pending-section"),
    path("clusters/<int:pk>/events", board.events_section, name="events-section"),
    path("clusters/<int:pk>/overview-meta", board.overview_meta_section, name="overview-meta"),
    path("clusters/<int:pk>/clock", clock.clock_action, name="clock-action"),
    # the explainer and the what-if editor
    path("clusters/<int:pk>/nodes/<str:name>/", node.node_detail, name="node-detail"),
    path("clusters/<int:pk>/nodes/<str:name>/card", board.node_card, name="node-card"),
    path("clusters/<int:pk>/nodes/<str:name>/why", node.node_why, name="node-why"),
    path("clusters/<int:pk>/nodes/<str:name>/preview", whatif.node_preview, name="node-preview"),
    path("clusters/<int:pk>/pods/<str:namespace>/<str:name>/", pod.pod_detail, name="pod-detail"),
    path("clusters/<int:pk>/pods/<str:namespace>/<str:name>/preview", whatif.pod_preview, name="pod-preview"),
    path("clusters/<int:pk>/workloads/<str:kind>/<str:namespace>/<str:name>/", pod.controller_detail, name="controller-detail"),
    path("clusters/<int:pk>/workloads/<str:kind>/<str:namespace>/<str:name>/preview", whatif.controller_preview, name="controller-preview"),
    path("clusters/<int:pk>/apply", whatif.apply_edit, name="apply-edit"),
    # the scheduler policy
    path("clusters/<int:pk>/policy", policy.policy_page, name="policy"),
    path("clusters/<int:pk>/settings", policy.cluster_settings, name="cluster-settings"),
    path("clusters/<int:pk>/policy/action", policy.policy_action, name="policy-action"),
    path("clusters/<int:pk>/descheduler", descheduler.descheduler_page, name="descheduler"),
    path("clusters/<int:pk>/descheduler/action", descheduler.descheduler_action, name="descheduler-action"),
    path("clusters/<int:pk>/admission-config", node_selection.admission_config_save, name="admission-config"),
    path("", include("scheduling.training.urls")),  # training mode: sessions, attendees, rewind
]
