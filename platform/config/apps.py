from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """The project root as an app: it wires every app together (urls, routing, Celery) and holds the
    commands that run or seed the whole platform, so no app below it has to import the others."""

    name = "config"
    label = "cardroom_config"
    verbose_name = "Platform configuration"
