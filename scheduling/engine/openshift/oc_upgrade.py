"""`oc adm upgrade`, `oc adm upgrade channel` and `oc adm upgrade rollback` over the simulated
cluster's documents, with the wording, order and layout of openshift/oc
pkg/cli/admin/upgrade (upgrade.go, channel/, rollback/; `status` is oc_status.py,
`recommend` oc_recommend.py). Each is a
command of scheduling.engine.oc.commands.COMMANDS: `run(store, args, now) -> OcResult`
(read only; the actions say what to change: a ClusterVersion spec patch).

Times: documents hold simulated seconds (stored clusters) or RFC 3339 strings (snapshots),
both on the scale of scheduling.engine.oc.output (second 0 = 2026-01-01T00:00:00Z).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.oc.core import Flag, OcError, OcResult, parse_flags
from scheduling.engine.oc.output import tabwriter
from scheduling.engine.store import Store

from .conditions import find
from .versions import Version, VersionError, is_version, semver_error

NO_CV = ("No cluster version information available - you must be connected to an OpenShift version 4 server to fetch "
         "the current version")
FORCE_WARNING = ("warning: --force overrides cluster verification of your supplied release image and waives any update "
                 "precondition failures. Only use this if you are testing unsigned release images or you are working around "
                 "a known bug in the cluster-version operator and you have verified the authenticity of the provided image "
                 "yourself.")

Doc = Mapping[str, Any]


def _cv(store: Store, message: str = NO_CV) -> dict:
    cv = store.get("ClusterVersion", "", "version")
    if cv is None:
        raise OcError(message)
    return cv


def _conds(cv: Doc) -> list:
    return (cv.get("status") or {}).get("conditions") or []


def _indent(message: str) -> str:
    return (message or "").replace("\n", "\n  ")


def _sort_releases(releases: list) -> list:
    def key(r):
        v = r.get("version") or ""
        return (1, Version(v)) if is_version(v) else (0, v)
    return sorted(releases, key=key, reverse=True)


def _sort_conditional(updates: list) -> list:
    def key(u):
        v = (u.get("release") or {}).get("version") or ""
        return (1, Version(v)) if is_version(v) else (0, v)
    return sorted(updates, key=key, reverse=True)


def _recommended(update: Doc) -> Mapping[str, Any] | None:
    return find(update.get("conditions"), "Recommended")


def _not_recommended(update: Doc) -> bool:
    c = _recommended(update)
    return c is not None and c.get("status") != "True"


def _patch_desired(cv: Doc, update: Mapping[str, Any] | None) -> A.ReplaceObject:
    doc = copy.deepcopy(dict(cv))
    spec = dict(doc.get("spec") or {})
    if update is None:
        spec.pop("desiredUpdate", None)
    else:
        spec["desiredUpdate"] = dict(update)
    doc["spec"] = spec
    doc.pop("status", None)
    return A.ReplaceObject(doc, keep_status=True)


def check_for_upgrade(cv: Doc) -> str | None:
    results = []
    c = find(_conds(cv), "Invalid")
    if c is not None and c.get("status") == "True":
        results.append("the cluster version object is invalid, you must correct the invalid state first:\n\n"
                       f"  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}")
    c = find(_conds(cv), "Failing")
    if c is not None and c.get("status") == "True":
        desired = (cv.get("status") or {}).get("desired") or {}
        target = desired.get("version") or desired.get("image") or \
            "ClusterVersion status.desired has neither a version nor image; please open a bug"
        results.append(f'the cluster is experiencing an error reconciling "{target}":\n\n'
                       f"  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}")
    c = find(_conds(cv), "Progressing")
    if c is not None and c.get("status") == "True":
        results.append(f"the cluster is already upgrading:\n\n  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}")
    return "\n\n".join(results) if results else None


_IMAGE = re.compile(r"^(?P<name>[^@]+?)(?::(?P<tag>[\w][\w.-]{0,127}))?(?:@(?P<id>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}))?$")


def _image_parts(image: str) -> tuple[bool, str, str]:
    """(has a registry or namespace, tag, digest) of a pull spec; OcError when it cannot parse."""
    m = _IMAGE.match(image)
    if not m or not m.group("name") or " " in image:
        raise OcError(f"--to-image must be a valid image pull spec: invalid reference format")
    return "/" in m.group("name"), m.group("tag") or "", m.group("id") or ""


def _digest(image: str) -> str:
    return image.partition("@")[2]


def _target_match(release: Doc, to: str, to_image: str) -> bool:
    if to and release.get("version") == to:
        return True
    if to_image:
        if release.get("image") == to_image:
            return True
        d = _digest(to_image)
        return bool(d) and _digest(release.get("image") or "") == d
    return False


UPGRADE_FLAGS = [Flag("to", "string", "", ""), Flag("to-image", "string", "", ""), Flag("to-latest"), Flag("to-multi-arch"),
                 Flag("clear"), Flag("force"), Flag("allow-explicit-upgrade"), Flag("allow-upgrade-with-warnings"),
                 Flag("include-not-recommended"), Flag("allow-not-recommended")]


def upgrade(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, f = parse_flags(args, UPGRADE_FLAGS)
    if positional:
        raise OcError(f"unexpected arguments: [{' '.join(positional)}]", usage=True)
    to, to_image = f["to"], f["to-image"]
    if f.clear and (to_image or to or f["to-latest"] or f["to-multi-arch"]):
        raise OcError("--clear may not be specified with any other flags")
    if f["to-multi-arch"] and (to or to_image or f["to-latest"]):
        raise OcError("--to-multi-arch may not be used with --to, --to-image, or --to-latest")
    if to and to_image:
        raise OcError("only one of --to or --to-image may be provided")
    if to:
        try:
            Version(to)
        except VersionError as exc:
            raise OcError(f"--to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): {exc}") from None
    out: list[str] = []
    err: list[str] = []
    if to_image:
        has_repo, tag, digest = _image_parts(to_image)
        if not has_repo:
            raise OcError("--to-image must be a valid image pull spec: no registry or repository specified")
        if not digest and not tag:
            raise OcError("--to-image must be a valid image pull spec: no tag or digest specified")
        if tag and not digest:
            if f.force:
                err.append("warning: Using by-tag pull specs is dangerous, and while we still allow it in combination with "
                           "--force for backward compatibility, it would be much safer to pass a by-digest pull spec instead\n")
            else:
                raise OcError("--to-image must be a by-digest pull spec, unless --force is also set, because release images "
                              "that are not accessed via digest cannot be verified by the cluster.  Even when --force is set, "
                              "using tags is not recommended, although we continue to allow it for backwards compatibility")
    cv = _cv(store)
    spec = cv.get("spec") or {}
    status = cv.get("status") or {}
    desired = status.get("desired") or {}

    def done(actions: list | None = None) -> OcResult:
        return OcResult(stdout="".join(out), stderr="".join(err), actions=actions or [])

    if f.clear:
        original = spec.get("desiredUpdate")
        if original is None:
            out.append("info: No update in progress\n")
            return done()
        keep = {"acceptRisks": original["acceptRisks"]} if original.get("acceptRisks") else None
        equivalent = ((original.get("image") and desired.get("image") and original["image"] == desired["image"])
                      or (not (original.get("image") and desired.get("image")) and original.get("version")
                          and desired.get("version") and original["version"] == desired["version"]))
        if equivalent:
            out.append(f"Cleared the update field, still at {desired.get('version') or desired.get('image') or '<unknown>'}\n")
        else:
            out.append(f"Cancelled requested upgrade to {original.get('version') or original.get('image') or '<unknown>'}\n")
        return done([_patch_desired(cv, keep)])

    if f["to-multi-arch"]:
        if (spec.get("desiredUpdate") or {}).get("architecture") == "Multi":
            raise OcError("info: Update to multi cluster architecture has already been requested")
        problem = check_for_upgrade(cv)
        if problem:
            if not f["allow-upgrade-with-warnings"]:
                raise OcError(f"{problem}\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.")
            err.append(f"warning: --allow-upgrade-with-warnings is bypassing: {problem}\n")
        update: dict[str, Any] = {"architecture": "Multi", "version": desired.get("version", "")}
        if f.force:
            update["force"] = True
            err.append(FORCE_WARNING + "\n")
        out.append("Requested update to multi cluster architecture\n")
        return done([_patch_desired(cv, update)])

    if f["to-latest"] or to or to_image:
        if to and to == desired.get("version"):
            out.append(f"info: Cluster is already at version {to}\n")
            return done()
        if to_image and to_image == desired.get("image"):
            out.append(f"info: Cluster is already at {to_image}\n")
            return done()
        update = None
        possible: list[dict] = []
        recommended_conditions: dict[str, Mapping[str, Any]] = {}
        for available in status.get("availableUpdates") or []:
            if _target_match(available, to, to_image):
                update = {"version": available.get("version", ""), "image": to_image or available.get("image", "")}
                break
            possible.append(available)
        if update is None:
            for cu in status.get("conditionalUpdates") or []:
                c = _recommended(cu)
                if c is None or c.get("status") == "True":
                    continue
                release = cu.get("release") or {}
                if _target_match(release, to, to_image):
                    if not f["allow-not-recommended"]:
                        raise OcError(
                            f"the update {release.get('version')} is not one of the recommended updates, but is available as a "
                            f"conditional update. To accept the {c.get('type')}={c.get('status')} risk and to proceed with "
                            f"update use --allow-not-recommended.\n  Reason: {c.get('reason', '')}\n  Message: "
                            f"{_indent(c.get('message', ''))}\n")
                    update = {"version": release.get("version", ""), "image": release.get("image", "")}
                    err.append(f"warning: with --allow-not-recommended you have accepted the risks with {release.get('version')} "
                               f"and bypassed {c.get('type')}={c.get('status')} {c.get('reason', '')}: {c.get('message', '')}\n")
                    break
                if f["allow-not-recommended"]:
                    possible.append(release)
                    recommended_conditions[release.get("image", "")] = c
        if update is None and to_image and f["allow-explicit-upgrade"]:
            update = {"version": "", "image": to_image}
            err.append("warning: The requested upgrade image is not one of the available updates. You have used "
                       "--allow-explicit-upgrade for the update to proceed anyway\n")
        possible = _sort_releases(possible)
        if f["to-latest"] and possible:
            update = {"version": possible[0].get("version", ""), "image": possible[0].get("image", "")}
            c = recommended_conditions.get(update["image"])
            if c is not None:
                err.append(f"warning: with --allow-not-recommended you have accepted the risks with {update['version']} and "
                           f"bypassed {c.get('type')}={c.get('status')} {c.get('reason', '')}: {c.get('message', '')}\n")
        if update is None:
            c = find(_conds(cv), "RetrievedUpdates")
            option = "--allow-explicit-upgrade" if to_image else "--to-image"
            article = "an" if f["to-latest"] else "the"
            next_step = f"{option} to continue with {article} update"
            if c is not None and c.get("status") != "True":
                raise OcError(f"cannot refresh available updates:\n  Reason: {c.get('reason', '')}\n  Message: "
                              f"{_indent(c.get('message', ''))}\n\nspecify {next_step}.")
            if not possible and f["allow-not-recommended"]:
                raise OcError(f"no recommended or conditional updates, specify {next_step} or wait for new updates to be available.")
            if not possible and f["to-latest"]:
                out.append(f"info: Cluster is already at the latest available version {desired.get('version', '')}\n")
                return done()
            if not possible:
                raise OcError(f"no recommended updates, specify {next_step} or wait for new updates to be available.")
            versions = ", ".join(r.get("version", "") for r in possible)
            raise OcError(f"the update is not one of the possible targets: {versions}. specify {next_step}.")
        if f.force:
            update["force"] = True
            err.append(FORCE_WARNING + "\n")
        problem = check_for_upgrade(cv)
        if problem:
            if not f["allow-upgrade-with-warnings"]:
                raise OcError(f"{problem}\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.")
            err.append(f"warning: --allow-upgrade-with-warnings is bypassing: {problem}\n")
        if (spec.get("desiredUpdate") or {}).get("acceptRisks"):
            update["acceptRisks"] = spec["desiredUpdate"]["acceptRisks"]
        if update.get("version"):
            out.append(f"Requested update to {update['version']}\n")
        else:
            out.append(f"Requested update to release image {update['image']}\n")
        return done([_patch_desired(cv, update)])

    # no flags: print the cluster's update status
    c = find(_conds(cv), "Failing")
    if c is not None:
        if c.get("status") != "False":
            out.append(f"{c.get('type')}={c.get('status')}:\n\n  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}\n\n")
    else:
        err.append("warning: No current Failing info, see `oc describe clusterversion` for more details.\n")
    c = find(_conds(cv), "Progressing")
    if c is not None and c.get("message"):
        if c.get("status") == "True":
            out.append(f"info: An upgrade is in progress. {c.get('message')}\n")
        else:
            out.append(f"{c.get('message')}\n")
    else:
        err.append("warning: No current Progressing info, see `oc describe clusterversion` for more details.\n")
    out.append("\n")
    c = find(_conds(cv), "Upgradeable")
    if c is not None and c.get("status") == "False":
        out.append(f"{c.get('type')}={c.get('status')}\n\n  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}\n\n")
    c = find(_conds(cv), "ReleaseAccepted")
    if c is not None and c.get("status") != "True":
        out.append(f"ReleaseAccepted={c.get('status')}\n\n  Reason: {c.get('reason', '')}\n  Message: {_indent(c.get('message', ''))}\n\n")
    if spec.get("channel"):
        if not spec.get("upstream"):
            out.append("Upstream is unset, so the cluster will use an appropriate default.\n")
        else:
            out.append(f"Upstream: {spec['upstream']}\n")
        if desired.get("channels"):
            out.append(f"Channel: {spec['channel']} (available channels: {', '.join(desired['channels'])})\n")
        else:
            out.append(f"Channel: {spec['channel']}\n")
    retrieved = find(_conds(cv), "RetrievedUpdates")
    available = status.get("availableUpdates") or []
    if available:
        out.append("\nRecommended updates:\n\n")
        rows = [["  VERSION", "IMAGE"]] + [[f"  {u.get('version', '')}", u.get("image", "")] for u in _sort_releases(available)]
        out.append(tabwriter(rows, minwidth=14, padding=1))
        if retrieved is not None and retrieved.get("status") == "False":
            err.append(f"warning: Cannot refresh available updates:\n  Reason: {retrieved.get('reason', '')}\n  Message: "
                       f"{_indent(retrieved.get('message', ''))}\n\n")
    elif retrieved is not None and retrieved.get("status") == "False":
        err.append(f"warning: Cannot display available updates:\n  Reason: {retrieved.get('reason', '')}\n  Message: "
                   f"{_indent(retrieved.get('message', ''))}\n\n")
    else:
        out.append("No updates available. You may still upgrade to a specific release image with --to-image or wait for new "
                   "updates to be available.\n")
    conditional = status.get("conditionalUpdates") or []
    if f["include-not-recommended"]:
        if any(_not_recommended(u) for u in conditional):
            out.append("\nUpdates with known issues:\n")
            for u in _sort_conditional(conditional):
                c = _recommended(u)
                if c is not None and c.get("status") != "True":
                    release = u.get("release") or {}
                    out.append(f"\n  Version: {release.get('version', '')}\n  Image: {release.get('image', '')}\n")
                    out.append(f"  Reason: {c.get('reason', '')}\n  Message: {_indent((c.get('message') or '').strip())}\n")
        else:
            out.append("\nNo updates which are not recommended based on your cluster configuration are available.\n")
    elif any(_not_recommended(u) for u in conditional):
        qualifier = ""
        for u in conditional:
            c = _recommended(u)
            if c is not None and c.get("status") not in ("True", "False"):
                qualifier = f', or where the recommended status is "{c.get("status")}",'
                break
        out.append(f"\nAdditional updates which are not recommended{qualifier} for your cluster configuration are available, "
                   "to view those re-run the command with --include-not-recommended.\n")
    return done()


# --- oc adm upgrade channel ----------------------------------------------------------------------------------


def _upgrade_writes(args: Sequence[str]) -> bool:
    """upgrade.go Run: --clear, --to-multi-arch, --to-latest, --to and --to-image change
    spec.desiredUpdate; without them the command only prints the cluster's status and its
    updates (a read any user may run). Arguments it would refuse change nothing either."""
    try:
        positional, f = parse_flags(args, UPGRADE_FLAGS)
    except OcError:
        return False
    return not positional and bool(f.clear or f["to-multi-arch"] or f["to-latest"] or f["to"] or f["to-image"])


def _refusal(wrapper: str):
    """The error oc prints when the API server refuses its merge patch of the ClusterVersion
    (upgrade.go, channel.go, rollback.go wrap the Forbidden error: "<wrapper>: <error>")."""
    def refused(username: str, args: Sequence[str]) -> str:
        return (f'error: {wrapper(args)}: clusterversions.config.openshift.io "version" is forbidden: User "{username}" cannot '
                'patch resource "clusterversions" in API group "config.openshift.io" at the cluster scope\n')
    return refused


upgrade.writes = _upgrade_writes
upgrade.refused = _refusal(lambda args: "Unable to cancel current rollout" if "--clear" in args else "Unable to upgrade")
upgrade.dry_run = False  # none of the `oc adm upgrade` commands has a --dry-run flag


def channel(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, f = parse_flags(args, [Flag("allow-explicit-channel")])
    if len(positional) > 1:
        raise OcError(f"multiple positional arguments given", usage=True)
    wanted = positional[0] if positional else ""
    cv = _cv(store, "no cluster version information available - you must be connected to an OpenShift version 4 server to "
                    "fetch the current version")
    spec = cv.get("spec") or {}
    desired = (cv.get("status") or {}).get("desired") or {}
    current = spec.get("channel") or ""
    err: list[str] = []
    if wanted == current:
        if not current:
            return OcResult(stdout="info: Cluster channel is already clear (no change)\n")
        return OcResult(stdout=f"info: Cluster is already in {current} (no change)\n")
    known_channels = desired.get("channels") or []
    if known_channels:
        found, known = wanted in known_channels, current in known_channels
        if not wanted:
            if known and not f["allow-explicit-channel"]:
                raise OcError(f'You are requesting to clear the update channel. The current channel "{current}" is one of the '
                              "available channels, you must pass --allow-explicit-channel to continue\n")
        elif not found:
            listed = ", ".join(known_channels)
            if not f["allow-explicit-channel"]:
                raise OcError(f'the requested channel "{wanted}" is not one of the available channels ({listed}), you must '
                              "pass --allow-explicit-channel to continue\n")
            err.append(f'warning: The requested channel "{wanted}" is not one of the available channels ({listed}). You have '
                       f'used --allow-explicit-channel to proceed anyway. Setting the update channel to "{wanted}".\n')
    elif wanted:
        err.append(f'warning: No channels known to be compatible with the current version "{desired.get("version", "")}"; '
                   f'unable to validate "{wanted}". Setting the update channel to "{wanted}" anyway.\n')
    if not wanted:
        err.append(f'warning: Clearing channel "{current}"; cluster will no longer request available update recommendations.\n')
    doc = copy.deepcopy(dict(cv))
    doc["spec"] = {**spec, "channel": wanted}
    doc.pop("status", None)
    return OcResult(stderr="".join(err), actions=[A.ReplaceObject(doc, keep_status=True)])


# --- oc adm upgrade rollback ----------------------------------------------------------------------------------
# pkg/cli/admin/upgrade/rollback (hidden, behind OC_ENABLE_CMD_UPGRADE_ROLLBACK in oc; offered here as
# oc with that gate enabled). The cluster-version operator's ClusterVersionRollback precondition
# (scheduling.engine.openshift.cvo) accepts the same rollbacks.


def rollback(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, _ = parse_flags(args, [])
    if positional:
        raise OcError(f"unexpected arguments: [{' '.join(positional)}]", usage=True)
    cv = _cv(store, "no cluster version information available - you must be connected to an OpenShift version 4 server to "
                    "fetch the current version")
    status = cv.get("status") or {}
    desired = status.get("desired") or {}
    try:
        target = Version(desired.get("version") or "")
    except VersionError as exc:
        raise OcError(f"invalid ClusterVersion status.desired.version: {semver_error(desired.get('version') or '', exc)}") from None
    image = desired.get("image") or ""
    previous: Version | None = None
    previous_image = ""
    for entry in status.get("history") or ():
        if entry.get("version") != target.text or entry.get("image") != image:
            try:
                previous = Version(entry.get("version") or "")
            except VersionError as exc:
                raise OcError(f'previous version "{entry.get("version") or ""}" invalid SemVer: '
                              f"{semver_error(entry.get('version') or '', exc)}") from None
            previous_image = entry.get("image") or ""
            break
    if previous is None:
        raise OcError(f"no previous version found in ClusterVersion's status.history besides the current {target.text} ({image}).")
    if previous >= target:
        raise OcError(f"previous version {previous.text} ({previous_image}) is greater than or equal to current version "
                      f"{target.text} ({image}).  Use 'oc adm upgrade ...' to update, and not this rollback command.")
    if (previous.major, previous.minor) != (target.major, target.minor):
        raise OcError(f"{previous.text} is less than the current target {target.text} and matches the cluster's previous "
                      "version, but rollbacks that change major or minor versions are not recommended.")
    c = find(_conds(cv), "Progressing")
    if c is None:
        raise OcError("no current Progressing info, see `oc describe clusterversion` for more details.\n")
    if c.get("status") != "False":
        raise OcError(f"unable to rollback while an update is {c.get('type')}={c.get('status')}: {c.get('reason', '')}: "
                      f"{c.get('message', '')}.")
    # the merge patch {"spec":{"desiredUpdate": {"architecture":"","version":...,"image":...,"force":false}}}
    update = {**((cv.get("spec") or {}).get("desiredUpdate") or {}),
              "architecture": "", "version": previous.text, "image": previous_image, "force": False}
    return OcResult(stdout=f"Requested rollback from {target.text} to {previous.text}\n", actions=[_patch_desired(cv, update)])


channel.refused = _refusal(lambda args: "unable to set channel")
channel.dry_run = False
rollback.refused = _refusal(lambda args: "Unable to rollback")
rollback.dry_run = False
rollback.help_text = """Rollback the cluster to the previous release.

 Only patch version rollbacks within the same z stream, e.g. 4.y.newer to 4.y.older, are accepted by the cluster-version operator.  Minor version rollbacks from 4.newer to 4.older are not accepted. Updates to releases other than the most-recent previous release that the cluster was attempting are not accepted.  Rolling back re-exposes the cluster to all the bugs which had been fixed from 4.y.older to 4.y.newer.  In most cases, you probably want to understand what is having trouble and roll forward with fixes.

Usage:
  oc adm upgrade rollback [flags] [options]

Use "oc options" for a list of global command-line options (applies to all commands).
"""
