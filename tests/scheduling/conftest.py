"""Fixtures of the Django-side tests."""

from __future__ import annotations

import pytest

from scheduling.store import services
from tests.scheduling.pages import DEMO


@pytest.fixture
def demo(db):
    """The demo cluster (scheduling/demo/demo-cluster.yaml), stored."""
    return services.import_new_cluster("demo", DEMO.read_text(), DEMO.name)
