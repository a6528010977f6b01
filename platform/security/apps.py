from django.apps import AppConfig


class SecurityConfig(AppConfig):
    name = "security"
    label = "cardroom_security"
    verbose_name = "Platform security checks"

    def ready(self) -> None:
        from security import checks  # noqa: F401  (registers the checks)
