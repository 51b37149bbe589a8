"""The document edits the editor offers (whatif's helpers): pure functions on documents.
What an edit then does is the loop's answer (tests/scheduling/test_whatif_loop.py)."""

from __future__ import annotations

from scheduling.pages import whatif


def test_toleration_edits_go_to_the_pod_template_of_a_controller():
    deployment = {"kind": "Deployment", "metadata": {"name": "d", "namespace": "ns"},
                  "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c"}]}}}}
    out = whatif.add_toleration(deployment, {"key": "k", "operator": "Exists", "effect": "NoExecute"})
    assert out["spec"]["template"]["spec"]["tolerations"] == [{"key": "k", "operator": "Exists", "effect": "NoExecute"}]
    assert "tolerations" not in deployment["spec"]["template"]["spec"]  # the input is untouched
