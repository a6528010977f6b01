from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live path"

    def ready(self) -> None:
        from live import redis_pubsub

        redis_pubsub.install()
