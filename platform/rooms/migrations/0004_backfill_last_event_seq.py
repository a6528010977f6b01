from django.db import migrations
from django.db.models import Max


def backfill(apps, schema_editor):
    """Tables created before last_event_seq existed continue their numbering after their last event."""
    Table = apps.get_model("rooms", "Table")
    TableEvent = apps.get_model("rooms", "TableEvent")
    for table_id, last in TableEvent.objects.values("table_id").annotate(last=Max("seq")).values_list("table_id", "last"):
        Table.objects.filter(pk=table_id).update(last_event_seq=last)


class Migration(migrations.Migration):
    dependencies = [("rooms", "0003_table_last_event_seq")]
    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
