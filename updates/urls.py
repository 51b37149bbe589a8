from django.urls import path

from . import views

urlpatterns = [
    path("clusters/<int:pk>/updates/", views.update_settings, name="update-settings"),
    path("clusters/<int:pk>/updates/preview", views.update_preview, name="update-preview"),
    path("clusters/<int:pk>/updates/request", views.update_request, name="update-request"),
    path("clusters/<int:pk>/updates/channel", views.update_channel, name="update-channel"),
    path("clusters/<int:pk>/updates/facts", views.update_facts, name="update-facts"),
    path("clusters/<int:pk>/updates/alerts", views.update_alert, name="update-alert"),
    path("clusters/<int:pk>/updates/progress", views.update_progress, name="update-progress"),
    path("clusters/<int:pk>/updates/inject", views.update_inject, name="update-inject"),
    path("clusters/<int:pk>/updates/pool", views.update_pool, name="update-pool"),
    path("clusters/<int:pk>/updates/ack", views.update_ack, name="update-ack"),
    path("clusters/<int:pk>/updates/pool-max", views.update_pool_max, name="update-pool-max"),
]
