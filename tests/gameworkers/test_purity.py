"""The rules ring stays pure: engines and bots import only the standard library and each other, and
read no clock and no global random generator (ARCHITECTURE.md, "pure rules")."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = sorted([*(ROOT / "gameworkers" / "engines").glob("*.py"), *(ROOT / "gameworkers" / "bots").glob("*.py")])
ALLOWED_PACKAGES = ("gameworkers.engines", "gameworkers.bots")
CLOCKS = {"time", "datetime"}
GLOBAL_RANDOM = {"random", "choice", "choices", "shuffle", "randint", "randrange", "uniform", "sample", "seed",
                 "getrandbits", "randbytes"}


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, node.module or ""))
    return found


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_pure_module_imports_only_the_standard_library_and_the_rules_ring(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for line, module in _imports(tree):
        top = module.split(".")[0]
        if module.startswith(ALLOWED_PACKAGES) or module == "__future__":
            continue
        if top not in sys.stdlib_module_names or top in CLOCKS:
            bad.append(f"line {line}: {module}")
    assert not bad, bad


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_pure_module_uses_no_global_random_generator(path):
    """``random.Random(seed)`` instances only; ``random.choice(...)`` and friends share one global state."""
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = [f"line {node.lineno}: random.{node.func.attr}()" for node in ast.walk(tree)
           if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and isinstance(node.func.value, ast.Name) and node.func.value.id == "random"
           and node.func.attr in GLOBAL_RANDOM]
    assert not bad, bad


def test_the_check_sees_every_pure_module():
    assert len(PURE) >= 10 and all(p.suffix == ".py" for p in PURE)
