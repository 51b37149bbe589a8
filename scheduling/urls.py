from django.urls import path

from . import views

urlpatterns = [
    path("", views.cluster_list, name="cluster-list"),
    path("clusters/new", views.cluster_create, name="cluster-create"),
    path("clusters/import", views.cluster_import, name="cluster-import"),
    path("clusters/<int:pk>/", views.cluster_detail, name="cluster-detail"),
    path("clusters/<int:pk>/fork", views.cluster_fork, name="cluster-fork"),
    path("clusters/<int:pk>/delete", views.cluster_delete, name="cluster-delete"),
    path("clusters/<int:pk>/export.yaml", views.cluster_export, name="cluster-export"),
]
