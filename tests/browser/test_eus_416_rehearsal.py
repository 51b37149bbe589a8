"""A 4.16 -> 4.18 EUS-to-EUS rehearsal, end to end in the browser, on the 9-node `eus-to-eus-update`
scenario, done by hand (the scenario loaded without its script): pause the worker
and infra pools, update the control plane to 4.17 (acknowledging any admin gate shown), then to
4.18, then resume the pools. At every stop `oc adm upgrade`, `oc adm upgrade status`,
`oc get mcp`, `oc get co` and `oc get nodes` (run by the engine on the stored cluster, in the
same test) must tell the same story: the versions, Progressing, which pools are UPDATED or
UPDATING, each node's kubelet VERSION changing as it reboots, and the workers rolling once.
Screenshots eus-416-*.png."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.browser

from tests.browser.conftest import _page, server_env
from tests.browser.test_eus_rehearsal import run_until, step, update_to
from tests.conftest import ROOT

STORY = ("oc adm upgrade", "oc adm upgrade status", "oc get mcp", "oc get co", "oc get nodes")
KUBE = {"4.16": "1.29", "4.17": "1.30", "4.18": "1.31"}
READ = """
import json, shlex
from scheduling.models import Cluster, Event
from scheduling.store import oc_cli
cluster = Cluster.objects.get(pk={pk})
out = {{}}
for command in {commands!r}:
    chunks = []
    oc_cli.run_on_cluster(cluster, shlex.split(command), lambda stream, text: chunks.append(text))
    out[command] = "".join(chunks)
reboots = {{}}
for name, count in Event.objects.filter(cluster=cluster, reason="Reboot").values_list("involved_name", "count"):
    reboots[name] = reboots.get(name, 0) + count
out["reboots"] = reboots
print("STORY" + json.dumps(out))
"""


def read_story(server, pk: int) -> dict:
    """The five commands' output, from the engine on the stored cluster the browser drives, and
    the Reboot events per node."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", READ.format(pk=pk, commands=STORY)], cwd=ROOT,
                         env=server_env(server.var_dir), check=True, capture_output=True, text=True).stdout
    return json.loads(out[out.index("STORY") + len("STORY"):])


def story_when(server, pk: int, ready, timeout: float = 60.0) -> dict:
    """read_story once `ready(story)` holds, else the last read after `timeout` seconds: with a
    separate worker (distributed mode) the controllers' first sync may still be on its way."""
    deadline = time.monotonic() + timeout
    while True:
        out = read_story(server, pk)
        if ready(out) or time.monotonic() > deadline:
            return out
        time.sleep(1)


def table(text: str) -> dict[str, dict[str, str]]:
    """An `oc get` table by its first column (columns split on runs of spaces; no empty cells)."""
    lines = text.strip().splitlines()
    header = lines[0].split()
    return {row.split()[0]: dict(zip(header, row.split())) for row in lines[1:]}


def minor(kubelet: str) -> str:
    """`v1.29.21+2245128` -> `1.29`."""
    return ".".join(kubelet.removeprefix("v").split(".")[:2])


def pool_of(roles: str) -> str:
    """A node's pool here: master; infra (its own custom pool, over worker); worker."""
    return "master" if "master" in roles.split(",") else "infra" if "infra" in roles.split(",") else "worker"


def check_story(out: dict[str, str], *, version: str, target: str | None, pools: dict[str, tuple[str, str]],
                co_versions: set[str]) -> dict[str, dict[str, str]]:
    """The five outputs agree with each other and with what is expected at this stop; returns the
    nodes table. `version`: the cluster's version; `target`: the update in progress, if any;
    `pools`: each pool's (UPDATED, UPDATING); `co_versions`: the versions the operators report."""
    upgrade, status = out["oc adm upgrade"], out["oc adm upgrade status"]
    mcp, co, nodes = table(out["oc get mcp"]), table(out["oc get co"]), table(out["oc get nodes"])
    if target:
        assert upgrade.startswith(f"info: An upgrade is in progress. Working towards {target}: "), upgrade
        assert f"Target Version:  {target} (from {version})" in status, status
    else:
        assert upgrade.startswith(f"Cluster version is {version}\n"), upgrade
    assert {row["VERSION"] for row in co.values()} == co_versions
    assert {name: (row["UPDATED"], row["UPDATING"]) for name, row in mcp.items()} == pools
    # each pool's UPDATEDMACHINECOUNT against its nodes' kubelets: an updated pool's nodes all run
    # one version (the cluster's, for master once the update is done); an updating pool's updated
    # nodes rebooted into the new one (a node just rebooted, not yet uncordoned, has it already);
    # a paused pool is still on 4.16
    by_pool: dict[str, list[str]] = {}
    for row in nodes.values():
        by_pool.setdefault(pool_of(row["ROLES"]), []).append(minor(row["VERSION"]))
    new = KUBE[(target or version)[:4]]
    for name, row in mcp.items():
        assert int(row["MACHINECOUNT"]) == len(by_pool[name])
        updated = int(row["UPDATEDMACHINECOUNT"])
        if pools[name] == ("True", "False"):
            assert updated == len(by_pool[name]) and len(set(by_pool[name])) == 1, (name, by_pool[name])
            if name == "master" and not target:
                assert by_pool[name][0] == KUBE[version[:4]]
        elif pools[name] == ("False", "True"):
            assert updated <= by_pool[name].count(new) <= updated + 1, (name, updated, by_pool[name])
        else:
            assert updated == 0 and set(by_pool[name]) == {KUBE["4.16"]}, (name, by_pool[name])
    # oc adm upgrade status: each worker pool's completion and each node's version there agree with
    # the kubelets (except a node in the middle of its update)
    if status.strip() == "The cluster is not updating.":
        assert not target and all(v == ("True", "False") for v in pools.values())
    else:
        for line in status.splitlines():
            if m := re.match(r"^(worker|infra)\s+(\w+)\s+\d+% \((\d+)/(\d+)\)", line):
                # completion counts the nodes at the cluster's target version (upstream's meaning),
                # so a paused pool reads 0/3 while `oc get mcp` counts its own rendered config
                done, fresh = int(m.group(3)), by_pool[m.group(1)].count(new)
                assert m.group(4) == mcp[m.group(1)]["MACHINECOUNT"] and done <= fresh <= done + 1, (line, by_pool)
            if (m := re.match(r"^(ip-\S+)\s+(\w+)\s+(\w+)\s+(\d+\.\d+)\.\d+\s", line)) and m.group(2) != "Progressing":
                assert KUBE[m.group(4)] == minor(nodes[m.group(1)]["VERSION"]), line
    return nodes


def screenshot(page, screenshots, name: str) -> None:
    page.screenshot(path=str(screenshots / f"eus-416-{name}.png"), full_page=True)


def test_eus_4_16_to_4_18_by_hand_on_nine_nodes(browser, clusterui_server, console, screenshots):
    server = clusterui_server
    context, page = _page(browser, console)
    page.set_default_timeout(20_000)
    base = server.url
    page.goto(f"{base}/login/?next=/")
    page.fill("#id_username", server.username)
    page.fill("#id_password", server.password)
    page.click("main button[type=submit]")
    page.click("form[action='/scenarios/eus-to-eus-update/load']:has(input[name=script]) button")
    page.wait_for_selector("#live-status.on")
    pk = int(page.url.rstrip("/").rsplit("/", 1)[1])
    all_updated = {"infra": ("True", "False"), "master": ("True", "False"), "worker": ("True", "False")}
    first = story_when(server, pk, lambda out: out["oc adm upgrade"].startswith("Cluster version is"))
    nodes = check_story(first, version="4.16.60", target=None, pools=all_updated, co_versions={"4.16.60"})
    assert len(nodes) == 9 and {minor(r["VERSION"]) for r in nodes.values()} == {"1.29"}
    assert all(re.fullmatch(r"v1\.29\.\d+\+[0-9a-f]{7}", r["VERSION"]) for r in nodes.values())  # OpenShift's form

    # 1. pause every pool but master
    page.goto(f"{base}/clusters/{pk}/updates/progress")
    page.wait_for_selector("#live-status.on")
    for pool in ("worker", "infra"):
        page.click(f"#mcp-{pool} h3 button.editor-control")
        page.wait_for_function(f"document.querySelector('#mcp-{pool} h3').innerText.includes('paused')")
    screenshot(page, screenshots, "1-pools-paused")

    def ack_gates() -> int:
        page.goto(f"{base}/clusters/{pk}/updates/")
        page.wait_for_selector("#cluster-version")
        acked = 0
        while page.locator("#admin-gates button:has-text('Acknowledge')").count():
            page.click("#admin-gates button:has-text('Acknowledge')")
            page.wait_for_selector("#cluster-version")
            acked += 1
        return acked

    # 2. the control plane to 4.17 (the 4.16 CVO ships no admin gate)
    assert ack_gates() == 0
    update_to(page, base, pk, "4.17.56")
    page.wait_for_selector("#live-status.on")
    step(page, 600)
    page.wait_for_timeout(1500)
    check_story(read_story(server, pk), version="4.16.60", target="4.17.56", pools=all_updated,
                co_versions={"4.16.60", "4.17.56"})
    run_until(page, "Cluster version 4.17.56", "#update-summary")
    paused = {"infra": ("False", "False"), "master": ("True", "False"), "worker": ("False", "False")}
    nodes = check_story(read_story(server, pk), version="4.17.56", target=None, pools=paused, co_versions={"4.17.56"})
    assert {pool_of(r["ROLES"]): minor(r["VERSION"]) for r in nodes.values() if "master" in r["ROLES"]} == {"master": "1.30"}
    assert "0/3 updated" in page.inner_text("#mcp-worker h3") and "paused" in page.inner_text("#mcp-worker h3")
    screenshot(page, screenshots, "2-control-plane-4.17")

    # 3. then to 4.18, acknowledging any gate shown
    ack_gates()
    update_to(page, base, pk, "4.18.52")
    page.wait_for_selector("#live-status.on")
    run_until(page, "Cluster version 4.18.52", "#update-summary")
    out = read_story(server, pk)
    nodes = check_story(out, version="4.18.52", target=None, pools=paused, co_versions={"4.18.52"})
    assert {minor(r["VERSION"]) for r in nodes.values() if "master" in r["ROLES"]} == {"1.31"}
    assert "KubeletMinorVersionUpgradeable: Kubelet minor versions on 6 nodes" in out["oc adm upgrade"].replace("\n", " ")
    page.goto(f"{base}/clusters/{pk}/updates/")
    assert "Kubelet minor versions on 6 nodes" in page.inner_text("#cluster-version")
    # Cluster Settings says what the finished control plane waits on
    assert page.inner_text("#progressing-message") == ("The control plane is at 4.18.52; the paused pools infra, worker "
                                                       "wait to be resumed")
    assert page.inner_text("#pool-states") == "master 3/3 updated; infra 0/3 updated, paused; worker 0/3 updated, paused"
    screenshot(page, screenshots, "3-control-plane-4.18-kubelet-skew")

    # 4. resume the pools: the workers roll once, straight from 4.16 to 4.18
    page.goto(f"{base}/clusters/{pk}/updates/progress")
    page.wait_for_selector("#live-status.on")
    for pool in ("worker", "infra"):
        page.click(f"#mcp-{pool} h3 button.editor-control")
        page.wait_for_function(f"!document.querySelector('#mcp-{pool} h3').innerText.includes('paused')")
    step(page, 600)
    page.wait_for_timeout(1500)
    rolling = {"infra": ("False", "True"), "master": ("True", "False"), "worker": ("False", "True")}
    out = read_story(server, pk)
    nodes = check_story(out, version="4.18.52", target=None, pools=rolling, co_versions={"4.18.52"})
    assert "= Worker Upgrade =" in out["oc adm upgrade status"]
    assert {minor(r["VERSION"]) for r in nodes.values() if "master" not in r["ROLES"]} == {"1.29", "1.31"}
    screenshot(page, screenshots, "4-workers-rolling")
    run_until(page, "3/3 updated", "#mcp-worker h3", steps=24)
    run_until(page, "3/3 updated", "#mcp-infra h3", steps=6)
    out = read_story(server, pk)
    nodes = check_story(out, version="4.18.52", target=None, pools=all_updated, co_versions={"4.18.52"})
    assert {minor(r["VERSION"]) for r in nodes.values()} == {"1.31"}
    # each worker and infra node rebooted once (4.16 -> 4.18), each control-plane node twice
    assert out["reboots"] == {name: 2 if "master" in row["ROLES"] else 1 for name, row in nodes.items()}
    for pool in ("worker", "infra"):  # the page's timeline of this update: one reboot each
        for node in page.eval_on_selector_all(f"#mcp-{pool} tbody tr", "rows => rows.map(r => r.id)"):
            assert page.locator(f"[id=\"{node}\"] .seg.reboot").count() == 1, (pool, node)
    screenshot(page, screenshots, "5-done")
    context.close()
