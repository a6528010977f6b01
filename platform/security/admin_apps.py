"""The admin app with this project's admin site as the default one (``admin.site``).

Listed in INSTALLED_APPS in place of ``django.contrib.admin`` (Django's documented way to replace the
default site). A module of its own: ``apps.py`` may hold only one AppConfig, and this module is imported
before the models are, so it names the site by its path.
"""

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "security.admin_site.StaffAdminSite"
