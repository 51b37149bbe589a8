"""Real OpenShift update data shipped with the app (see README.md for provenance and licence)."""
