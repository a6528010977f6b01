"""Tournament REST routes, included under /api/tournaments/."""

from django.urls import path

from tournaments import api

urlpatterns = [
    path("", api.TournamentListView.as_view(), name="api-tournaments"),
    path("<int:pk>/", api.TournamentDetailView.as_view(), name="api-tournament"),
    path("<int:pk>/register/", api.TournamentRegisterView.as_view(), name="api-tournament-register"),
    path("<int:pk>/unregister/", api.TournamentUnregisterView.as_view(), name="api-tournament-unregister"),
]
