"""The resources `oc get` (and every command taking TYPE NAME) knows: kind -> (names,
printer). A LITERAL table: names are the plural, the singular and the short names, as
discovery lists them; the printer makes `oc get`'s table and is given by dotted path
("package.module:function", imported when used), so kinds of other apps (the update and
machine pages' ClusterVersion, MachineConfigPool, ...) plug in without scheduling.engine
importing them. A printer is `table(docs, now, wide) -> (headers, rows)` (engine.oc.printers);
None prints what kubectl prints for a custom resource without printer columns: NAME AGE.
"""

from __future__ import annotations

PRINTERS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "Node": (("nodes", "node", "no"), "scheduling.engine.oc.printers:nodes"),
    "Pod": (("pods", "pod", "po"), "scheduling.engine.oc.printers:pods"),
    "Namespace": (("namespaces", "namespace", "ns"), "scheduling.engine.oc.printers:namespaces"),
    "Service": (("services", "service", "svc"), "scheduling.engine.oc.printers:services"),
    "ReplicationController": (("replicationcontrollers", "replicationcontroller", "rc"), "scheduling.engine.oc.printers:replica_sets"),
    "ReplicaSet": (("replicasets", "replicaset", "rs"), "scheduling.engine.oc.printers:replica_sets"),
    "Deployment": (("deployments", "deployment", "deploy"), "scheduling.engine.oc.printers:deployments"),
    "StatefulSet": (("statefulsets", "statefulset", "sts"), "scheduling.engine.oc.printers:stateful_sets"),
    "DaemonSet": (("daemonsets", "daemonset", "ds"), "scheduling.engine.oc.printers:daemon_sets"),
    "PodDisruptionBudget": (("poddisruptionbudgets", "poddisruptionbudget", "pdb"), "scheduling.engine.oc.printers:pdbs"),
    "PersistentVolume": (("persistentvolumes", "persistentvolume", "pv"), "scheduling.engine.oc.printers:persistent_volumes"),
    "PersistentVolumeClaim": (("persistentvolumeclaims", "persistentvolumeclaim", "pvc"), "scheduling.engine.oc.printers:claims"),
    "StorageClass": (("storageclasses", "storageclass", "sc"), "scheduling.engine.oc.printers:storage_classes"),
    "PriorityClass": (("priorityclasses", "priorityclass", "pc"), "scheduling.engine.oc.printers:priority_classes"),
    # OpenShift kinds: their CRDs' printer columns, printed by the update and machine apps'
    # own printers (a value the column's JSONPath does not find prints empty, not <none>).
    "ClusterVersion": (("clusterversions", "clusterversion"), "scheduling.engine.openshift.printers:cluster_versions"),
    "ClusterOperator": (("clusteroperators", "clusteroperator", "co"), "scheduling.engine.openshift.printers:cluster_operators"),
    "MachineConfigPool": (("machineconfigpools", "machineconfigpool", "mcp"), "scheduling.engine.openshift.printers:machine_config_pools"),
    "MachineConfig": (("machineconfigs", "machineconfig", "mc"), "scheduling.engine.openshift.printers:machine_configs"),
    "Machine": (("machines", "machine"), "scheduling.engine.openshift.machine_printers:machines"),
    "MachineSet": (("machinesets", "machineset"), "scheduling.engine.openshift.machine_printers:machine_sets"),
    "MachineHealthCheck": (("machinehealthchecks", "machinehealthcheck", "mhc"), "scheduling.engine.openshift.machine_printers:machine_health_checks"),
}
