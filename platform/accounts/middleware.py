from django.conf import settings
from django.utils import translation


class PreferredLanguageMiddleware:
    """A signed-in player's profile language wins unless they chose one in this browser."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (user is not None and user.is_authenticated
                and settings.LANGUAGE_COOKIE_NAME not in request.COOKIES):
            translation.activate(user.preferred_language)
            request.LANGUAGE_CODE = user.preferred_language
        return self.get_response(request)
