"""Shared engine helpers."""

from __future__ import annotations

from gameworkers.engines.base import copy_json


def test_copy_json_is_equal_and_shares_nothing_mutable():
    original = {"a": [1, {"b": [2, 3]}, (4, [5])], "c": None, "d": "x", "e": 1.5, "f": True}
    copied = copy_json(original)
    assert copied == original
    copied["a"][1]["b"].append(9)
    copied["a"][2][1].append(6)
    assert original == {"a": [1, {"b": [2, 3]}, (4, [5])], "c": None, "d": "x", "e": 1.5, "f": True}
