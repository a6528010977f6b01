from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/bracket/", views.tournament_bracket, name="bracket"),
    path("<int:pk>/play/", views.tournament_play, name="play"),
    path("<int:pk>/table/<int:number>/", views.tournament_table, name="table"),
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/unregister/", views.unregister, name="unregister"),
]
