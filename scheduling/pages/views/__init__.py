"""The pages, one module per page. A view parses, calls services (or previews for what-if
work), renders; access checks raise PermissionDenied.

clusters   the cluster list: create, import, load a scenario, fork, delete, export
board      the cluster page: node cards, pending queue, events (and their fragments)
clock      the clock controls (and their fragment)
node       a node: why each pod is there, the what-if editor
pod        a pod (the explainer) and a workload controller's pod template
whatif     previews of an edit, and apply
policy     the scheduler policy, admission plugins and preemption
fragments  the literal registry of fragments the broadcast pushes
"""
