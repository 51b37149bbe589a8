"""kubectl's describeVolumes (pkg/describe/describe.go) for a pod template's volumes: each
volume's name, then its source as the print*VolumeSource functions print it (the sources the
simulated documents use; another prints `<unknown>`, as kubectl prints a source it lacks)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def _v(value: Any) -> str:
    """fmt's %v of a scalar (its Go zero value when absent)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _rows(w, title: str, rows: Sequence[tuple[str, Any]]) -> None:
    w.write(2, f"Type:\t{title}\n")
    for label, value in rows:
        w.write(2, f"{label}\t{_v(value)}\n")


def _projected(w, source: Mapping[str, Any]) -> None:
    w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
    for s in source.get("sources") or ():
        if s.get("secret") is not None:
            w.write(2, f"SecretName:\t{_v(s['secret'].get('name'))}\n")
            w.write(2, f"Optional:\t{_v(bool(s['secret'].get('optional')))}\n")
        elif s.get("downwardAPI") is not None:
            w.write(2, "DownwardAPI:\ttrue\n")
        elif s.get("configMap") is not None:
            w.write(2, f"ConfigMapName:\t{_v(s['configMap'].get('name'))}\n")
            w.write(2, f"Optional:\t{_v(bool(s['configMap'].get('optional')))}\n")
        elif s.get("serviceAccountToken") is not None:
            w.write(2, f"TokenExpirationSeconds:\t{int(s['serviceAccountToken'].get('expirationSeconds') or 3600)}\n")


def _downward(w, source: Mapping[str, Any]) -> None:
    w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n")
    w.write(2, "Items:\n")
    for item in source.get("items") or ():
        if item.get("fieldRef") is not None:
            w.write(3, f"{_v(item['fieldRef'].get('fieldPath'))} -> {_v(item.get('path'))}\n")
        if item.get("resourceFieldRef") is not None:
            w.write(3, f"{_v(item['resourceFieldRef'].get('resource'))} -> {_v(item.get('path'))}\n")


def _source(w, volume: Mapping[str, Any]) -> None:
    s = volume
    if s.get("hostPath") is not None:
        h = s["hostPath"]
        _rows(w, "HostPath (bare host directory volume)", [("Path:", h.get("path")), ("HostPathType:", h.get("type", "<none>"))])
    elif s.get("emptyDir") is not None:
        e = s["emptyDir"]
        _rows(w, "EmptyDir (a temporary directory that shares a pod's lifetime)",
              [("Medium:", e.get("medium")), ("SizeLimit:", e.get("sizeLimit") or "<unset>")])
    elif s.get("gcePersistentDisk") is not None:
        g = s["gcePersistentDisk"]
        _rows(w, "GCEPersistentDisk (a Persistent Disk resource in Google Compute Engine)",
              [("PDName:", g.get("pdName")), ("FSType:", g.get("fsType")), ("Partition:", g.get("partition") or 0),
               ("ReadOnly:", bool(g.get("readOnly")))])
    elif s.get("awsElasticBlockStore") is not None:
        a = s["awsElasticBlockStore"]
        _rows(w, "AWSElasticBlockStore (a Persistent Disk resource in AWS)",
              [("VolumeID:", a.get("volumeID")), ("FSType:", a.get("fsType")), ("Partition:", a.get("partition") or 0),
               ("ReadOnly:", bool(a.get("readOnly")))])
    elif s.get("gitRepo") is not None:
        _rows(w, "GitRepo (a volume that is pulled from git when the pod is created)",
              [("Repository:", s["gitRepo"].get("repository")), ("Revision:", s["gitRepo"].get("revision"))])
    elif s.get("secret") is not None:
        _rows(w, "Secret (a volume populated by a Secret)",
              [("SecretName:", s["secret"].get("secretName")), ("Optional:", bool(s["secret"].get("optional")))])
    elif s.get("configMap") is not None:
        _rows(w, "ConfigMap (a volume populated by a ConfigMap)",
              [("Name:", s["configMap"].get("name")), ("Optional:", bool(s["configMap"].get("optional")))])
    elif s.get("nfs") is not None:
        n = s["nfs"]
        _rows(w, "NFS (an NFS mount that lasts the lifetime of a pod)",
              [("Server:", n.get("server")), ("Path:", n.get("path")), ("ReadOnly:", bool(n.get("readOnly")))])
    elif s.get("persistentVolumeClaim") is not None:
        c = s["persistentVolumeClaim"]
        _rows(w, "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
              [("ClaimName:", c.get("claimName")), ("ReadOnly:", bool(c.get("readOnly")))])
    elif s.get("downwardAPI") is not None:
        _downward(w, s["downwardAPI"])
    elif s.get("projected") is not None:
        _projected(w, s["projected"])
    elif s.get("csi") is not None:
        c = s["csi"]
        _rows(w, "CSI (a Container Storage Interface (CSI) volume source)",
              [("Driver:", c.get("driver")), ("FSType:", c.get("fsType")), ("ReadOnly:", bool(c.get("readOnly")))])
        attributes = c.get("volumeAttributes") or {}
        w.write(2, "VolumeAttributes:\t")
        if not attributes:
            w.text.append("<none>\n")
        for i, key in enumerate(sorted(attributes)):
            if i:
                w.write(2, "")
                w.write(2, "\t")
            w.write(2, f"{key}={attributes[key]}\n")
    else:
        w.write(1, "<unknown>\n")


def describe_volumes(w, volumes: Sequence[Mapping[str, Any]], space: str) -> None:
    """describeVolumes: `Volumes:` then each volume (its name one space in under a template)."""
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    indent = " " if space else ""
    for volume in volumes:
        w.write(1, f"{indent}{volume.get('name') or ''}:\n")
        _source(w, volume)
