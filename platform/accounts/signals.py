"""What accounts tell the apps built on them; accounts import none of those apps (tests/platform/config/
test_app_layers.py), so each app connects its receivers in its ``AppConfig.ready``."""

from django.dispatch import Signal

# Sent inside the creating transaction with ``user``: the economy grants welcome balances.
user_created = Signal()
# Sent inside the verifying transaction with ``user``: a welcome grant that waited for it is released.
email_verified = Signal()
# Sent inside the deleting transaction (the user row locked) with ``user``: each app gives up what the
# account holds that needs no refund (a quick-play queue place).
user_deleting = Signal()
# Sent after the commit with ``user``: the account lost its access (deactivated, or a new password), so
# its open sockets close as logging out closes them.
access_lost = Signal()
