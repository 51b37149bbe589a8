"""Settings come from the environment; bad values stop the start with a clear message."""

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _start(tmp_path, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DEBUG", "SECRET_KEY")}
    base.update(CLUSTERUI_VAR_DIR=str(tmp_path), **env)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=base, capture_output=True, text=True)


@pytest.mark.parametrize(
    "env, message",
    [
        pytest.param({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean", id="a DEBUG that is not a boolean"),
        pytest.param({"REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL='http://127.0.0.1:6379' is not a valid URL", id="a REDIS_URL with the wrong scheme"),
        pytest.param({"DATABASE_URL": "mysql://u@h/db"}, "only sqlite:// and postgres:// are supported", id="an unsupported database"),
        pytest.param({"DATABASE_URL": "nonsense://x"}, "DATABASE_URL='nonsense://x' is not a database URL", id="a DATABASE_URL that is not a URL"),
        pytest.param({"REDIS_URL": "redis://127.0.0.1:6379/0"}, "SECRET_KEY must be set in distributed mode", id="distributed mode without SECRET_KEY"),
    ],
)
def test_bad_settings_fail_at_start(tmp_path, env, message):
    result = _start(tmp_path, **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and message in result.stderr


def test_nothing_set_is_a_working_embedded_setup(tmp_path):
    result = _start(tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "secret_key").exists()


def test_production_settings_pass_the_deploy_checks(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "DEBUG": "0", "HTTPS": "1", "REDIS_URL": "redis://127.0.0.1:6379/0",
             "SECRET_KEY": "x" * 20 + "-production-secret-key-with-enough-entropy-9f8e7d6c5b4a",
             "ALLOWED_HOSTS": "clusterui.example.com", "CLUSTERUI_VAR_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
