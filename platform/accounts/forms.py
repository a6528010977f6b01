from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, PasswordResetForm, UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.errors import AccountError
from accounts.http import client_address
from accounts.models import DELETED_USERNAME_PREFIX, User

THROTTLED = _("Too many failed attempts. Please wait a few minutes and try again.")
WRONG_PASSWORD = _("Your password is wrong.")


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)
    preferred_language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES, initial="en")

    class Meta:
        model = User
        fields = ("username",)

    def clean_username(self):
        username = super().clean_username()
        # Deleted accounts are renamed deleted-<id>: such a name must stay free for them.
        if username and username.lower().startswith(DELETED_USERNAME_PREFIX):
            raise ValidationError(_("Usernames starting with “deleted-” are reserved."), code="username_reserved")
        return username


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


def password_error(exc: AccountError) -> ValidationError:
    """The form error for a refused ``services.password_check`` (its code kept)."""
    return ValidationError(THROTTLED if exc.code == "login_throttled" else WRONG_PASSWORD, code=exc.code)


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change; the old password is checked as a login is (``services.password_check``:
    counted, slowed down), so a stolen session cannot be used to guess it."""

    retry_after = 0

    def __init__(self, user, *args, request=None, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self):
        password = self.cleaned_data.get("old_password") or ""
        try:
            services.password_check(user=self.user, password=password, address=client_address(self.request))
        except AccountError as exc:
            self.retry_after = exc.retry_after
            raise password_error(exc) from None
        return password

    def is_throttled(self) -> bool:
        return self.has_error("old_password", "login_throttled")


class ThrottledPasswordResetForm(PasswordResetForm):
    """Django's reset request. The view sets ``allowed`` (``services.password_reset_allowed``); when the
    address had too many requests nothing is sent, and the page says the same as ever. The mail is
    written in the account's own language. Bots never get one (they have no usable password anyway)."""

    allowed = True

    def get_users(self, email):
        if not self.allowed:
            return iter(())
        return (user for user in super().get_users(email) if not user.is_bot)

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        with translation.override(context["user"].preferred_language):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


class EmailForm(forms.Form):
    email = forms.EmailField(label=_("E-mail address"), max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))


class DeleteAccountForm(forms.Form):
    password = forms.CharField(label=_("Your password"), strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))
    confirm = forms.BooleanField(label=_("I understand that this cannot be undone."),
                                 widget=forms.CheckboxInput(attrs={"style": "width: auto"}))
