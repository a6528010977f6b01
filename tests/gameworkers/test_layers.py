"""The rings' direction: the game workers run rooms, matchmaking and tournaments, never the reverse.
Below ``gameworkers`` only its pure rules (``engines``, ``bots``) may be imported; work for the workers
is asked for with a signal or a task name (ARCHITECTURE.md, "three rings")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BELOW = sorted(p for top in ("platform", "matchmaking", "tournaments", "arenas", "frontend")
               for p in (ROOT / top).rglob("*.py") if "migrations" not in p.parts)
RULES = ("gameworkers.engines", "gameworkers.bots")


def _gameworkers_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):  # function-level imports count too
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "gameworkers"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "gameworkers":
            if node.module == "gameworkers":
                found += [(node.lineno, f"gameworkers.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("path", BELOW, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_below_the_workers_imports_them_except_the_pure_rules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = [f"line {line}: {module}" for line, module in _gameworkers_imports(tree) if not module.startswith(RULES)]
    assert not bad, bad


def test_the_check_sees_the_apps():
    names = {p.relative_to(ROOT).parts[0] for p in BELOW}
    assert names == {"platform", "matchmaking", "tournaments", "arenas", "frontend"} and len(BELOW) > 60
