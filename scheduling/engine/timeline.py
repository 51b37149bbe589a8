"""The Timeline document (simulated time): a scripted scenario.

```yaml
apiVersion: clusterui.io/v1alpha1
kind: Timeline
metadata: {name: taint-node1}
steps:
- at: 0          # simulated seconds
  apply: {apiVersion: v1, kind: Node, metadata: {name: node1}, spec: {taints: [...]}}
- at: 30
  delete: {kind: Pod, namespace: default, name: web-1}
- at: 60
  run: oc adm taint nodes node1 k-
  description: node1's taint is removed   # optional, shown in the script on screen
```

`load_timeline(doc)` checks a parsed document (a dict: the engine reads no YAML) and
returns a `Timeline` whose `apply` objects are validated with engine.api.validation (the API
server's rules and messages) and defaulted with engine.api.defaults; it raises
`TimelineError` naming the document, the field path and the message:
`Timeline "t" is invalid: steps[1].apply: Node "n1" is invalid: spec.taints[0].effect: ...`.

Steps run in time order; steps with the same `at` run in document order (and, across
Timelines, in input order). `apply` replaces the whole object like `kubectl replace`
(created when missing; a document without `status` keeps the stored status, as the
status subresource would); `delete` deletes the object (a pod gracefully, a workload
with its pods); `run` runs an `oc` command (engine.oc).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from scheduling.engine.api.defaults import CLUSTERUI_API_VERSION, KINDS, apply_defaults
from scheduling.engine.api.validation import decode_and_validate, go_quote, invalid_error

TIMELINE_KIND = "Timeline"
STEP_ACTIONS = ("apply", "delete", "run")


class TimelineError(ValueError):
    """A Timeline document that cannot be played; str() is the message for the user."""


@dataclass(frozen=True)
class Step:
    at: float
    index: int
    action: str  # apply | delete | run
    object: Mapping[str, Any] | None = None  # apply: the validated, defaulted document
    has_status: bool = False  # apply: the step gave a status
    kind: str = ""  # delete
    namespace: str = ""
    name: str = ""
    command: str = ""  # run
    description: str = ""  # what the step shows, for the script on screen (optional)

    def describe(self) -> str:
        if self.action == "apply":
            m = self.object.get("metadata") or {}
            ns = f"{m['namespace']}/" if m.get("namespace") else ""
            return f"apply {self.object.get('kind')} {ns}{m.get('name')}"
        if self.action == "delete":
            ns = f"{self.namespace}/" if self.namespace else ""
            return f"delete {self.kind} {ns}{self.name}"
        return self.command


@dataclass(frozen=True)
class Timeline:
    name: str
    steps: tuple[Step, ...]


def _quote(value: Any) -> str:
    return go_quote(value) if isinstance(value, str) else str(value)


def load_timeline(doc: Mapping[str, Any]) -> Timeline:
    m = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    name = m.get("name") if isinstance(m.get("name"), str) else ""
    errors: list[str] = []
    if doc.get("apiVersion") != CLUSTERUI_API_VERSION:
        errors.append(f"apiVersion: Unsupported value: {_quote(doc.get('apiVersion'))}: supported values: {go_quote(CLUSTERUI_API_VERSION)}")
    if not name:
        errors.append("metadata.name: Required value: name or generateName is required")
    raw_steps = doc.get("steps")
    if raw_steps is None:
        raw_steps = []
    steps: list[Step] = []
    if not isinstance(raw_steps, list):
        errors.append("steps: Invalid value: must be a list of steps")
        raw_steps = []
    for i, raw in enumerate(raw_steps):
        path = f"steps[{i}]"
        if not isinstance(raw, Mapping):
            errors.append(f"{path}: Invalid value: must be a mapping with `at` and one of apply, delete or run")
            continue
        at = raw.get("at")
        if at is None:
            errors.append(f"{path}.at: Required value")
            at = 0
        elif isinstance(at, bool) or not isinstance(at, (int, float)):
            errors.append(f"{path}.at: Invalid value: {_quote(at)}: must be a number of seconds")
            at = 0
        elif at < 0:
            errors.append(f"{path}.at: Invalid value: {at}: must be greater than or equal to 0")
        given = [k for k in STEP_ACTIONS if k in raw]
        if not given:
            errors.append(f"{path}: Required value: one of apply, delete or run")
            continue
        if len(given) > 1:
            errors.append(f"{path}: Invalid value: {', '.join(given)}: only one of apply, delete or run may be given")
            continue
        description = raw.get("description", "")
        if not isinstance(description, str):
            errors.append(f"{path}.description: Invalid value: {_quote(description)}: must be a string")
            description = ""
        action = given[0]
        value = raw[action]
        if action == "apply":
            step = _apply_step(value, f"{path}.apply", float(at), i, errors)
        elif action == "delete":
            step = _delete_step(value, f"{path}.delete", float(at), i, errors)
        else:
            if not isinstance(value, str) or not value.strip():
                errors.append(f"{path}.run: Invalid value: {_quote(value)}: must be an oc command")
                continue
            step = Step(float(at), i, "run", command=value.strip())
        if step is not None:
            steps.append(replace(step, description=description.strip()) if description.strip() else step)
    if errors:
        detail = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise TimelineError(f"Timeline {go_quote(name)} is invalid: {detail}")
    steps.sort(key=lambda s: (s.at, s.index))
    return Timeline(name, tuple(steps))


def _kind_errors(kind: Any, path: str, errors: list[str]) -> bool:
    if not isinstance(kind, str) or not kind:
        errors.append(f"{path}.kind: Required value")
        return False
    if kind not in KINDS:
        supported = ", ".join(go_quote(k) for k in sorted(KINDS))
        errors.append(f"{path}.kind: Unsupported value: {go_quote(kind)}: supported values: {supported}")
        return False
    return True


def _apply_step(value: Any, path: str, at: float, index: int, errors: list[str]) -> Step | None:
    if not isinstance(value, Mapping):
        errors.append(f"{path}: Invalid value: must be an object")
        return None
    doc = dict(value)
    kind = doc.get("kind")
    if not _kind_errors(kind, path, errors):
        return None
    info = KINDS[kind]
    api_version = doc.get("apiVersion")
    if api_version is not None and api_version not in info.api_versions:
        supported = ", ".join(go_quote(v) for v in info.api_versions)
        errors.append(f"{path}.apiVersion: Unsupported value: {_quote(api_version)}: supported values: {supported}")
        return None
    # as an import decodes it: nulls as Go leaves them, the OpenShift kinds' metadata and CRD types
    doc, problems = decode_and_validate(doc, info.namespaced)
    if problems:
        errors.append(f"{path}: {invalid_error({**doc, 'apiVersion': api_version or info.api_versions[0]}, problems)}")
        return None
    return Step(at, index, "apply", object=apply_defaults(doc), has_status="status" in doc)


def _delete_step(value: Any, path: str, at: float, index: int, errors: list[str]) -> Step | None:
    if not isinstance(value, Mapping):
        errors.append(f"{path}: Invalid value: must be an object with kind, namespace and name")
        return None
    kind = value.get("kind")
    if not _kind_errors(kind, path, errors):
        return None
    name = value.get("name")
    if not isinstance(name, str) or not name:
        errors.append(f"{path}.name: Required value")
        return None
    namespace = value.get("namespace") or ""
    if KINDS[kind].namespaced:
        namespace = namespace or "default"
    else:
        namespace = ""
    return Step(at, index, "delete", kind=kind, namespace=namespace, name=name)


def sim_time_text(seconds: float) -> str:
    """A simulated time as the scenarios and the pages write it: t=105 s."""
    return f"t={seconds:.0f} s" if seconds == int(seconds) else f"t={seconds:.1f} s"
