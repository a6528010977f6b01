"""Entry.paid (what each entry actually paid), Tournament.payout_error/payout_failed_at.

``paid`` is backfilled from the ledger, not from today's fee: the fee could be edited after players
paid (issue 23), so for exactly the rows that matter the current fee is the wrong source. Each
registration's posting ``tournament:<id>:entry:<user>:<n>`` put the entry's payment on the
tournament escrow; an entry without such a posting paid nothing (the fee was 0 when it registered).
"""

from django.db import migrations, models


def backfill_paid(apps, schema_editor):
    Entry = apps.get_model("tournaments", "Entry")
    Leg = apps.get_model("wallets", "Entry")
    paid: dict[str, int] = {}
    legs = Leg.objects.filter(account__kind="tournament", amount__gt=0, transaction__key__startswith="tournament:",
                              transaction__key__contains=":entry:").values_list("transaction__key", "amount")
    for key, amount in legs.iterator():
        paid[key] = paid.get(key, 0) + amount
    batch = []
    for entry in Entry.objects.only("pk", "tournament_id", "user_id", "registrations").iterator():
        entry.paid = paid.get(f"tournament:{entry.tournament_id}:entry:{entry.user_id}:{entry.registrations}", 0)
        if entry.paid:
            batch.append(entry)
        if len(batch) >= 500:
            Entry.objects.bulk_update(batch, ["paid"])
            batch = []
    if batch:
        Entry.objects.bulk_update(batch, ["paid"])


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0001_initial"),
        ("wallets", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="paid",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="tournament",
            name="payout_error",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.AddField(
            model_name="tournament",
            name="payout_failed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(backfill_paid, migrations.RunPython.noop),
    ]
