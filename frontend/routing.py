from django.urls import path

from frontend.consumers import LobbyConsumer

websocket_urlpatterns = [
    path("ws/tournaments/lobby/", LobbyConsumer.as_asgi()),
]
