from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/bracket/", views.tournament_bracket, name="bracket"),
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/unregister/", views.unregister, name="unregister"),
]
