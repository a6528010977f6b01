"""Arena REST routes, included under /api/arenas/."""

from django.urls import path

from arenas import api

urlpatterns = [
    path("", api.ArenaListView.as_view(), name="api-arenas"),
    path("<int:pk>/", api.ArenaDetailView.as_view(), name="api-arena"),
    path("<int:pk>/join/", api.ArenaJoinView.as_view(), name="api-arena-join"),
    path("<int:pk>/pause/", api.ArenaPauseView.as_view(), name="api-arena-pause"),
]
