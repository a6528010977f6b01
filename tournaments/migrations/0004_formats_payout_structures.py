"""Formats and payout structures (issue 24): admin-editable payout structures (the default one, the
seeds' 70/30 from 4 entrants with the winner taking all below, is created here and used by every
tournament naming none), sit & go, late registration, re-entry (a player's entries are numbered: one
row per entry, at most one live) and ante levels by minutes."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def default_structure(apps, schema_editor):
    Structure = apps.get_model("tournaments", "PayoutStructure")
    if Structure.objects.filter(is_default=True).exists():
        return
    structure = Structure.objects.create(name="Standard: 70/30 from 4 entrants", is_default=True)
    structure.rows.create(from_entrants=1, percents="100")
    structure.rows.create(from_entrants=4, percents="70, 30")


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_hand_pause_bots_fill_cancel_detail'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PayoutRow',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('from_entrants', models.PositiveIntegerField(verbose_name='from entrants')),
                ('percents', models.CharField(help_text='Best place first, e.g. "50, 30, 20"; whole numbers or two decimals, adding up to 100.', max_length=400, verbose_name='percentages per place')),
            ],
            options={
                'verbose_name': 'payout row',
                'ordering': ['structure', 'from_entrants'],
            },
        ),
        migrations.CreateModel(
            name='PayoutStructure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=80, unique=True, verbose_name='name')),
                ('is_default', models.BooleanField(default=False, help_text='Used by every tournament that names no payout structure.', verbose_name='default')),
            ],
            options={
                'verbose_name': 'payout structure',
                'ordering': ['name'],
            },
        ),
        migrations.RemoveConstraint(
            model_name='entry',
            name='tournament_entry_once',
        ),
        migrations.AddField(
            model_name='entry',
            name='number',
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddField(
            model_name='tournament',
            name='bots_fill_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='tournament',
            name='fill_after_seconds',
            field=models.PositiveIntegerField(default=60, help_text='With bots filling: this long after the first registration, bots take the empty seats and the sit & go starts.', verbose_name='sit & go: bots fill after (s)'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='late_registration_level',
            field=models.PositiveSmallIntegerField(blank=True, help_text='31: players may still register while the ante level is at most this (the late entrant gets the starting stack at the next hand). Empty: none.', null=True, verbose_name='late registration until level'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='level_minutes',
            field=models.PositiveSmallIntegerField(default=10, help_text='Levels by minutes: each level of the ante schedule lasts this long, counted from the start.', verbose_name='minutes per level'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='levels_by',
            field=models.CharField(choices=[('hands', "Hands (the schedule's count)"), ('minutes', 'Minutes since the start')], default='hands', max_length=8, verbose_name='ante levels change by'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='max_entries',
            field=models.PositiveSmallIntegerField(default=1, help_text='Above 1: an eliminated player may re-enter, paying the entry again, while late registration is open.', verbose_name='entries per player'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='payout_rows',
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='tournament',
            name='sit_and_go',
            field=models.BooleanField(default=False, help_text='Starts as soon as the maximum number of entrants has registered (no start time); a new one with the same settings opens for registration at once.', verbose_name='sit & go'),
        ),
        migrations.AddConstraint(
            model_name='entry',
            constraint=models.UniqueConstraint(fields=('tournament', 'user', 'number'), name='tournament_entry_number'),
        ),
        migrations.AddConstraint(
            model_name='entry',
            constraint=models.UniqueConstraint(condition=models.Q(('status__in', ['registered', 'playing'])), fields=('tournament', 'user'), name='tournament_entry_live_once'),
        ),
        migrations.AddConstraint(
            model_name='payoutstructure',
            constraint=models.UniqueConstraint(condition=models.Q(('is_default', True)), fields=('is_default',), name='payout_structure_one_default'),
        ),
        migrations.AddField(
            model_name='payoutrow',
            name='structure',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rows', to='tournaments.payoutstructure'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='payout_structure',
            field=models.ForeignKey(blank=True, help_text='Empty: the default payout structure.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='tournaments', to='tournaments.payoutstructure', verbose_name='payout structure'),
        ),
        migrations.AddConstraint(
            model_name='tournament',
            constraint=models.CheckConstraint(condition=models.Q(('max_entries__gte', 1)), name='tournament_max_entries'),
        ),
        migrations.AddConstraint(
            model_name='payoutrow',
            constraint=models.UniqueConstraint(fields=('structure', 'from_entrants'), name='payout_row_once'),
        ),
        migrations.AlterField(
            model_name='tournament',
            name='starts_at',
            field=models.DateTimeField(blank=True, help_text='A sit & go: leave empty, it starts when full.', verbose_name='starts at'),
        ),
        migrations.RunPython(default_structure, migrations.RunPython.noop),
    ]
