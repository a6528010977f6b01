"""The timer's due index moves to its own narrow row (TableDeadline), so that a move's update of the
table row changes no indexed column and can be a HOT update. Running tables with a deadline get their
entry, with the claim mark they had."""

import django.db.models.deletion
from django.db import migrations, models


def copy_deadlines(apps, schema_editor):
    Table = apps.get_model("rooms", "Table")
    TableDeadline = apps.get_model("rooms", "TableDeadline")
    TableDeadline.objects.bulk_create(
        [TableDeadline(table_id=pk, due_at=due_at, version=version, enqueued_at=enqueued_at)
         for pk, due_at, version, enqueued_at in Table.objects.filter(status="running", deadline_at__isnull=False)
         .values_list("pk", "deadline_at", "version", "deadline_enqueued_at").iterator()],
        batch_size=1000)


def copy_back(apps, schema_editor):
    Table = apps.get_model("rooms", "Table")
    TableDeadline = apps.get_model("rooms", "TableDeadline")
    for table_id, enqueued_at in TableDeadline.objects.filter(enqueued_at__isnull=False).values_list(
            "table_id", "enqueued_at").iterator():
        Table.objects.filter(pk=table_id).update(deadline_enqueued_at=enqueued_at)


class Migration(migrations.Migration):

    dependencies = [
        ('rooms', '0012_table_seed_sealed'),
    ]

    operations = [
        migrations.CreateModel(
            name='TableDeadline',
            fields=[
                ('table', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='due', serialize=False, to='rooms.table')),
                ('due_at', models.DateTimeField(blank=True, null=True)),
                ('version', models.PositiveIntegerField(help_text='the table version whose deadline this is')),
                ('enqueued_at', models.DateTimeField(blank=True, help_text='when the timer handed it out', null=True)),
            ],
        ),
        migrations.RunPython(copy_deadlines, copy_back),
        migrations.RemoveIndex(
            model_name='table',
            name='table_due_idx',
        ),
        migrations.RemoveField(
            model_name='table',
            name='deadline_enqueued_at',
        ),
        migrations.AddIndex(
            model_name='tabledeadline',
            index=models.Index(condition=models.Q(('due_at__isnull', False)), fields=['due_at'], name='table_deadline_due_idx'),
        ),
    ]
