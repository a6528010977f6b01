"""The apps form layers: an app imports only apps below it (module-level and function-level imports
alike), so there is no cycle between apps (issue 21). Work that must flow upwards (a bot's turn, a chat
frame on the table socket, a profile section) goes through a signal or a registry the lower app owns.

`config` (urls, routing, the platform-wide commands) is the composition root on top; `live` is the rooms
app's quarantined live path and sits with it; the game workers run everything and nothing imports them
except their pure rules (tests/gameworkers/test_layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# Bottom first. An app may import itself and anything earlier in this list.
LAYERS = [
    "rules",  # gameworkers.engines and gameworkers.bots: the standard library only
    "core",
    "audit",  # who changed what in the admin (users by AUTH_USER_MODEL, never by import)
    "accounts",
    "security",
    "wallets",
    "rooms",  # with "live", its live path
    "chat",
    "matchmaking",
    "tournaments",
    "arenas",
    "frontend",
    "gameworkers",
    "config",
]
SAME_LAYER = {"live": "rooms"}
APPS = {path.name: path for path in (ROOT / "platform").iterdir() if (path / "__init__.py").exists()} | {
    name: ROOT / name for name in ("matchmaking", "tournaments", "arenas", "frontend", "gameworkers")}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "gameworkers" and len(parts) > 1 and parts[1] in ("engines", "bots"):
        return "rules"
    if parts[0] not in APPS:
        return None  # the standard library or a third-party package
    return SAME_LAYER.get(parts[0], parts[0])


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


SOURCES = sorted(p for app in APPS.values() for p in app.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_app_imports_only_the_apps_below_it(path):
    own = _layer(".".join(path.relative_to(ROOT / "platform" if path.is_relative_to(ROOT / "platform") else ROOT)
                         .with_suffix("").parts))
    rank = LAYERS.index(own)
    upwards = [f"line {line}: {module} ({_layer(module)} is above {own})" for line, module in _imports(path)
               if (layer := _layer(module)) is not None and LAYERS.index(layer) > rank]
    assert not upwards, upwards


def test_every_app_has_a_layer():
    assert {SAME_LAYER.get(name, name) for name in APPS} - {"gameworkers"} <= set(LAYERS)
    assert {"core", "rooms", "live", "tournaments", "arenas", "config"} <= set(APPS) and len(SOURCES) > 150
