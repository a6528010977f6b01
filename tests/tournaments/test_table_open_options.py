"""The one rooms change: ``table_open(options=...)`` merges over the room's engine options."""

from __future__ import annotations

import pytest

from rooms import services
from rooms.errors import TableError


def test_options_merge_over_engine_options_and_reach_the_engine(room, make_bots):
    bots = make_bots(2)
    table = services.table_open(room=room, seat_count=2, options={"stacks": [30, 70], "hands": 1, "hand_offset": 5,
                                                                  "ebe": 1})
    assert table.options["ante"] == 1 and table.options["stacks"] == [30, 70]  # room default kept, override added
    for bot in bots:
        services.table_sit(table_id=table.pk, user=bot)
    table.refresh_from_db()
    assert table.state["options"]["hand_offset"] == 5 and table.state["ebe"] == 1
    assert table.state["ante"] == 2  # hand 5 of the default schedule: the ante has doubled
    plain = services.table_open(room=room)
    assert "stacks" not in plain.options


def test_bad_options_are_refused_with_a_code(room):
    with pytest.raises(TableError) as err:
        services.table_open(room=room, options=["stacks"])
    assert err.value.code == "bad_options"
