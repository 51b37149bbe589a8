#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except Exception as exc:  # a missing or unreachable database: one line, not a traceback
        from clusterui.middleware import database_problem, is_database_error

        if not is_database_error(exc) or "--traceback" in sys.argv:
            raise
        sys.stderr.write(f"error: {database_problem(exc)}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
