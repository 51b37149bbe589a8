from django.contrib import admin

from .models import KIND_MODELS, Cluster, Event

admin.site.register(Cluster)
admin.site.register(Event)
for model in KIND_MODELS.values():
    admin.site.register(model)
