"""OpenShift 3.11's scheduling worked examples end to end through `simulate()`: the YAML a user
writes in, the JSON a user reads out (what `manage.py simulate` prints)."""

from __future__ import annotations

import pytest
import yaml

from scheduling.engine.simulate import SimulationError, simulate

NODE = """
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {labels}
spec:
  taints: {taints}
status:
  capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""


def node(name, labels=None, taints=None):
    labels = {"kubernetes.io/hostname": name, **(labels or {})}
    return yaml.safe_load(NODE.format(name=name, labels=labels, taints=taints or []))


def docs(*texts):
    out = []
    for t in texts:
        if isinstance(t, dict):
            out.append(t)
        else:
            out.extend(d for d in yaml.safe_load_all(t) if d)
    return out


# Default policy scores of a pod without requests on an empty 4-cpu / 8Gi node:
# SelectorSpread 10 (no service), InterPodAffinity 0, LeastRequested
# ((4000-100)*10/4000=9 + (8192-200)*10/8192=9)/2 = 9 with the 100m/200Mi defaults,
# BalancedResourceAllocation int((1-|0.025-0.0244|)*10) = 9, NodePreferAvoidPods 10,
# NodeAffinity 0, TaintToleration 10 (no PreferNoSchedule taint), Zone (serviceAntiAffinity
# on "zone") 10 on a node with a zone label, 0 without.
def empty_node_scores(zone: int = 0, node_affinity: int = 0, inter_pod: int = 0) -> dict:
    scores = {
        "SelectorSpreadPriority": 10,
        "InterPodAffinityPriority": inter_pod,
        "LeastRequestedPriority": 9,
        "BalancedResourceAllocation": 9,
        "NodePreferAvoidPodsPriority": 10,
        "NodeAffinityPriority": node_affinity,
        "TaintTolerationPriority": 10,
        "Zone": zone,
    }
    weights = {"NodePreferAvoidPodsPriority": 10000, "Zone": 2}
    scores["total"] = sum(v * weights.get(k, 1) for k, v in scores.items())
    return scores


def fits():
    return {"fits": True, "reasons": []}


def fails(*reasons):
    return {"fits": False, "reasons": list(reasons)}


NOTHING_TO_PREEMPT = {"victims": {}, "nominatedNode": None}


# --- 16.11.2.1 Using Multiple Taints -------------------------------------------------------

TOLERATING_POD = """
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  {node_name}
  containers:
  - name: hello
    image: docker.io/ocpqe/hello-pod
  tolerations:
  - key: "key1"
    operator: "Equal"
    value: "value1"
    effect: "NoSchedule"
  - key: "key1"
    operator: "Equal"
    value: "value1"
    effect: "NoExecute"
"""

THREE_TAINTS = [
    {"key": "key1", "value": "value1", "effect": "NoSchedule"},
    {"key": "key1", "value": "value1", "effect": "NoExecute"},
    {"key": "key2", "value": "value2", "effect": "NoSchedule"},
]


def test_multiple_taints_the_pod_cannot_be_scheduled_but_a_running_one_stays():
    result = simulate(
        docs(
            node("node1", taints=THREE_TAINTS),
            TOLERATING_POD.format(name="new", node_name=""),
            TOLERATING_POD.format(name="running", node_name="nodeName: node1"),
        )
    )
    message = "0/1 nodes are available: 1 node(s) had taints that the pod didn't tolerate."
    assert result == {
        "pods": [
            {
                "pod": "default/new",
                "node": None,
                "phase": "Pending",
                "nominatedNode": None,
                "filters": {"node1": fails("node(s) had taints that the pod didn't tolerate")},
                "scores": {},
                "message": message,
                "preemption": NOTHING_TO_PREEMPT,
            },
            {
                "pod": "default/running",
                "node": "node1",
                "phase": "Running",
                "nominatedNode": None,
                "filters": None,
                "scores": None,
                "message": None,
                "preemption": None,
            },
        ],
        "events": [
            {"time": 0.0, "type": "Warning", "reason": "FailedScheduling", "object": "Pod/default/new", "message": message}
        ],
    }


def test_multiple_taints_a_node_without_the_third_taint_takes_the_pod():
    result = simulate(
        docs(node("node1", taints=THREE_TAINTS), node("node2", taints=THREE_TAINTS[:2]), TOLERATING_POD.format(name="new", node_name=""))
    )
    (entry,) = result["pods"]
    assert entry["node"] == "node2"
    assert entry["filters"] == {"node1": fails("node(s) had taints that the pod didn't tolerate"), "node2": fits()}
    assert entry["scores"] == {"node2": empty_node_scores()}


# --- 16.8.3 Node affinity ----------------------------------------------------------------------

POD_S1_NODE_AFFINITY = """
apiVersion: v1
kind: Pod
metadata:
  name: pod-s1
spec:
  containers:
    - image: "docker.io/ocpqe/hello-pod"
      name: hello-pod
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
            - key: "zone"
              operator: In
              values:
              - us
"""


def test_node_affinity_with_matching_labels():
    result = simulate(docs(node("node1", {"zone": "us"}), POD_S1_NODE_AFFINITY))
    assert result == {
        "pods": [
            {
                "pod": "default/pod-s1",
                "node": "node1",
                "phase": "Running",
                "nominatedNode": None,
                "filters": {"node1": fits()},
                "scores": {"node1": empty_node_scores(zone=10)},
                "message": None,
                "preemption": None,
            }
        ],
        "events": [
            {
                "time": 0.0,
                "type": "Normal",
                "reason": "Scheduled",
                "object": "Pod/default/pod-s1",
                "message": "Successfully assigned default/pod-s1 to node1",
            }
        ],
    }
    assert empty_node_scores(zone=10)["total"] == 100058  # 10+0+9+9+10*10000+0+10+10*2


def test_node_affinity_with_no_matching_labels():
    result = simulate(docs(node("node1", {"zone": "emea"}), POD_S1_NODE_AFFINITY))
    # The documentation shows the pre-1.8 wording ("No nodes are available that match all of the
    # following predicates:: MatchNodeSelector (1)."); 3.11 prints the 1.11 one.
    message = "0/1 nodes are available: 1 node(s) didn't match node selector."
    assert result["pods"] == [
        {
            "pod": "default/pod-s1",
            "node": None,
            "phase": "Pending",
            "nominatedNode": None,
            "filters": {"node1": fails("node(s) didn't match node selector")},
            "scores": {},
            "message": message,
            "preemption": NOTHING_TO_PREEMPT,
        }
    ]
    assert result["events"] == [
        {"time": 0.0, "type": "Warning", "reason": "FailedScheduling", "object": "Pod/default/pod-s1", "message": message}
    ]


# --- 16.9.3 Pod affinity and anti-affinity ---------------------------------------------------------

TEAM4 = """
apiVersion: v1
kind: Pod
metadata:
  name: team4
  labels:
     team: "4"
spec:
  containers:
  - name: ocp
    image: docker.io/ocpqe/hello-pod
"""

TEAM4A = """
apiVersion: v1
kind: Pod
metadata:
  name: team4a
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - key: team
            operator: In
            values:
            - "4"
        topologyKey: kubernetes.io/hostname
  containers:
  - name: pod-affinity
    image: docker.io/ocpqe/hello-pod
"""

AFFINITY = "node(s) didn't match pod affinity/anti-affinity"


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pod_affinity_team4a_goes_to_the_node_of_team4(seed):
    result = simulate(docs(node("node1"), node("node2"), TEAM4, TEAM4A), seed=seed)
    team4, team4a = result["pods"]
    assert team4["filters"] == {"node1": fits(), "node2": fits()}
    assert team4["scores"] == {"node1": empty_node_scores(), "node2": empty_node_scores()}  # a tie
    other = "node1" if team4["node"] == "node2" else "node2"
    assert team4a["node"] == team4["node"]
    assert team4a["filters"] == {
        team4["node"]: fits(),
        other: fails(AFFINITY, "node(s) didn't match pod affinity rules"),
    }


def test_the_tie_of_team4_is_broken_by_the_seed():
    chosen = {simulate(docs(node("node1"), node("node2"), TEAM4), seed=s)["pods"][0]["node"] for s in range(10)}
    assert chosen == {"node1", "node2"}


POD_S1 = """
apiVersion: v1
kind: Pod
metadata:
  name: pod-s1
  labels:
    security: s1
spec:
  containers:
  - name: ocp
    image: docker.io/ocpqe/hello-pod
"""

POD_S2_ANTI = """
apiVersion: v1
kind: Pod
metadata:
  name: pod-s2
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - key: security
            operator: In
            values:
            - s1
        topologyKey: kubernetes.io/hostname
  containers:
  - name: pod-antiaffinity
    image: docker.io/ocpqe/hello-pod
"""


def test_pod_anti_affinity_pod_s2_avoids_the_node_of_pod_s1():
    result = simulate(docs(node("node1"), node("node2"), POD_S1, POD_S2_ANTI))
    s1, s2 = result["pods"]
    other = "node1" if s1["node"] == "node2" else "node2"
    assert s2["node"] == other
    assert s2["filters"] == {
        s1["node"]: fails(AFFINITY, "node(s) didn't match pod anti-affinity rules"),
        other: fits(),
    }


def test_pod_anti_affinity_with_one_node_leaves_pod_s2_pending():
    result = simulate(docs(node("node1"), POD_S1, POD_S2_ANTI))
    s2 = result["pods"][1]
    assert s2["node"] is None
    assert s2["message"] == (
        "0/1 nodes are available: 1 node(s) didn't match pod affinity/anti-affinity, "
        "1 node(s) didn't match pod anti-affinity rules."
    )
    # pod-s1 has the same priority (0): nothing can be preempted for pod-s2.
    assert s2["preemption"] == NOTHING_TO_PREEMPT


POD_S2_AFFINITY_S2 = """
apiVersion: v1
kind: Pod
metadata:
  name: pod-s2
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - key: security
            operator: In
            values:
            - s2
        topologyKey: kubernetes.io/hostname
  containers:
  - name: pod-affinity
    image: docker.io/ocpqe/hello-pod
"""


def test_pod_affinity_with_no_matching_labels_stays_pending():
    result = simulate(docs(node("node1"), POD_S1, POD_S2_AFFINITY_S2))
    s1, s2 = result["pods"]
    assert s1["node"] == "node1"
    message = (
        "0/1 nodes are available: 1 node(s) didn't match pod affinity rules, "
        "1 node(s) didn't match pod affinity/anti-affinity."
    )
    assert s2 == {
        "pod": "default/pod-s2",
        "node": None,
        "phase": "Pending",
        "nominatedNode": None,
        "filters": {"node1": fails(AFFINITY, "node(s) didn't match pod affinity rules")},
        "scores": {},
        "message": message,
        "preemption": NOTHING_TO_PREEMPT,
    }
    assert [e["reason"] for e in result["events"]] == ["Scheduled", "FailedScheduling"]


# --- 16.2.8 sample policies, as Policy documents and as --policy ------------------------------------

REQUIRE_REGION_POLICY = """
kind: "Policy"
version: "v1"
predicates:
  - name: "RequireRegion"
    argument:
      labelsPresence:
        labels:
          - "region"
        presence: true
priorities:
  - name: "ZonePreferred"
    weight: 1
    argument:
      labelPreference:
        label: "zone"
        presence: true
"""

PLAIN_POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: web, image: nginx}]
"""


@pytest.mark.parametrize("as_option", [False, True], ids=["policy document among the inputs", "the --policy file"])
def test_the_require_region_zone_preferred_sample_policy(as_option):
    nodes = [node("n1", {"region": "r1"}), node("n2", {"region": "r1", "zone": "z1"}), node("n3")]
    policy = yaml.safe_load(REQUIRE_REGION_POLICY)
    inputs = docs(*nodes, PLAIN_POD) if as_option else docs(*nodes, policy, PLAIN_POD)
    result = simulate(inputs, policy=policy if as_option else None)
    assert result["pods"][0] == {
        "pod": "default/web",
        "node": "n2",
        "phase": "Running",
        "nominatedNode": None,
        "filters": {"n1": fits(), "n2": fits(), "n3": fails("node(s) didn't have the requested labels")},
        "scores": {"n1": {"ZonePreferred": 0, "total": 0}, "n2": {"ZonePreferred": 10, "total": 10}},
        "message": None,
        "preemption": None,
    }


def test_the_policy_option_wins_over_a_policy_document():
    nodes = [node("n1", {"region": "r1"}), node("n2")]
    policy = yaml.safe_load(REQUIRE_REGION_POLICY)
    everything = {"apiVersion": "v1", "kind": "Policy", "predicates": [], "priorities": []}
    result = simulate(docs(*nodes, everything, PLAIN_POD), policy=policy)
    assert result["pods"][0]["filters"]["n2"] == fails("node(s) didn't have the requested labels")


# --- 16.6 priority and preemption --------------------------------------------------------------------

HIGH_PRIORITY = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000000
globalDefault: false
description: "This priority class should be used for XYZ service pods only."
"""

NGINX = """
apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    env: test
spec:
  containers:
  - name: nginx
    image: nginx
    imagePullPolicy: IfNotPresent
    resources: {requests: {cpu: "3"}}
  priorityClassName: high-priority
"""

BUSY = """
apiVersion: v1
kind: Pod
metadata: {name: busy}
spec:
  nodeName: node1
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
"""


def test_a_high_priority_pod_preempts_and_is_nominated():
    result = simulate(docs(node("node1"), BUSY, HIGH_PRIORITY, NGINX))
    busy, nginx = result["pods"]
    assert busy["phase"] == "Terminating" and busy["node"] == "node1"
    message = "0/1 nodes are available: 1 Insufficient cpu."
    assert nginx == {
        "pod": "default/nginx",
        "node": None,
        "phase": "Pending",
        "nominatedNode": "node1",
        "filters": {"node1": fails("Insufficient cpu")},
        "scores": {},
        "message": message,
        "preemption": {"victims": {"node1": ["default/busy"]}, "nominatedNode": "node1"},
    }
    assert result["events"] == [
        {"time": 0.0, "type": "Warning", "reason": "FailedScheduling", "object": "Pod/default/nginx", "message": message},
        {
            "time": 0.0,
            "type": "Normal",
            "reason": "Preempted",
            "object": "Pod/default/busy",
            "message": "by default/nginx on node node1",
        },
        # --until 0: every controller processes the objects once, so the
        # victim's kubelet stops its container at once (it stays Terminating for its
        # grace period).
        {
            "time": 0.0,
            "type": "Normal",
            "reason": "Killing",
            "object": "Pod/default/busy",
            "message": "Killing container with id docker://c:Need to kill Pod",
        },
    ]


def test_without_admission_the_priority_class_is_still_resolved():
    # spec.priority as given, else from priorityClassName; --no-admission only
    # turns off the other admission plugins.
    result = simulate(docs(node("node1"), BUSY, HIGH_PRIORITY, NGINX), admission=False)
    nginx = result["pods"][1]
    assert nginx["preemption"] == {"victims": {"node1": ["default/busy"]}, "nominatedNode": "node1"}
    assert result["pods"][0]["phase"] == "Terminating"


def test_an_unknown_priority_class_is_refused_like_the_api_server_does():
    with pytest.raises(SimulationError) as exc:
        simulate(docs(node("node1"), NGINX))
    assert str(exc.value) == 'pods "nginx" is forbidden: no PriorityClass with name high-priority was found'


def test_the_global_default_class_and_the_system_classes():
    default_class = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PriorityClass",
                     "metadata": {"name": "everyone"}, "value": 500, "globalDefault": True}
    critical = yaml.safe_load(PLAIN_POD.replace("name: web}", "name: critical}"))
    critical["spec"]["priorityClassName"] = "system-node-critical"
    critical["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "3"}}
    plain = yaml.safe_load(BUSY)  # 2 cpu on node1, priority from the global default: 500
    result = simulate(docs(node("node1"), default_class, plain, critical))
    assert result["pods"][1]["preemption"] == {"victims": {"node1": ["default/busy"]}, "nominatedNode": "node1"}


# --- 16.4 custom schedulers ------------------------------------------------------------------------

CUSTOM = """
apiVersion: v1
kind: Pod
metadata:
  name: custom-scheduler-example
  labels:
    name: custom-scheduler-example
spec:
  schedulerName: custom-scheduler
  containers:
  - name: pod-with-second-annotation-container
    image: docker.io/ocpqe/hello-pod
"""


def test_a_pod_for_a_scheduler_that_does_not_run_stays_pending():
    result = simulate(docs(node("node1"), CUSTOM))
    assert result["pods"] == [
        {
            "pod": "default/custom-scheduler-example",
            "node": None,
            "phase": "Pending",
            "nominatedNode": None,
            "filters": None,
            "scores": None,
            "message": 'no scheduler named "custom-scheduler" is running: the pod stays Pending until one picks it up',
            "preemption": None,
        }
    ]
    # Kubernetes records nothing for a pod no scheduler picks up: no event, no condition.
    assert result["events"] == []


def test_a_pod_for_a_scheduler_that_does_not_run_gets_no_event_however_long_the_clock_runs():
    result = simulate(docs(node("node1"), CUSTOM), until=3600)
    assert result["events"] == []
    assert result["pods"][0]["message"].startswith('no scheduler named "custom-scheduler" is running')


def test_a_policy_named_for_the_custom_scheduler_runs_it_beside_the_default_one():
    policy = {"apiVersion": "v1", "kind": "Policy", "schedulerName": "custom-scheduler",
              "predicates": [{"name": "HostName"}], "priorities": []}
    result = simulate(docs(node("node1"), CUSTOM, PLAIN_POD), policy=policy)
    custom, web = result["pods"]
    assert custom["node"] == "node1"
    assert custom["scores"] == {"node1": {"EqualPriority": 1, "total": 1}}  # the custom policy
    assert web["node"] == "node1"
    assert web["scores"] == {"node1": empty_node_scores()}  # the default policy
    assert [e["object"] for e in result["events"]] == ["Pod/default/web", "Pod/default/custom-scheduler-example"]


# --- output options and refusals ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "explain, keys",
    [
        pytest.param("all", [True, True], id="all keeps filters and scores of every pod"),
        pytest.param("failed", [False, True], id="failed keeps them only for pods that did not schedule"),
        pytest.param("none", [False, False], id="none drops them"),
    ],
)
def test_explain(explain, keys):
    big = yaml.safe_load(PLAIN_POD.replace("name: web}", "name: big}"))
    big["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "8"}}
    result = simulate(docs(node("node1"), PLAIN_POD, big), explain=explain)
    assert [("filters" in p and "scores" in p) for p in result["pods"]] == keys
    assert [p["node"] for p in result["pods"]] == ["node1", None]


@pytest.mark.parametrize(
    "kwargs, extra, message",
    [
        pytest.param({"until": -30}, [], "--until -30: must be greater than or equal to 0", id="a negative clock run"),
        pytest.param(
            {},
            [{"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"}, "steps": [{"run": "oc adm cordon node1"}]}],
            'Timeline "t" is invalid: steps[0].at: Required value',
            id="a Timeline step without a time",
        ),
        pytest.param(
            {},
            [{"apiVersion": "v1", "kind": "Policy", "predicates": [{"name": "Nope"}]}],
            'scheduler Policy: Invalid configuration: Predicate type not found for "Nope"',
            id="a bad Policy document",
        ),
        pytest.param(
            {},
            [{"apiVersion": "v1", "kind": "Policy"}, {"apiVersion": "v1", "kind": "Policy"}],
            "scheduler Policy: two Policy documents for the scheduler \"default-scheduler\": give one each",
            id="two Policy documents",
        ),
    ],
)
def test_what_cannot_be_simulated_is_refused(kwargs, extra, message):
    with pytest.raises(SimulationError) as exc:
        simulate(docs(node("node1"), PLAIN_POD, *extra), **kwargs)
    assert message in str(exc.value)


def test_several_named_schedulers_each_run_their_own_policy():
    """Multiple schedulers: pods pick their scheduler by schedulerName; here `rack-scheduler`
    only admits nodes with a rack label, `spread-scheduler` runs the default rules."""
    rack_policy = {"kind": "Policy", "apiVersion": "v1", "schedulerName": "rack-scheduler",
                   "predicates": [{"name": "RackRequired", "argument": {"labelsPresence": {"labels": ["rack"], "presence": True}}}],
                   "priorities": [{"name": "EqualPriority", "weight": 1}]}
    spread_policy = {"kind": "Policy", "apiVersion": "v1", "schedulerName": "spread-scheduler",
                     "predicates": [{"name": "PodFitsResources"}],
                     "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}

    def pod_for(name, scheduler):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                "spec": {"schedulerName": scheduler, "containers": [{"name": "c", "image": "i"}]}}

    result = simulate([node("plain"), node("racked", labels={"rack": "r1"}), rack_policy, spread_policy,
                       pod_for("needs-rack", "rack-scheduler"), pod_for("anywhere", "spread-scheduler"),
                       pod_for("nobody", "missing-scheduler")])
    pods = {p["pod"]: p for p in result["pods"]}
    assert pods["default/needs-rack"]["node"] == "racked"
    assert pods["default/needs-rack"]["filters"]["plain"] == {"fits": False, "reasons": ["node(s) didn't have the requested labels"]}
    assert pods["default/anywhere"]["node"] in ("plain", "racked")
    assert list(pods["default/anywhere"]["scores"]["plain"]) == ["LeastRequestedPriority", "total"]
    assert pods["default/nobody"]["node"] is None
