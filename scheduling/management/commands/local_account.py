"""Prepare the local editor account for `make run` and say how to use it."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create (once) the local account that may edit clusters; print its credentials."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        path = settings.VAR_DIR / "local-account.txt"
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        password = None
        if path.exists():
            stored_user, _, stored_password = path.read_text().strip().partition(":")
            if stored_user == username and user is not None and user.check_password(stored_password):
                password = stored_password
        if password is None:
            password = secrets.token_urlsafe(12)
            if user is None:
                user = User.objects.create_superuser(username, "", password)
            else:
                user.set_password(password)
                user.save()
            settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{username}:{password}\n")
            path.chmod(0o600)
        user.user_permissions.add(Permission.objects.get(codename="edit_cluster", content_type__app_label="scheduling"))
        self.stdout.write(
            f"Local account: user {username!r}, password {password!r} (kept in {path}). "
            "Log in at /login/ to create, import and change clusters; anyone can look without logging in."
        )
