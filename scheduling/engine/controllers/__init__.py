"""The controllers of the event loop (engine.simulation.CONTROLLERS), one protocol each
(engine.controller): scheduling (the scheduler), node_lifecycle, taint_manager, kubelet,
workloads (deployment, replicaset, statefulset, daemonset, and the disruption controller
of eviction), job (Jobs, with the TTL after finished), cronjob (CronJobs on the clock);
with eviction (the eviction API + PDB status), garbage_collector (cascade deletion),
controller_utils (what the workload controllers share) and legacy (state older versions
kept in documents, migrated on read)."""
