"""The releases people run today, from the shipped data: channels of 4.10-4.22 and 5.0, their
edges (4.(y-1) -> 4.y within a channel, never an EUS-to-EUS jump), conditional updates, the
payload's ClusterOperators by runlevel per release, and the Kubernetes version per release."""

from __future__ import annotations

import re

import pytest

from scheduling.engine.openshift import graph as G
from scheduling.engine.openshift.kubelet import kubelet_version, kube_minor
from scheduling.engine.openshift.payload import layout_version, payload


def test_the_channels_of_every_minor_are_there():
    names = set(G.channels())
    for minor in range(10, 23):
        assert {f"candidate-4.{minor}", f"fast-4.{minor}", f"stable-4.{minor}"} <= names
    assert {f"eus-4.{m}" for m in (10, 12, 14, 16, 18, 20, 22)} <= names
    assert "candidate-5.0" in names and "stable-5.0" not in names  # only candidate-5.0 is published
    assert len(names) == 47


def test_an_eus_channel_lists_the_two_minors_before_it():
    minors = {".".join(v.split(".")[:2]) for v in G.channel_versions("eus-4.18")}
    assert minors == {"4.16", "4.17", "4.18"}
    odd = {".".join(v.split(".")[:2]) for v in G.channel_versions("stable-4.17")}
    assert odd == {"4.16", "4.17"}


def test_eus_to_eus_goes_through_the_odd_minor():
    targets = [e.target for e in G.updates_from("4.16.60", "eus-4.18")]
    assert targets and all(t.startswith(("4.16.", "4.17.")) for t in targets)
    assert "4.17.56" in targets
    assert {e.target for e in G.updates_from("4.17.56", "eus-4.18")} == {"4.18.51", "4.18.52"}
    assert "4.19.41" in [e.target for e in G.updates_from("4.18.44", "eus-4.20")]
    assert {e.target for e in G.updates_from("4.19.41", "eus-4.20")} == {"4.20.32", "4.20.33"}


def test_4_22_is_followed_by_5_0():
    assert G.next_minor("4.22") == "5.0" and G.next_minor("4.21") == "4.22" and G.next_minor("5.0") is None
    targets = [e.target for e in G.updates_from("4.22.5", "candidate-5.0")]
    assert "5.0.0-ec.6" in targets


def test_conditional_updates_of_the_new_minors_carry_their_risks():
    edges = {e.target: [r.name for r in e.risks] for e in G.updates_from("4.16.55", "eus-4.18")}
    assert edges["4.16.58"] == ["DTK_4_16_58_KernelMismatch"]
    assert edges["4.17.56"] == []


@pytest.mark.parametrize("version, layout", [("4.10.3", "4.12"), ("4.15.9", "4.14"), ("4.16.60", "4.16"), ("4.17.56", "4.16"),
                                             ("4.19.41", "4.18"), ("4.21.4", "4.20"), ("4.22.11", "4.22"), ("5.0.0-ec.6", "4.22")])
def test_a_release_uses_the_newest_payload_layout_not_newer_than_itself(version, layout):
    assert layout_version(version) == layout


def test_new_operators_appear_in_their_runlevels():
    p16, p18, p22 = payload("4.16.60"), payload("4.18.44"), payload("4.22.11")
    assert "olm" not in p16.cluster_operators  # TechPreviewNoUpgrade-only in 4.16
    assert p18.runlevel_of("olm") == "51"  # OLM v1, gated by the OperatorLifecycleManagerV1 capability
    assert "cluster-api" not in p18.cluster_operators and p22.runlevel_of("cluster-api") == "30"
    assert "platform-operators-aggregated" not in p16.cluster_operators
    assert p18.runlevel_of("etcd") == "20" and p18.runlevel_of("machine-config") == "80"
    assert (p16.manifest_count, p18.manifest_count) == (608, 624)


@pytest.mark.parametrize("version, minor", [("4.10.3", 23), ("4.14.2", 27), ("4.16.60", 29), ("4.17.56", 30), ("4.18.44", 31),
                                            ("4.20.33", 33), ("4.22.11", 35), ("5.0.0-ec.6", 36)])
def test_each_release_ships_its_kubernetes_minor(version, minor):
    assert kube_minor(version) == minor
    assert kubelet_version(version).startswith(f"v1.{minor}.")
    # as an OpenShift kubelet reports it (a 4.16 node: v1.29.10+67d3387): git version, +commit
    assert re.fullmatch(rf"v1\.{minor}\.\d+\+[0-9a-f]{{7}}", kubelet_version(version))


def test_a_version_that_is_no_release_has_no_kubelet():
    assert kubelet_version("latest") == "" and kube_minor("3.11.0") is None
