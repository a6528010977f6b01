"""Websocket routes. Session auth and Origin validation wrap every socket."""

from __future__ import annotations

from channels.routing import URLRouter
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.urls import re_path

from accounts.websocket_auth import SessionAuthMiddleware
from arenas.routing import websocket_urlpatterns as arenas_ws
from core.websocket import NoSuchSocket
from frontend.routing import websocket_urlpatterns as frontend_ws
from matchmaking.routing import websocket_urlpatterns as matchmaking_ws
from rooms.routing import websocket_urlpatterns as rooms_ws
from tournaments.routing import websocket_urlpatterns as tournaments_ws

websocket_urlpatterns: list = [*rooms_ws, *matchmaking_ws, *frontend_ws, *tournaments_ws, *arenas_ws,
                               re_path(r"", NoSuchSocket.as_asgi())]  # last: anything else is 4404

websocket_application = OriginValidator(
    SessionAuthMiddleware(URLRouter(websocket_urlpatterns)),
    settings.WEBSOCKET_ALLOWED_ORIGINS,
)
