"""Objects imported into a stored cluster (manage.py import_cluster; load_demo and the import
page write through the same services.apply_documents) are created at the cluster's clock
when they come without a creationTimestamp or with `creationTimestamp: null` (what
`oc create --dry-run=client -o yaml` writes); a time given is kept. `oc get -o json` shows it."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from scheduling.store import clock, services
from tests.scheduling.test_oc_command import oc

DOCS = """\
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Node
metadata: {name: late, creationTimestamp: null}
---
apiVersion: v1
kind: Node
metadata: {name: given, creationTimestamp: "2025-12-31T23:00:00Z"}
"""


def test_import_cluster_stamps_objects_with_the_clusters_clock(db, tmp_path):
    cluster = services.create_cluster("later")
    clock.step(cluster, 120)
    path = tmp_path / "objects.yaml"
    path.write_text(DOCS)
    call_command("import_cluster", "later", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    stdout, stderr, code = oc("--cluster", "later", "get", "namespaces,nodes", "-o", "json")
    assert code == 0, stderr
    system = {"default", "kube-system", "kube-public", "kube-node-lease"}  # every running cluster has them
    assert [(i["kind"], i["metadata"]["name"], i["metadata"]["creationTimestamp"]) for i in json.loads(stdout)["items"]
            if i["metadata"]["name"] not in system] == [
        ("Namespace", "team", "2026-01-01T00:02:00Z"),
        ("Node", "given", "2025-12-31T23:00:00Z"),
        ("Node", "late", "2026-01-01T00:02:00Z"),
    ]
