from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("language/", views.switch_language, name="language"),
    path("bots/<str:username>/", views.bot_profile, name="bot-profile"),
]
