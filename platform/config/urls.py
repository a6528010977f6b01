from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core import views as core_views

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script from ?script (no inline script: the CSP forbids them).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("config.api_urls")),
    path("play/", include("matchmaking.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("arenas/", include("arenas.urls")),
    path("api/arenas/", include("arenas.api_urls")),  # beside config.api_urls' /api/ (docs/arenas.md)
    path("", include("frontend.urls")),
]

handler404 = "core.views.not_found"
