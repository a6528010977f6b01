"""The REST API's URL table; each app adds its routes here."""

from accounts import api as accounts_api
from django.urls import path

urlpatterns = [
    path("me/", accounts_api.MeView.as_view(), name="api-me"),
]
