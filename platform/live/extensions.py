"""What apps above rooms add to the table socket, registered from their ``AppConfig.ready`` (the chat:
``chat.apps``), so the live path imports none of them (tests/platform/config/test_app_layers.py).

- ``CLIENT_FRAMES``: a client frame type -> ``async handler(consumer, message, client_id)``.
- ``LAYER_MESSAGES``: a channel-layer message type -> ``async forward(consumer, message)``, which sends it
  on to that socket's user if they may read it.
- ``FOLLOWS_PLAY``: a channel-layer message type -> ``predicate(message)``: whether a late spectator
  receives it from the delay line, in step with the play it belongs to (the players' chat), rather than
  at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

CLIENT_FRAMES: dict[str, Callable[..., Awaitable[None]]] = {}
LAYER_MESSAGES: dict[str, Callable[..., Awaitable[None]]] = {}
FOLLOWS_PLAY: dict[str, Callable[[dict], bool]] = {}
