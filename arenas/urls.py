from django.urls import path

from arenas import views

app_name = "arenas"
urlpatterns = [
    path("", views.arena_list, name="list"),
    path("<int:pk>/", views.arena_detail, name="detail"),
    path("<int:pk>/play/", views.arena_play, name="play"),
    path("<int:pk>/join/", views.join, name="join"),
    path("<int:pk>/pause/", views.pause, name="pause"),
]
