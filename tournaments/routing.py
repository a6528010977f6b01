from django.urls import path

from tournaments.consumers import TournamentConsumer, TournamentLobbyConsumer

websocket_urlpatterns = [
    path("ws/tournaments/lobby/", TournamentLobbyConsumer.as_asgi()),
    path("ws/tournaments/<int:pk>/", TournamentConsumer.as_asgi()),
]
