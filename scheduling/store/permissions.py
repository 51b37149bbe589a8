"""Who may do what. Anyone may look; changing a cluster needs the edit permission."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from scheduling.models import Cluster

EDIT_PERMISSION = "scheduling.edit_cluster"


def can_edit(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.has_perm(EDIT_PERMISSION))


def get_cluster_for_user(request, pk: int, *, write: bool = False) -> Cluster:
    cluster = get_object_or_404(Cluster, pk=pk)
    if write and not can_edit(request.user):
        raise PermissionDenied("you are not allowed to change clusters")
    return cluster


def require_editor(request) -> None:
    if not can_edit(request.user):
        raise PermissionDenied("you are not allowed to change clusters")
