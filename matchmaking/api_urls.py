"""Matchmaking REST routes, included under /api/matchmaking/."""

from django.urls import path

from matchmaking import api

urlpatterns = [
    path("queue/", api.QueueView.as_view(), name="api-queue"),
    path("rematch/<int:pk>/", api.RematchView.as_view(), name="api-rematch"),
    path("private/", api.PrivateOpenView.as_view(), name="api-private-open"),
    path("private/join/", api.PrivateJoinView.as_view(), name="api-private-join"),
    path("private/<int:pk>/bots/", api.PrivateBotView.as_view(), name="api-private-bot"),
    path("private/<int:pk>/start/", api.PrivateStartView.as_view(), name="api-private-start"),
    path("private/<int:pk>/stop/", api.PrivateStopView.as_view(), name="api-private-stop"),
    path("leaderboards/<str:game>/", api.LeaderboardView.as_view(), name="api-leaderboard"),
    path("ratings/", api.MyRatingsView.as_view(), name="api-my-ratings"),
]
