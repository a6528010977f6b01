from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Platform core"

    def ready(self) -> None:
        from core import redis_pubsub

        redis_pubsub.install()
