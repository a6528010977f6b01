from django.urls import path

from matchmaking import views

app_name = "matchmaking"
urlpatterns = [
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("leaderboards/<str:game>/", views.leaderboard, name="leaderboard"),
    path("invite/<str:code>/", views.invite, name="invite"),
]
