"""`oc` against the simulated cluster, one module per command family (taint, cordon,
label/annotate, get, describe, drain, scale, delete, create/apply/replace), with
kubectl's output, errors and exit status. `run(store, command, now)` parses and
executes one command line against the documents of `store` (read only) and returns
`OcResult(stdout, stderr, exit_code, actions)`; the caller applies the actions. Nothing
is applied on a dry run or an error. The command table is engine.oc.commands.COMMANDS,
the resources and their printers come from the kinds table engine.api.kinds.TABLE."""

from .commands import COMMANDS, MUTATING, run
from .core import TAINT_EFFECTS, OcError, OcResult
from .label import parse_labels
from .selectors import parse_selector
from .taint import TaintSpec, parse_taint, parse_taints, reorganize_taints

__all__ = ["COMMANDS", "MUTATING", "OcError", "OcResult", "TAINT_EFFECTS", "TaintSpec", "parse_labels", "parse_selector",
           "parse_taint", "parse_taints", "reorganize_taints", "run"]
