"""Websocket routes. Session auth and Origin validation wrap every socket."""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import OriginValidator
from django.conf import settings

websocket_urlpatterns: list = []

try:  # the live-play consumers arrive with the live-tables work
    from rooms.routing import websocket_urlpatterns as rooms_ws
    websocket_urlpatterns += rooms_ws
except ImportError:  # pragma: no cover
    pass

websocket_application = OriginValidator(
    AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
    settings.WEBSOCKET_ALLOWED_ORIGINS,
)
