#!/usr/bin/env python
"""Django's command-line utility. ``platform/`` is a source folder, not a package."""

import os
import sys
from pathlib import Path


def main() -> None:
    root = Path(__file__).resolve().parent
    # platform/ holds the core apps (imported by name: accounts, rooms, ...). It has no
    # __init__.py, so ``import platform`` still finds the standard library's module.
    for path in (root / "platform", root):
        if str(path) not in sys.path:
            sys.path.insert(1, str(path))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
