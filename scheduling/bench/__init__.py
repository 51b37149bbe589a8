"""The benchmarks (`make bench`). They build stored clusters of 10,000 pods and more, past
the default limits of a cluster (README.md "Limits"): unless the environment says
otherwise, a benchmark's process raises them before Django reads its settings."""

import os

os.environ.setdefault("CLUSTER_MAX_PODS", "1000000")
os.environ.setdefault("CLUSTER_MAX_OBJECTS", "2000000")
