"""Seeds at rest (issue 23 #9): the plaintext ``seed_hex`` column becomes ``seed_sealed`` (rooms.seeds,
keys from the settings), and a running table's state no longer carries its seed. Ended tables keep the
seed in their state: it was revealed at the end."""

from django.db import migrations, models


def seal_seeds(apps, schema_editor):
    from rooms.seeds import seal

    Table = apps.get_model("rooms", "Table")
    for table in Table.objects.only("pk", "seed_hex", "status", "state").iterator():
        fields = {"seed_sealed": seal(bytes.fromhex(table.seed_hex))}
        state = table.state
        if isinstance(state, dict) and "seed" in state and table.status not in ("finished", "stopped"):
            state.pop("seed")
            fields["state"] = state
        Table.objects.filter(pk=table.pk).update(**fields)


def open_seeds(apps, schema_editor):
    from rooms.seeds import unseal

    Table = apps.get_model("rooms", "Table")
    for table in Table.objects.only("pk", "seed_sealed", "state").iterator():
        seed_hex = unseal(table.seed_sealed).hex()
        fields = {"seed_hex": seed_hex}
        if isinstance(table.state, dict) and "seed" not in table.state:
            fields["state"] = {**table.state, "seed": seed_hex}
        Table.objects.filter(pk=table.pk).update(**fields)


class Migration(migrations.Migration):
    dependencies = [("rooms", "0011_room_time_bank_spectator_delay")]
    operations = [
        migrations.AddField("table", "seed_sealed", models.CharField(default="", max_length=255), preserve_default=False),
        migrations.RunPython(seal_seeds, open_seeds),
        migrations.RemoveField("table", "seed_hex"),
    ]
