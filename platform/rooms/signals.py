from django.dispatch import Signal

# Sent after the commit that finished a table, with ``table_id`` (ratings, tournaments listen).
table_finished = Signal()

# Sent after the commit that made it a bot's turn, with ``table_id``, ``seat`` and ``version`` (the
# game workers queue the bot's move). Rooms never import the workers: they run rooms, not the reverse.
bot_turn_due = Signal()
