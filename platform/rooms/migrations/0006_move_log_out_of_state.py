from django.db import migrations


def forwards(apps, schema_editor):
    """Existing tables: their move log into TableMove rows, their seats into ``seating``."""
    Table = apps.get_model("rooms", "Table")
    TableMove = apps.get_model("rooms", "TableMove")
    Seat = apps.get_model("rooms", "Seat")
    for table in Table.objects.all().iterator():
        fields = []
        state = table.state
        if state is not None and state.get("moves"):
            TableMove.objects.bulk_create(
                TableMove(table_id=table.pk, seq=e["seq"], seat=e["seat"], move=e["move"], now_ms=e["now_ms"])
                for e in state["moves"])
            state.setdefault("move_count", len(state["moves"]))
            state.setdefault("last_move_ms", state["moves"][-1]["now_ms"])
            state["moves"] = []
            fields.append("state")
        table.seating = [
            {"seat": s.number, "user_id": s.user_id, "player": s.user.display_name or s.user.username,
             "username": s.user.username, "bot": s.user.is_bot, "style": s.user.bot_style if s.user.is_bot else "",
             "status": s.status, "timeouts": s.consecutive_timeouts}
            for s in Seat.objects.filter(table_id=table.pk).exclude(status="stood").select_related("user")
            .order_by("number")
        ]
        Table.objects.filter(pk=table.pk).update(seating=table.seating, **({"state": state} if fields else {}))


def backwards(apps, schema_editor):
    """Put every table's log back into its state (the code before this migration reads it there)."""
    Table = apps.get_model("rooms", "Table")
    TableMove = apps.get_model("rooms", "TableMove")
    for table in Table.objects.exclude(state=None).iterator():
        state = table.state
        state["moves"] = [{"seq": m.seq, "seat": m.seat, "move": m.move, "now_ms": m.now_ms}
                          for m in TableMove.objects.filter(table_id=table.pk).order_by("seq")]
        Table.objects.filter(pk=table.pk).update(state=state)


class Migration(migrations.Migration):
    dependencies = [("rooms", "0005_table_move_and_seating"), ("accounts", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
