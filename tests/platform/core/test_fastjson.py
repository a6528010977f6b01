"""core.fastjson: orjson on the hot path, with json's values."""

from __future__ import annotations

import json
import math

import pytest

from core import fastjson


@pytest.mark.parametrize("value", [
    {"hands": [["P1", "K9"], []], "seat": None, "ok": True, "chips": -25, "ratio": 2.5, "name": "Şule 王"},
    {1: "seat keys become strings", "nested": {2: [3]}},
    {"big": 2**70, "small": -(2**63) - 1},  # beyond orjson: json writes them
    [], "text", 0,
])
def test_dumps_reads_back_as_json_would(value):
    text = fastjson.dumps(value)
    assert json.loads(text) == json.loads(json.dumps(value))


def test_loads_matches_json_and_reads_what_only_json_writes():
    text = json.dumps({"a": [1, 2.5, None, "ü"], "b": {"c": True}})
    assert fastjson.loads(text) == json.loads(text)
    assert math.isnan(fastjson.loads(json.dumps({"x": float("nan")}))["x"])
    with pytest.raises(ValueError):
        fastjson.loads("not json")
