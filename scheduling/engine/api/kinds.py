"""The one table of the kinds the simulator stores: every other list of kinds is read from it.

One entry per kind, as the API server's discovery describes it (`oc api-resources`): its
group and versions (the first is the preferred one, assumed when a document has none), its
resource names (plural, singular, short names), whether it is namespaced; plus what the
simulator attaches to it: the `oc get` table printer and the create validator, each given by
dotted path ("package.module:function", imported when used, so this module imports neither
`oc` nor validation and kinds of the OpenShift packages plug in the same way), and whether
it is a workload controller (a pod owner whose pods the controllers manage).

Read by: engine.api.defaults (KINDS, WORKLOAD_KINDS, defaulting), engine.api.validation
(the validators, the assumed apiVersion), engine.oc.core (RESOURCES, BY_KIND: the names
`oc` accepts) and engine.oc.get (printers), scheduling.store.kube (the kinds the importer
accepts) and scheduling.store.services (resource names in the API server's errors).

Adding a kind: one entry here, its printer (engine.oc.printers or the OpenShift printers;
None prints NAME AGE) and, for a stored kind, its model in scheduling.models.KIND_MODELS.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

_PRINTERS = "scheduling.engine.oc.printers:"
_OPENSHIFT_PRINTERS = "scheduling.engine.openshift.printers:"
_MACHINE_PRINTERS = "scheduling.engine.openshift.machine_printers:"
_CORE = "scheduling.engine.api.validation.core:"
_APPS = "scheduling.engine.api.validation.apps:"
_BATCH = "scheduling.engine.api.validation.batch:"


@dataclass(frozen=True)
class Kind:
    """One API kind: metav1.APIResource's names and scope, and what the simulator attaches to it."""

    kind: str
    api_versions: tuple[str, ...]  # the apiVersions served ("group/version", "v1"), preferred first
    plural: str
    short_names: tuple[str, ...] = ()
    namespaced: bool = True
    printer: str | None = None  # "module:function" making `oc get`'s table; None: NAME AGE
    validator: str | None = None  # "module:function(doc, errs)"; None: ObjectMeta checks only
    workload: bool = False  # a workload controller (ReplicationController, ReplicaSet, ...)

    @property
    def singular(self) -> str:
        """metav1.APIResource.SingularName: the lower-cased kind."""
        return self.kind.lower()

    @property
    def api_version(self) -> str:
        """The preferred apiVersion, assumed when a document has none."""
        return self.api_versions[0]

    @property
    def group(self) -> str:
        """The preferred version's API group ("" for the core group)."""
        return self.api_version.rpartition("/")[0]

    @property
    def resource_string(self) -> str:
        """The resource as the API server names it in errors: `pods`, `deployments.apps`."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def kind_string(self) -> str:
        """The name printer's kind: `pod`, `deployment.apps`, `clusterversion.config.openshift.io`."""
        return f"{self.singular}.{self.group}" if self.group else self.singular

    def names(self) -> tuple[str, ...]:
        """Every name `oc` accepts for the resource: plural, singular, short names."""
        return (self.plural, self.singular, *self.short_names)


def _k(kind: str, api_versions: tuple[str, ...], plural: str, short: tuple[str, ...], namespaced: bool,
       printer: str | None, validator: str | None = None, workload: bool = False) -> Kind:
    return Kind(kind, api_versions, plural, short, namespaced, printer, validator, workload)


TABLE: tuple[Kind, ...] = (
    _k("Node", ("v1",), "nodes", ("no",), False, _PRINTERS + "nodes", _CORE + "validate_node"),
    _k("Pod", ("v1",), "pods", ("po",), True, _PRINTERS + "pods", _CORE + "validate_pod"),
    _k("Namespace", ("v1",), "namespaces", ("ns",), False, _PRINTERS + "namespaces", _CORE + "validate_namespace"),
    _k("Service", ("v1",), "services", ("svc",), True, _PRINTERS + "services", _CORE + "validate_service"),
    _k("ReplicationController", ("v1",), "replicationcontrollers", ("rc",), True, _PRINTERS + "replica_sets",
       _CORE + "validate_replication_controller", workload=True),
    _k("ReplicaSet", ("apps/v1", "apps/v1beta2", "extensions/v1beta1"), "replicasets", ("rs",), True, _PRINTERS + "replica_sets",
       _APPS + "validate_replica_set", workload=True),
    _k("Deployment", ("apps/v1", "apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"), "deployments", ("deploy",), True, _PRINTERS + "deployments",
       _APPS + "validate_deployment", workload=True),
    _k("StatefulSet", ("apps/v1", "apps/v1beta1", "apps/v1beta2"), "statefulsets", ("sts",), True, _PRINTERS + "stateful_sets",
       _APPS + "validate_stateful_set", workload=True),
    _k("DaemonSet", ("apps/v1", "apps/v1beta2", "extensions/v1beta1"), "daemonsets", ("ds",), True, _PRINTERS + "daemon_sets",
       _APPS + "validate_daemon_set", workload=True),
    # batch/v1: run to completion (engine.controllers.job, engine.controllers.cronjob)
    _k("Job", ("batch/v1",), "jobs", (), True, _PRINTERS + "jobs", _BATCH + "validate_job"),
    _k("CronJob", ("batch/v1",), "cronjobs", ("cj",), True, _PRINTERS + "cron_jobs", _BATCH + "validate_cron_job"),
    _k("PodDisruptionBudget", ("policy/v1beta1", "policy/v1"), "poddisruptionbudgets", ("pdb",), True, _PRINTERS + "pdbs",
       "scheduling.engine.api.validation.policy:validate_pod_disruption_budget"),
    _k("PersistentVolume", ("v1",), "persistentvolumes", ("pv",), False, _PRINTERS + "persistent_volumes",
       _CORE + "validate_persistent_volume"),
    _k("PersistentVolumeClaim", ("v1",), "persistentvolumeclaims", ("pvc",), True, _PRINTERS + "claims",
       _CORE + "validate_persistent_volume_claim"),
    _k("StorageClass", ("storage.k8s.io/v1", "storage.k8s.io/v1beta1"), "storageclasses", ("sc",), False, _PRINTERS + "storage_classes",
       "scheduling.engine.api.validation.storage:validate_storage_class"),
    _k("PriorityClass", ("scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1"), "priorityclasses", ("pc",), False,
       _PRINTERS + "priority_classes", "scheduling.engine.api.validation.scheduling:validate_priority_class"),
    # ConfigMap: read by the Cluster Version Operator (the admin-gates and admin-acks ConfigMaps)
    _k("ConfigMap", ("v1",), "configmaps", ("cm",), True, _OPENSHIFT_PRINTERS + "config_maps"),
    # OpenShift kinds (custom resources): their CRDs' printer columns, printed by the update
    # and machine printers (a value the column's JSONPath does not find prints empty).
    _k("ClusterVersion", ("config.openshift.io/v1",), "clusterversions", (), False,
       _OPENSHIFT_PRINTERS + "cluster_versions"),
    _k("ClusterOperator", ("config.openshift.io/v1",), "clusteroperators", ("co",), False,
       _OPENSHIFT_PRINTERS + "cluster_operators"),
    _k("MachineConfigPool", ("machineconfiguration.openshift.io/v1",), "machineconfigpools", ("mcp",), False,
       _OPENSHIFT_PRINTERS + "machine_config_pools"),
    _k("MachineConfig", ("machineconfiguration.openshift.io/v1",), "machineconfigs", ("mc",), False,
       _OPENSHIFT_PRINTERS + "machine_configs"),
    _k("Machine", ("machine.openshift.io/v1beta1",), "machines", (), True, _MACHINE_PRINTERS + "machines"),
    _k("MachineSet", ("machine.openshift.io/v1beta1",), "machinesets", (), True, _MACHINE_PRINTERS + "machine_sets"),
    _k("MachineHealthCheck", ("machine.openshift.io/v1beta1",), "machinehealthchecks", ("mhc",), True,
       _MACHINE_PRINTERS + "machine_health_checks"),
    # The Kube Descheduler Operator's configuration (its CRD defines no printer columns: NAME AGE)
    _k("KubeDescheduler", ("operator.openshift.io/v1",), "kubedeschedulers", (), True, None),
)

BY_KIND: dict[str, Kind] = {k.kind: k for k in TABLE}


def resolve(path: str) -> Callable[..., Any]:
    """The function a dotted path ("package.module:function") of the table names."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def plural_of(kind: str) -> str:
    """The kind's resource (plural) name; for a kind outside the table, the lower-cased kind
    plus "s" (what the API server's RESTMapper guesses: UnsafeGuessKindToResource)."""
    entry = BY_KIND.get(kind)
    return entry.plural if entry is not None else kind.lower() + "s"
