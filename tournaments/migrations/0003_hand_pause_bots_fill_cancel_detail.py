"""One table across hands (issue 24): the pause between hands, when the next hand is dealt, the
rooms table a player went out at (the hand result names their place), why a tournament was
cancelled, and bots filling to the minimum by default for new tournaments."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0002_entry_paid_payout_error")]

    operations = [
        migrations.AddField(
            model_name="tournament", name="hand_pause_seconds",
            field=models.PositiveSmallIntegerField(
                default=3, help_text="31: players see the hand result this long before the next hand is dealt.",
                verbose_name="pause between hands (s)")),
        migrations.AddField(model_name="tournament", name="next_deal_at",
                            field=models.DateTimeField(blank=True, null=True)),
        migrations.AddField(model_name="tournament", name="cancel_detail",
                            field=models.JSONField(blank=True, null=True)),
        migrations.AlterField(model_name="tournament", name="fill_with_bots",
                              field=models.BooleanField(default=True, verbose_name="bots fill up to the minimum")),
        migrations.AddField(model_name="entry", name="out_table",
                            field=models.PositiveIntegerField(blank=True, null=True)),
    ]
