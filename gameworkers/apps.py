from django.apps import AppConfig


class GameworkersConfig(AppConfig):
    name = "gameworkers"
    verbose_name = "Game workers"
