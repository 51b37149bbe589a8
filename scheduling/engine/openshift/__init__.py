"""Pure engine of cluster updates and machines (no Django, no I/O, no clock reads): release
graph and risks, payloads, the Cluster Version Operator and the Machine Config Operator,
the Machine API controllers (machines, machinesets, machinehealthcheck, etcd_quorum,
hook_owners) and their `oc` commands, plugged into scheduling.engine.simulation by dotted
path; data comes from scheduling.engine.openshift.data (Python literals)."""
