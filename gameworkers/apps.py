from django.apps import AppConfig


class GameworkersConfig(AppConfig):
    name = "gameworkers"
    verbose_name = "Game workers"

    def ready(self) -> None:
        from gameworkers import receivers  # noqa: F401  (connects the rooms' signals)
