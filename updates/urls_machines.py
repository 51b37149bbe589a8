"""The Machine API pages (include in clusterui/urls.py: `path("", include("updates.urls_machines"))`)."""

from django.urls import path

from . import views_machines as views

urlpatterns = [
    path("clusters/<int:pk>/machines/", views.machines_page, name="machines"),
    path("clusters/<int:pk>/machines/<str:namespace>/<str:name>/", views.machine_page, name="machine-detail"),
    path("clusters/<int:pk>/machines/<str:namespace>/<str:name>/hooks", views.hook_action, name="machine-hooks"),
    path("clusters/<int:pk>/machines/<str:namespace>/<str:name>/delete", views.machine_delete, name="machine-delete"),
    path("clusters/<int:pk>/machines/<str:namespace>/<str:name>/delete/preview", views.machine_delete_preview,
         name="machine-delete-preview"),
    path("clusters/<int:pk>/machinesets/<str:namespace>/<str:name>/", views.machineset_page, name="machineset-detail"),
    path("clusters/<int:pk>/machinesets/<str:namespace>/<str:name>/scale", views.machineset_scale, name="machineset-scale"),
    path("clusters/<int:pk>/machinesets/<str:namespace>/<str:name>/scale/preview", views.machineset_scale_preview,
         name="machineset-scale-preview"),
    path("clusters/<int:pk>/machinesets/<str:namespace>/<str:name>/preview", views.machineset_preview, name="machineset-preview"),
    path("clusters/<int:pk>/machinesets/<str:namespace>/<str:name>/apply", views.machineset_apply, name="machineset-apply"),
]
