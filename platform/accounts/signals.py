from django.dispatch import Signal

# Sent inside the creating transaction with ``user``: the economy grants welcome balances.
user_created = Signal()
