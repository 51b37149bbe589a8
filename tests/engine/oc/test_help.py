"""`oc` and `oc adm` without a command: oc's help (cobra runs the root's runHelp; `oc adm`'s
DefaultSubCommandRun prints its help on stderr and exits 1), listing the commands the
simulator implements in oc's groups, with their Short, padded as oc pads them."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.oc.commands import COMMANDS
from scheduling.engine.store import Store

ROOT = """OpenShift Client

This client helps you develop, build, deploy, and run your applications on any
OpenShift or Kubernetes cluster. It also includes the administrative
commands for managing a cluster under the 'adm' subcommand.

Basic Commands:
  explain         Get documentation for a resource

Build and Deploy Commands:
  rollout         Manage a Kubernetes deployment or OpenShift deployment config

Application Management Commands:
  create          Create a resource from a file or from stdin
  apply           Apply a configuration to a resource by file name or stdin
  get             Display one or many resources
  describe        Show details of a specific resource or group of resources
  edit            Edit a resource on the server
  label           Update the labels on a resource
  annotate        Update the annotations on a resource
  delete          Delete resources by file names, stdin, resources and names, or by resources and label selector
  scale           Set a new size for a deployment, replica set, or replication controller

Troubleshooting and Debugging Commands:
  logs            Print the logs for a resource

Advanced Commands:
  adm             Tools for managing a cluster
  replace         Replace a resource by file name or stdin
  patch           Update fields of a resource

Settings Commands:
  config          Modify kubeconfig files
  whoami          Return information about the current session

Other Commands:
  version         Print the client and server version information

Usage:
  oc [flags] [options]

Use "oc <command> --help" for more information about a given command.
Use "oc options" for a list of global command-line options (applies to all commands).
"""


@pytest.mark.parametrize("command", ["oc", "oc -h", "oc --help", "oc -n shop"])
def test_oc_alone_prints_its_help_on_stdout_and_succeeds(command):
    result = oc.run(Store(), command)
    assert (result.stdout, result.stderr, result.exit_code, result.actions) == (ROOT, "", 0, [])


def test_the_help_lists_every_top_level_command_the_simulator_runs():
    listed = {line.split()[0] for line in ROOT.splitlines() if line.startswith("  ") and not line.startswith("  oc ")}
    assert listed == {path[0] for path in COMMANDS}


def test_oc_adm_alone_prints_its_help_on_stderr_and_fails():
    result = oc.run(Store(), "oc adm")
    assert (result.stdout, result.exit_code) == ("", 1)
    lines = result.stderr.splitlines()
    assert lines[:3] == ["Administrative Commands", "", " Actions for administering an OpenShift cluster are exposed here."]
    start = lines.index("Available Commands:")
    commands = lines[start + 1: lines.index("", start)]
    assert [line.split()[0] for line in commands] == ["cordon", "drain", "taint", "top", "uncordon", "upgrade"]
    # padded to `create-provider-selection-template`, the longest of oc adm's commands
    assert commands[0] == "  cordon" + " " * 29 + "Mark node as unschedulable"
    assert "Usage:\n  oc adm [flags] [options]\n" in result.stderr
    assert {p[1] for p in COMMANDS if p[0] == "adm"} == {line.split()[0] for line in commands}
    # -h asks for it: stdout, success
    asked = oc.run(Store(), "oc adm -h")
    assert (asked.stdout, asked.stderr, asked.exit_code) == (result.stderr, "", 0)

