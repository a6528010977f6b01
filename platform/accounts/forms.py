from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.http import client_address
from accounts.models import User

THROTTLED = _("Too many failed attempts. Please wait a few minutes and try again.")


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)
    preferred_language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES, initial="en")

    class Meta:
        model = User
        fields = ("username",)


class LoginThrottleMixin:
    """Login throttling for an ``AuthenticationForm``: an attempt its (username, address) or its address
    must still wait for is refused before the password is checked (error code ``login_throttled``,
    ``retry_after`` set); a wrong one is counted, a right one clears the pair's count
    (``accounts.services``). The site's login and the admin's both use it."""

    retry_after = 0

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request)
        self.retry_after = services.login_retry_after(username=username, address=address)
        if self.retry_after:
            raise ValidationError(THROTTLED, code="login_throttled")
        try:
            cleaned = super().clean()
        except ValidationError:  # a wrong password, an inactive account, or (admin) not staff
            if self.cleaned_data.get("password"):
                services.login_failed(username=username, address=address)
            raise
        if self.get_user() is not None:
            services.login_succeeded(username=username, address=address)
        return cleaned

    def is_throttled(self) -> bool:
        return self.has_error(NON_FIELD_ERRORS, "login_throttled")


class ThrottledAuthenticationForm(LoginThrottleMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(LoginThrottleMixin, AdminAuthenticationForm):
    pass


class ProfileForm(forms.Form):
    display_name = forms.CharField(label=_("Display name"), max_length=40)
    preferred_language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
