"""Table chat: the players' chat and the spectators' chat of each table, quick phrases, per-user mute and
block, reports and staff's site-wide mutes (docs/protocol.md, "Chat", has the readings in full).

- Who writes where: a user seated at the table (status ``seated``) writes into the players' chat; everyone
  else who may watch the table writes into the spectators' chat. Nobody chooses: there is no chat to one
  seat, so nothing said at a table is private to part of it.
- Who reads what: while the table is open or running, its seated players read the players' chat only;
  spectators read both. Once the table has ended, everyone reads both (the whole history).
- Mute hides a user's messages from me, at every table, until I unmute. Block is a mute that also keeps
  my messages from them, except in the players' chat while the table is open or running: there every
  seated player reads every other (a block must not let partners talk behind the opponents' backs).
- Messages are stored with the table (moderation), sent over the table's websocket after commit.
"""
