"""`manage.py simulate` runs with fewer cyclic garbage collections (its objects live until
it ends); the process is left as it was, whether the run succeeds or fails."""

from __future__ import annotations

import gc
import io
import json

import pytest
from django.core.management import call_command

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"},
        "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


@pytest.mark.parametrize("items", [[NODE, POD], [NODE, {"kind": "Nonsense"}]], ids=["a run", "a refused input"])
def test_the_collector_is_left_as_it_was(tmp_path, items):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    gc.unfreeze()  # (the process's stored-cluster reads freeze what they keep: scheduling.store.state._settle)
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    out = io.StringIO()
    try:
        call_command("simulate", str(path), stdout=out, stderr=io.StringIO())
    except SystemExit:
        assert items[1]["kind"] == "Nonsense"
    else:
        assert json.loads(out.getvalue())["pods"][0]["node"] == "node1"
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)
