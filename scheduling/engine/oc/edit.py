"""`oc edit TYPE NAME` / `oc edit TYPE/NAME` (kubectl pkg/cmd/edit, pkg/cmd/util/editor
editoptions.go), in two steps, as the engine reads no files and launches no editor:

* without an edited file: the object to edit, as kubectl writes it for the editor (the
  header comment of editHeader.writeTo, then the object as `oc get -o yaml|json` prints it),
  handed back in the result's `edit` for the caller to show in an
  editor (the console's editor pane, or $KUBE_EDITOR/$EDITOR for `manage.py oc edit`);
* with the edited text in `files[EDIT_FILE]` ([{"text": ...}]): what kubectl does when the
  editor closes. Comments stripped, the same as the original: `Edit cancelled, no changes
  made.`; no line left: `Edit cancelled, saved file was empty.`; a file that does not parse:
  the editor reopens with `# The edited file had a syntax error: ...` in the header; the
  name, kind or apiVersion changed: `error: At least one of apiVersion, kind and name was
  changed`; an object the API server refuses as invalid: `error: <resource> "<name>" is
  invalid` and the editor reopens with the causes in the header (`# * spec.replicas:
  Invalid value: -1: ...`); a resourceVersion the user changed that is not the object's:
  the API server's Conflict (`could not be patched: Operation cannot be fulfilled ...`).
  Otherwise the change is a JSON merge patch of the original into the edited object (what
  kubectl sends for a kind without a strategic patch schema; for the simulated fields the
  strategic merge gives the same object), applied to the object as it is now:
  `deployment.apps/web edited`."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import yaml

from scheduling.engine import actions as A
from scheduling.engine.api.validation import decode_and_validate, validate_update
from scheduling.engine.store import Store

from .core import OUTPUT, OcError, OcResult, meta, not_found, parse_flags
from .label import targets
from .output import api_document, json_text, yaml_text

EDIT_FILE = "oc-edit"  # files[EDIT_FILE] = [{"text": the edited file}]
FLAGS = (OUTPUT,)
HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")
CHANGED = "At least one of apiVersion, kind and name was changed"


def _hash_on_line_break(text: str) -> str:
    """hashOnLineBreak: a '#' after each line break not followed by one."""
    out = []
    for i, ch in enumerate(text):
        if ch == "\n" and i + 1 < len(text) and text[i + 1] != "#":
            out.append("\n# ")
        else:
            out.append(ch)
    return "".join(out)


def header(reasons: Sequence[tuple[str, Sequence[str]]] = ()) -> str:
    """editHeader.writeTo: the fixed comment, then each reason (`# head:` and `# * cause`
    lines when it has causes) closed by `#`."""
    text = HEADER
    for head, other in reasons:
        text += f"# {_hash_on_line_break(head)}{':' if other else ''}\n"
        text += "".join(f"# * {_hash_on_line_break(o)}\n" for o in other)
        text += "#\n"
    return text


def strip_comments(text: str) -> str:
    """cmdutil.StripComments: the lines whose first non-blank character is not '#'."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("#"))


def manual_strip(text: str) -> str:
    """cmdutil.ManualStrip: the lines that do not start with '#' (the previous header)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("#"))


def _has_lines(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in text.splitlines())


def _render(obj: Any, fmt: str) -> str:
    return json_text(obj) if fmt == "json" else yaml_text(obj)


def _diff(original: Any, edited: Any) -> Any:
    """jsonpatch.CreateMergePatch: what changed, null for a removed key."""
    if not isinstance(original, dict) or not isinstance(edited, dict):
        return edited
    patch: dict = {}
    for key in original:
        if key not in edited:
            patch[key] = None
    for key, value in edited.items():
        if key not in original:
            patch[key] = value
        elif value != original[key]:
            patch[key] = _diff(original[key], value) if isinstance(value, dict) and isinstance(original[key], dict) else value
    return patch


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 MergePatch."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def _reopen(edited_body: str, reasons: Sequence[tuple[str, Sequence[str]]], stderr: str = "") -> OcResult:
    """The editor opened again on the user's text, the reasons in its header."""
    return OcResult(stderr=stderr, exit_code=1 if stderr else 0, edit=header(reasons) + edited_body)


def run(store: Store, args: Sequence[str], now: float = 0.0, *, files: Mapping[str, Any] | None = None) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    if not positional:
        raise OcError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n"
                      "   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'", usage=True)
    fmt = flags.output or "yaml"
    if fmt not in ("yaml", "json"):
        raise OcError("the edit mode doesn't support output the patch" if fmt == "patch"
                      else f"invalid output format \"{fmt}\": the editor supports yaml and json")
    chosen = targets(store, positional, flags.namespace or "default", False, "")
    if len(chosen) != 1:
        raise OcError("the simulator edits one object at a time")
    r, ns, name = chosen[0]
    doc = store.get(r.kind, ns, name)
    if doc is None:
        raise OcError(not_found(r, name).message, raw=True)
    original = api_document(doc)
    body = _render(original, fmt)
    edited_files = list((files or {}).get(EDIT_FILE) or ())
    if not edited_files:
        return OcResult(edit=header() + body)
    edited = str(edited_files[0].get("text") or "")
    if strip_comments(edited) == strip_comments(body):
        return OcResult(stderr="Edit cancelled, no changes made.\n")
    if not _has_lines(edited):
        return OcResult(stderr="Edit cancelled, saved file was empty.\n")
    user_body = manual_strip(edited)
    try:
        new = yaml.safe_load(edited)  # YAMLOrJSONDecoder: a file opening with the '#' header is read as YAML
    except yaml.YAMLError as exc:
        return _reopen(user_body, [(f"The edited file had a syntax error: {_syntax(exc)}", ())])
    if not isinstance(new, dict):
        return _reopen(user_body, [("The edited file had a syntax error: error unmarshaling JSON: Object 'Kind' is missing", ())])
    new_meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
    if ns and new_meta.get("namespace") not in (None, ns):
        raise OcError(f'the namespace from the provided object "{new_meta.get("namespace")}" does not match the namespace '
                      f'"{ns}". You must pass \'--namespace={new_meta.get("namespace")}\' to perform this operation.')
    if new.get("apiVersion") != original.get("apiVersion") or new.get("kind") != original.get("kind") \
            or new_meta.get("name") != (original.get("metadata") or {}).get("name"):
        raise OcError(CHANGED)
    patch = _diff(original, new)
    resource = r.resource_string
    version = (patch.get("metadata") or {}).get("resourceVersion") if isinstance(patch.get("metadata"), dict) else None
    if version is not None and str(version) != str(meta(doc).get("resourceVersion") or ""):
        return OcResult(stderr=f'error: {resource} "{name}" could not be patched: Operation cannot be fulfilled on {resource} '
                               f'"{name}": the object has been modified; please apply your changes to the latest version and '
                               f'try again\nYou can run `oc replace -f {EDIT_FILE}.{fmt}` to try this update again.\n',
                        exit_code=1)
    updated = _merge(doc, patch)
    problems = _problems(r, doc, updated)
    if problems:
        causes = [str(p) for p in problems]
        return _reopen(user_body, [(f'{resource} "{name}" was not valid', causes)], f'error: {resource} "{name}" is invalid\n')
    if updated == doc:
        return OcResult(stdout=f"{r.kind_string}/{name} skipped\n")
    return OcResult(stdout=f"{r.kind_string}/{name} edited\n", actions=[A.ReplaceObject(updated, keep_status=True)])


def _problems(r, old: dict, new: dict) -> list:
    """The API server's validation of the patched object (as the API holds it)."""
    doc, old_doc = api_document(new), api_document(old)
    if r.kind == "Pod":
        return validate_update(doc, old_doc)
    return decode_and_validate(doc, r.namespaced)[1]


def _syntax(exc: Exception) -> str:
    """The parser's message, on one line per line as kubectl's header shows it."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is not None and problem:
        return f"error converting YAML to JSON: yaml: line {mark.line + 1}: {problem}"
    return f"error converting YAML to JSON: {exc}"


run.uses_files = True
run.help_text = """Edit a resource from the default editor.

 The edit command allows you to directly edit any API resource you can retrieve via the command-line tools. It will open
the editor defined by your KUBE_EDITOR, or EDITOR environment variables, or fall back to 'vi' for Linux or 'notepad' for
Windows. When attempting to open the editor, it will first attempt to use the shell that has been defined in the 'SHELL'
environment variable. If this is not defined, the default shell will be used, which is '/bin/bash' for Linux or 'cmd' for
Windows.

 You can edit multiple objects, although changes are applied one at a time. The command accepts file names as well as
command-line arguments, although the files you point to must be previously saved versions of resources.

 Editing is done with the API version used to fetch the resource. To edit using a specific API version, fully-qualify the
resource, version, and group.

 The default format is YAML. To edit in JSON, specify "-o json".

 The flag --windows-line-endings can be used to force Windows line endings, otherwise the default for your operating
system will be used.

 In the event an error occurs while updating, a temporary file will be created on disk that contains your unapplied
changes. The most common error when updating a resource is another editor changing the resource on the server. When this
occurs, you will have to apply your changes to the newer version of the resource, or update your temporary saved copy to
include the latest resource version.

Examples:
  # Edit the service named 'registry'
  kubectl edit svc/registry

  # Use an alternative editor
  KUBE_EDITOR="nano" kubectl edit svc/registry

  # Edit the job 'myjob' in JSON using the v1 API format
  kubectl edit job.v1.batch/myjob -o json

  # Edit the deployment 'mydeployment' in YAML and save the modified config in its annotation
  kubectl edit deployment/mydeployment -o yaml --save-config

  # Edit the 'status' subresource for the 'mydeployment' deployment
  kubectl edit deployment mydeployment --subresource='status'

Usage:
  kubectl edit (RESOURCE/NAME | -f FILENAME) [options]
"""
