"""Every stored state carries the move counter and the last move's time, so the engines read them
directly and keep no fallback for older states (0006 set them only on tables that had moves: a table
that was dealt but had no move yet, saved before the counters existed, still lacked them). The move
log rows are the record: the counter is their count, the time the last one's."""

from django.db import migrations
from django.db.models import Count, Max


def forwards(apps, schema_editor):
    Table = apps.get_model("rooms", "Table")
    TableMove = apps.get_model("rooms", "TableMove")
    for table in Table.objects.exclude(state=None).only("pk", "state").iterator():
        state = table.state
        if not isinstance(state, dict) or ("move_count" in state and "last_move_ms" in state):
            continue
        logged = TableMove.objects.filter(table_id=table.pk).aggregate(n=Count("pk"), last_seq=Max("seq"))
        last = (TableMove.objects.filter(table_id=table.pk, seq=logged["last_seq"]).values_list("now_ms", flat=True)
                .first() if logged["n"] else None)
        moves = state.get("moves") or []
        state.setdefault("move_count", max(logged["n"], len(moves)))
        state.setdefault("last_move_ms", moves[-1]["now_ms"] if moves else last)
        Table.objects.filter(pk=table.pk).update(state=state)


class Migration(migrations.Migration):
    dependencies = [("rooms", "0009_room_rake_default")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
