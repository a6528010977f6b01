from django.dispatch import Signal

# Sent after the commit that finished a table, with ``table_id`` (ratings, tournaments listen).
table_finished = Signal()
