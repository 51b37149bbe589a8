"""The kube-scheduler of current Kubernetes (v1.35, OpenShift 4.22): the scheduling
framework, its queue, its default plugins and profiles (`KubeSchedulerConfiguration` v1).

The OpenShift 3.11 scheduler (a `Policy` of predicates and 0-10 priorities) stays in
engine.scheduler; a cluster runs one or the other (engine.framework.config.schedulers_for).
"""
