"""The namespaces of an OpenShift 4 release payload (data, no code; see README.md in this folder).

MANIFEST_NAMESPACES: per manifest file of the payload (the names of runlevel_data.RELEASES) that
holds Namespace objects, the namespaces it creates, read from the manifest in its repository
(`metadata.name` of each `kind: Namespace` document), path as the repository has it:

  openshift/cluster-version-operator install/0000_00_cluster-version-operator_00_namespace.yaml
  openshift/cluster-config-operator manifests/0000_00_config-operator_00_namespace.yaml (4.12/4.13:
      0000_30_config-operator_00_namespace.yaml), 0000_10_config-operator_01_openshift-config(-managed)-ns.yaml
  openshift/cloud-credential-operator manifests/0000_03_cloud-credential-operator_00_namespace.yaml
      (to 4.14: 0000_50_cloud-credential-operator_00-namespace.yaml)
  openshift/service-ca-operator manifests/0000_10_openshift_service-ca_00_namespace.yaml, manifests/01_namespace.yaml
  openshift/cluster-etcd-operator manifests/0000_20_etcd-operator_00_namespace.yaml
  openshift/cluster-kube-apiserver-operator manifests/0000_20_kube-apiserver-operator_00_namespace.yaml
  openshift/cluster-kube-controller-manager-operator manifests/0000_25_kube-controller-manager-operator_00_namespace.yaml
  openshift/cluster-kube-scheduler-operator manifests/0000_25_kube-scheduler-operator_00_namespace.yaml
  openshift/cluster-cloud-controller-manager-operator manifests/0000_26_cloud-controller-manager-operator_00_namespace.yaml
  openshift/cluster-capi-operator manifests/0000_30_cluster-api_00_namespace.yaml,
      manifests/0000_30_cluster-api-installer_00_namespace.yaml,
      manifests/0000_20_crd-compatibility-checker_00_namespace.yaml (feature gate CRDCompatibilityRequirementOperator)
  openshift/machine-api-operator install/0000_30_machine-api-operator_00_namespace.yaml
  openshift/cluster-storage-operator manifests/0000_49_cluster-storage-operator_01_operator_namespace.yaml,
      manifests/02_csi_driver_operators_namespace.yaml
  openshift/cluster-authentication-operator manifests/00_namespace.yaml
  openshift/cluster-image-registry-operator manifests/01-namespace.yaml
  openshift/cluster-ingress-operator manifests/00-namespace.yaml
  openshift/cluster-kube-storage-version-migrator-operator manifests/02_namespace.yaml
  openshift/cluster-machine-approver manifests/00-ns.yaml
  openshift/cluster-monitoring-operator manifests/0000_50_cluster-monitoring-operator_01-namespace.yaml
  openshift/cluster-network-operator manifests/01-cncc-namespace.yaml, manifests/0000_70_cluster-network-operator_00_namespace.yaml
  openshift/cluster-node-tuning-operator manifests/10-namespace.yaml
  openshift/cluster-openshift-apiserver-operator manifests/00_namespace.yaml
  openshift/cluster-openshift-controller-manager-operator manifests/00_namespace.yaml
  openshift/cluster-samples-operator manifests/01-namespace.yaml
  openshift/console-operator manifests/02-namespace.yaml
  openshift/insights-operator manifests/02-namespace.yaml
  openshift/operator-framework-olm manifests/0000_50_olm_00-namespace.yaml
  operator-framework/operator-marketplace manifests/01_namespace.yaml
  openshift/cluster-olm-operator manifests/0000_51_olm_01_operator_namespace.yaml
  openshift/cluster-dns-operator manifests/0000_70_dns-operator_00-namespace.yaml
  openshift/machine-config-operator install/0000_80_machine-config_00_namespace.yaml (to 4.14:
      0000_80_machine-config-operator_00_namespace.yaml)

A manifest of a TechPreviewNoUpgrade-only or feature-gated piece names the ClusterOperator
it belongs to in REQUIRES: its namespaces exist only where the payload has that
ClusterOperator (the 4.12/4.13 data carry no feature-set flags; payload.TECH_PREVIEW_OPERATORS).

OPERAND_NAMESPACES: per ClusterOperator, the namespaces its operator creates at run time for its
operands (not payload manifests; each operator's bindata/assets `ns.yaml` / `namespace.yaml`):
cluster-etcd-operator bindata/etcd/ns.yaml; cluster-kube-apiserver-operator
bindata/assets/kube-apiserver/ns.yaml; cluster-kube-controller-manager-operator
bindata/assets/kube-controller-manager/ns.yaml; cluster-kube-scheduler-operator
bindata/assets/kube-scheduler/ns.yaml; cluster-openshift-apiserver-operator
bindata/v3.11.0/openshift-apiserver/ns.yaml; cluster-authentication-operator
bindata/oauth-openshift/ns.yaml and bindata/oauth-apiserver/ns.yaml;
cluster-openshift-controller-manager-operator bindata/assets/openshift-controller-manager/ns.yaml
and route-controller-manager/ns.yaml; cluster-ingress-operator assets/router/namespace.yaml and
assets/canary/namespace.yaml; cluster-dns-operator assets/dns/namespace.yaml;
cluster-kube-storage-version-migrator-operator bindata/kube-storage-version-migrator/namespace.yaml;
service-ca-operator bindata/v4.0.0/controller/ns.yaml;
cluster-network-operator bindata/network/multus/000-ns.yaml, bindata/network/ovn-kubernetes/common/
001-ns.yaml, bindata/network-diagnostics/000-ns.yaml, bindata/network/host-network/000-ns.yaml.
All those repositories: Apache License 2.0; only names are kept."""

MANIFEST_NAMESPACES = {
    "0000_00_cluster-version-operator_00_namespace.yaml": ("openshift-cluster-version",),
    "0000_00_config-operator_00_namespace.yaml": ("openshift-config-operator",),
    "0000_30_config-operator_00_namespace.yaml": ("openshift-config-operator",),
    "0000_10_config-operator_01_openshift-config-managed-ns.yaml": ("openshift-config-managed",),
    "0000_10_config-operator_01_openshift-config-ns.yaml": ("openshift-config",),
    "0000_03_cloud-credential-operator_00_namespace.yaml": ("openshift-cloud-credential-operator",),
    "0000_50_cloud-credential-operator_00-namespace.yaml": ("openshift-cloud-credential-operator",),
    "0000_10_openshift_service-ca_00_namespace.yaml": ("openshift-service-ca",),
    "0000_50_service-ca-operator_01_namespace.yaml": ("openshift-service-ca-operator",),
    "0000_20_etcd-operator_00_namespace.yaml": ("openshift-etcd-operator",),
    "0000_20_kube-apiserver-operator_00_namespace.yaml": ("openshift-kube-apiserver-operator",),
    "0000_25_kube-controller-manager-operator_00_namespace.yaml": ("openshift-kube-controller-manager-operator",),
    "0000_25_kube-scheduler-operator_00_namespace.yaml": ("openshift-kube-scheduler-operator",),
    "0000_26_cloud-controller-manager-operator_00_namespace.yaml": ("openshift-cloud-controller-manager-operator",
                                                                    "openshift-cloud-controller-manager"),
    "0000_30_cluster-api_00_namespace.yaml": ("openshift-cluster-api",),
    "0000_30_cluster-api-installer_00_namespace.yaml": ("openshift-cluster-api-operator",),
    "0000_20_crd-compatibility-checker_00_namespace.yaml": ("openshift-compatibility-requirements-operator",),
    "0000_30_machine-api-operator_00_namespace.yaml": ("openshift-machine-api",),
    "0000_49_cluster-storage-operator_01_operator_namespace.yaml": ("openshift-cluster-storage-operator",),
    "0000_50_cluster-storage-operator_02_csi_driver_operators_namespace.yaml": ("openshift-cluster-csi-drivers",),
    "0000_50_cluster-authentication-operator_00_namespace.yaml": ("openshift-authentication-operator",),
    "0000_50_cluster-image-registry-operator_01-namespace.yaml": ("openshift-image-registry",),
    "0000_50_cluster-ingress-operator_00-namespace.yaml": ("openshift-ingress-operator",),
    "0000_50_cluster-kube-storage-version-migrator-operator_02_namespace.yaml": (
        "openshift-kube-storage-version-migrator-operator",),
    "0000_50_cluster-machine-approver_00-ns.yaml": ("openshift-cluster-machine-approver",),
    "0000_50_cluster-monitoring-operator_01-namespace.yaml": ("openshift-monitoring", "openshift-user-workload-monitoring"),
    "0000_50_cluster-network-operator_01-cncc-namespace.yaml": ("openshift-cloud-network-config-controller",),
    "0000_70_cluster-network-operator_00_namespace.yaml": ("openshift-network-operator",),
    "0000_50_cluster-node-tuning-operator_10-namespace.yaml": ("openshift-cluster-node-tuning-operator",),
    "0000_50_cluster-openshift-apiserver-operator_00_namespace.yaml": ("openshift-apiserver-operator",),
    "0000_50_cluster-openshift-controller-manager-operator_00_namespace.yaml": ("openshift-controller-manager-operator",),
    "0000_50_cluster-samples-operator_01-namespace.yaml": ("openshift-cluster-samples-operator",),
    "0000_50_console-operator_02-namespace.yaml": ("openshift-console", "openshift-console-operator",
                                                   "openshift-console-user-settings"),
    "0000_50_insights-operator_02-namespace.yaml": ("openshift-insights",),
    "0000_50_olm_00-namespace.yaml": ("openshift-operator-lifecycle-manager", "openshift-operators"),
    "0000_50_operator-marketplace_01_namespace.yaml": ("openshift-marketplace",),
    "0000_51_olm_01_operator_namespace.yaml": ("openshift-cluster-olm-operator",),
    "0000_70_dns-operator_00-namespace.yaml": ("openshift-dns-operator",),
    "0000_80_machine-config_00_namespace.yaml": ("openshift-machine-config-operator", "openshift-openstack-infra",
                                                 "openshift-kni-infra", "openshift-ovirt-infra", "openshift-vsphere-infra",
                                                 "openshift-nutanix-infra", "openshift-cloud-platform-infra"),
    "0000_80_machine-config-operator_00_namespace.yaml": ("openshift-machine-config-operator", "openshift-openstack-infra",
                                                          "openshift-kni-infra", "openshift-ovirt-infra",
                                                          "openshift-vsphere-infra"),
    "0000_50_cluster-platform-operator-manager_00-namespace.yaml": ("openshift-platform-operators",),
}

# the ClusterOperator without which a manifest's namespaces are not created (TechPreview / feature-gated)
REQUIRES = {
    "0000_30_cluster-api_00_namespace.yaml": "cluster-api",
    "0000_30_cluster-api-installer_00_namespace.yaml": "cluster-api",
    "0000_20_crd-compatibility-checker_00_namespace.yaml": "crd-compatibility-checker",  # no such ClusterOperator: gated off
    "0000_51_olm_01_operator_namespace.yaml": "olm",
    "0000_50_cluster-platform-operator-manager_00-namespace.yaml": "platform-operators-aggregated",
}

OPERAND_NAMESPACES = {
    "etcd": ("openshift-etcd",),
    "kube-apiserver": ("openshift-kube-apiserver",),
    "kube-controller-manager": ("openshift-kube-controller-manager",),
    "kube-scheduler": ("openshift-kube-scheduler",),
    "openshift-apiserver": ("openshift-apiserver",),
    "authentication": ("openshift-authentication", "openshift-oauth-apiserver"),
    "openshift-controller-manager": ("openshift-controller-manager", "openshift-route-controller-manager"),
    "ingress": ("openshift-ingress", "openshift-ingress-canary"),
    "dns": ("openshift-dns",),
    "kube-storage-version-migrator": ("openshift-kube-storage-version-migrator",),
    "service-ca": ("openshift-service-ca",),
    "network": ("openshift-host-network", "openshift-multus", "openshift-network-diagnostics", "openshift-ovn-kubernetes"),
}
