"""The kube-scheduler of Kubernetes 1.11: framework, queue, preemption, cache, policy, predicates, priorities."""
