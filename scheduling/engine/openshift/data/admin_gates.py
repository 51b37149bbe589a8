"""The admin-gates ConfigMap (openshift-config-managed) each release's Cluster Version Operator
applies: install/0000_00_cluster-version-operator_01_admingate_configmap.yaml of
openshift/cluster-version-operator, branch release-<minor> at the commit recorded per minor
(Apache-2.0; see scheduling/engine/openshift/data/README.md). Generated data: do not edit by hand."""

ADMIN_GATES = {'4.10': {'commit': '33e65325a5780906244c2b36031e6e14d812d8b2', 'data': {}},
 '4.11': {'commit': '8966b291a649d3a262d1b714aef02c6d9d3ff402',
          'data': {'ack-4.11-kube-1.25-api-removals-in-4.12': 'Kubernetes 1.25 and therefore OpenShift 4.12 remove '
                                                              'several APIs which require admin consideration. Please '
                                                              'see the knowledge article '
                                                              'https://access.redhat.com/articles/6955381 for details '
                                                              'and instructions.'}},
 '4.12': {'commit': 'da2578c6dd81e83d331daacb357c4f1cc60bf234',
          'data': {'ack-4.12-kube-1.26-api-removals-in-4.13': 'Kubernetes 1.26 and therefore OpenShift 4.13 remove '
                                                              'several APIs which require admin consideration. Please '
                                                              'see the knowledge article '
                                                              'https://access.redhat.com/articles/6958394 for details '
                                                              'and instructions.'}},
 '4.13': {'commit': '8b3acaebb7de946e86d20bfdf637e7caaaeb1fb3',
          'data': {'ack-4.13-kube-1.27-api-removals-in-4.14': 'Kubernetes 1.27 and therefore OpenShift 4.14 remove '
                                                              'several APIs which require admin consideration. Please '
                                                              'see the knowledge article '
                                                              'https://access.redhat.com/articles/6958395 for details '
                                                              'and instructions.'}},
 '4.14': {'commit': 'a1bf930103a77b25e99130644504c3fecdcc4c67', 'data': {}},
 '4.15': {'commit': '2cb8ce9ef5c3311be9f1ea266356f1ce95bec1d1',
          'data': {'ack-4.15-kube-1.29-api-removals-in-4.16': 'Kubernetes 1.29 and therefore OpenShift 4.16 remove '
                                                              'several APIs which require admin consideration. Please '
                                                              'see the knowledge article '
                                                              'https://access.redhat.com/articles/7031404 for details '
                                                              'and instructions.'}},
 '4.16': {'commit': 'be820285dcf7b0ca4a712192ccb47fd0c843ea02', 'data': {}},
 '4.17': {'commit': 'b855c68099755979a053f60a49300d3502f44325', 'data': {}},
 '4.18': {'commit': 'f72d7e2c7dc8f5e0bb8687f9b9fd0c918952cbda',
          'data': {'ack-4.18-kube-1.32-api-removals-in-4.19': 'Kubernetes 1.32 and therefore OpenShift 4.19 remove '
                                                              'several APIs which require admin consideration. Please '
                                                              'see the knowledge article '
                                                              'https://access.redhat.com/articles/7112216 for details '
                                                              'and instructions.'}},
 '4.19': {'commit': '842a2ac2261e03bc5b6717620c076bf58652c1f6',
          'data': {'ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20': 'The '
                                                                                  'admissionregistration.k8s.io/v1beta1 '
                                                                                  'group version is deprecated in 4.19 '
                                                                                  'and will be removed in 4.20. Any '
                                                                                  'clients using the v1beta1 version '
                                                                                  'of these resources must be updated '
                                                                                  'to use the corresponding v1 version '
                                                                                  'instead. See '
                                                                                  'https://access.redhat.com/articles/7130599 '
                                                                                  'for more information.'}},
 '4.20': {'commit': 'ea3fa7695054fc9260936902b33b738bb4c405bc', 'data': {}},
 '4.21': {'commit': 'd37e5a056d5a9c74c2ac2d5551ef39f573c9824a', 'data': {}},
 '4.22': {'commit': '9b55234a27cfd62921270073f2464ec294132b2d', 'data': {}},
 '5.0': {'commit': '6e719331fb5863141397f35b1f47bed42148a6dd', 'data': {}}}
