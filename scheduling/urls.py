from django.urls import path

from . import views

urlpatterns = [
    path("", views.cluster_list, name="cluster-list"),
    path("clusters/new", views.cluster_create, name="cluster-create"),
    path("scenarios/<slug:name>/load", views.scenario_load, name="scenario-load"),
    path("clusters/import", views.cluster_import, name="cluster-import"),
    path("clusters/<int:pk>/", views.cluster_detail, name="cluster-detail"),
    path("clusters/<int:pk>/fork", views.cluster_fork, name="cluster-fork"),
    path("clusters/<int:pk>/delete", views.cluster_delete, name="cluster-delete"),
    path("clusters/<int:pk>/export.yaml", views.cluster_export, name="cluster-export"),
    # the board's sections, refetched with the viewer's filters
    path("clusters/<int:pk>/pending", views.pending_section, name="pending-section"),
    path("clusters/<int:pk>/events", views.events_section, name="events-section"),
    path("clusters/<int:pk>/clock", views.clock_action, name="clock-action"),
    # the explainer and the what-if editor
    path("clusters/<int:pk>/nodes/<str:name>/", views.node_detail, name="node-detail"),
    path("clusters/<int:pk>/nodes/<str:name>/card", views.node_card, name="node-card"),
    path("clusters/<int:pk>/nodes/<str:name>/preview", views.node_preview, name="node-preview"),
    path("clusters/<int:pk>/pods/<str:namespace>/<str:name>/", views.pod_detail, name="pod-detail"),
    path("clusters/<int:pk>/pods/<str:namespace>/<str:name>/preview", views.pod_preview, name="pod-preview"),
    path("clusters/<int:pk>/workloads/<str:kind>/<str:namespace>/<str:name>/", views.controller_detail, name="controller-detail"),
    path("clusters/<int:pk>/workloads/<str:kind>/<str:namespace>/<str:name>/preview", views.controller_preview, name="controller-preview"),
    path("clusters/<int:pk>/apply", views.apply_edit, name="apply-edit"),
    # the scheduler policy
    path("clusters/<int:pk>/policy", views.policy_page, name="policy"),
    path("clusters/<int:pk>/settings", views.cluster_settings, name="cluster-settings"),
    path("clusters/<int:pk>/policy/action", views.policy_action, name="policy-action"),
]
