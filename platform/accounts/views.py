from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts import conf, selectors, services
from accounts.errors import AccountError
from accounts.forms import (
    DeleteAccountForm,
    EmailForm,
    ProfileForm,
    SignUpForm,
    ThrottledAuthenticationForm,
    ThrottledPasswordChangeForm,
    ThrottledPasswordResetForm,
    password_error,
)
from accounts.http import client_address
from accounts.models import User
from core.api import http_status


def signup(request):
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            try:
                user = services.user_signup(
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password1"],
                    display_name=form.cleaned_data["display_name"],
                    preferred_language=form.cleaned_data["preferred_language"],
                    address=client_address(request),
                )
            except AccountError as exc:
                if exc.code == "signup_throttled":
                    response = render(request, "accounts/signup.html",
                                      {"form": form, "throttled": True, "error_code": exc.code}, status=429)
                    response["Retry-After"] = str(exc.retry_after)
                    return response
                # username_taken: a concurrent sign-up took the name after the form checked it
                form.add_error("username", ValidationError(exc.message, code=exc.code))
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                response = redirect(settings.LOGIN_REDIRECT_URL)
                response.set_cookie(settings.LANGUAGE_COOKIE_NAME, user.preferred_language, samesite="Lax")
                return response
    else:
        form = SignUpForm()
    return render(request, "accounts/signup.html", {"form": form})


class ThrottledLoginView(LoginView):
    """Login with ``accounts.forms.LoginThrottleMixin``: an attempt that must still wait gets HTTP 429
    with ``Retry-After`` (error code ``login_throttled``), the password unchecked."""

    template_name = "accounts/login.html"
    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        if form.is_throttled():
            response = self.render_to_response(self.get_context_data(
                form=form, throttled=True, error_code="login_throttled"), status=429)
            response["Retry-After"] = str(form.retry_after)
            return response
        return super().form_invalid(form)

    def form_valid(self, form):
        user = form.get_user()
        response = super().form_valid(form)
        if settings.LANGUAGE_COOKIE_NAME not in self.request.COOKIES:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, user.preferred_language, samesite="Lax")
        return response


@login_required
def profile(request):
    user = request.user
    if request.method == "POST":
        form = ProfileForm(request.POST)
        if form.is_valid():
            services.user_update_profile(user=user, **form.cleaned_data)
            messages.success(request, _("Profile saved."))
            response = redirect("accounts:profile")
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, user.preferred_language, samesite="Lax")
            return response
    else:
        form = ProfileForm(initial={"display_name": user.public_name,
                                    "preferred_language": user.preferred_language})
    return render(request, "accounts/profile.html", {
        "form": form, **selectors.profile_context(user=user)})


def bot_profile(request, username: str):
    bot = get_object_or_404(User, username=username, is_bot=True)
    return render(request, "accounts/bot_profile.html", {"bot": bot})


@require_POST
def switch_language(request):
    """Set the language cookie (and a signed-in player's preference), then go back."""
    language = request.POST.get("language", "")
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = "/"
    response = HttpResponseRedirect(target)
    if language in dict(settings.LANGUAGES):
        if request.user.is_authenticated:
            services.user_set_language(user=request.user, language=language)
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax",
                            max_age=365 * 24 * 3600)
    return response


def _throttled(response, retry_after: int):
    response.status_code = 429
    response["Retry-After"] = str(retry_after)
    return response


# ----- password change and reset (Django's views, our templates, throttled) ----------------

class PasswordChangeView(auth_views.PasswordChangeView):
    """Old password required (throttled as a login). Django keeps this session and ends the user's
    other sessions (their stored password hash no longer matches); saving the new password closes all
    the user's sockets after the commit (``accounts.receivers``)."""

    template_name = "accounts/password_change.html"
    form_class = ThrottledPasswordChangeForm
    success_url = reverse_lazy("accounts:profile")

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, _("Your password was changed. Your other sessions were logged out."))
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        return _throttled(response, form.retry_after) if form.is_throttled() else response


class PasswordResetView(auth_views.PasswordResetView):
    """The request for a reset link: the same answer whether or not the address has an account;
    throttled per e-mail address (silently) and per client address (HTTP 429)."""

    template_name = "accounts/password_reset_form.html"
    form_class = ThrottledPasswordResetForm
    subject_template_name = "accounts/emails/password_reset_subject.txt"
    email_template_name = "accounts/emails/password_reset.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form):
        try:
            form.allowed = services.password_reset_allowed(email=form.cleaned_data["email"],
                                                           address=client_address(self.request))
        except AccountError as exc:
            response = self.render_to_response(self.get_context_data(form=form, throttled=True,
                                                                     error_code=exc.code))
            return _throttled(response, exc.retry_after)
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "valid_h": max(1, settings.PASSWORD_RESET_TIMEOUT // 3600)}


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link from the e-mail: a new password (the link works once: the token depends on the old
    password hash). The player logs in afterwards; a login slow-down on their name is lifted."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        services.login_throttle_clear(username=form.user.username)
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


# ----- e-mail address ----------------------------------------------------------------

EMAIL_ERRORS = {
    "bad_email": gettext_lazy("Enter a valid e-mail address."),
    "email_unchanged": gettext_lazy("This is already your verified address."),
    "email_throttled": gettext_lazy("Too many verification e-mails were sent. Please try again later."),
}


def _site_url(request) -> str:
    return f"{request.scheme}://{request.get_host()}"


@login_required
def email(request):
    """The player's address: the verified one, one awaiting verification, and a form for a new one."""
    user = request.user
    status = 200
    form = EmailForm(initial={"email": user.pending_email or user.email})
    if request.method == "POST":
        if request.POST.get("action") == "cancel":
            services.email_cancel_pending(user=user)
            messages.success(request, _("The address awaiting verification was removed."))
            return redirect("accounts:email")
        form = EmailForm(request.POST)
        if form.is_valid():
            try:
                address = services.email_change_request(user=user, email=form.cleaned_data["email"],
                                                        site_url=_site_url(request))
            except AccountError as exc:
                form.add_error("email", ValidationError(str(EMAIL_ERRORS.get(exc.code, exc.message)), code=exc.code))
                status = http_status(exc)
            else:
                messages.success(request, _("We sent a verification link to %(email)s. Open it to confirm the "
                                            "address.") % {"email": address})
                return redirect("accounts:email")
    response = render(request, "accounts/email.html", {
        "form": form, **selectors.profile_context(user=user, sections=("welcome",)),
        "max_age_h": conf.get("EMAIL_VERIFY_MAX_AGE_S") // 3600}, status=status)
    return _throttled(response, conf.get("EMAIL_VERIFY_WINDOW_S")) if status == 429 else response


VERIFY_ERRORS = {
    "email_link_invalid": gettext_lazy("This verification link is not valid. Check that you copied all of it."),
    "email_link_expired": gettext_lazy("This verification link has expired. Ask for a new one on your profile."),
    "email_link_stale": gettext_lazy("This link is no longer valid: a newer address was asked for since. Use "
                                     "the latest link we sent, or ask for a new one on your profile."),
    "email_taken": gettext_lazy("Another account has already verified this address."),
}


def email_verify(request, token: str):
    """The link from the verification mail: shows the address and a button (a mail scanner that only
    follows links verifies nothing); the button verifies it (no login needed: the link is the proof)."""
    error_code = ""
    address = ""
    try:
        _user_id, address = services.email_token_read(token=token)
        if request.method == "POST":
            user = services.email_verify(token=token)
            messages.success(request, _("Your e-mail address %(email)s is verified.") % {"email": user.email})
            return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")
    except AccountError as exc:
        error_code = exc.code
    status = {"": 200, "email_taken": 409}.get(error_code, 400)
    return render(request, "accounts/email_verify.html", {
        "address": address, "error_code": error_code, "error": VERIFY_ERRORS.get(error_code, "")}, status=status)


# ----- account deletion ----------------------------------------------------------------

@login_required
def delete_account(request):
    """Delete (anonymise) the account, confirmed with the password; refused while the player holds a
    seat at an open or running table or an entry in a tournament not over (they are listed)."""
    user = request.user
    form = DeleteAccountForm(request.POST or None)
    refused: AccountError | None = None
    if request.method == "POST" and form.is_valid():
        try:
            services.user_delete(user=user, password=form.cleaned_data["password"], address=client_address(request))
        except AccountError as exc:
            refused = exc
            if exc.code in ("wrong_password", "login_throttled"):
                form.add_error("password", password_error(exc))
        else:
            logout(request)
            messages.success(request, _("Your account was deleted."))
            return redirect("accounts:login")
    response = render(request, "accounts/delete.html", {
        "form": form, "blockers": selectors.deletion_blockers(user=user),
        "error_code": refused.code if refused else ""}, status=http_status(refused) if refused else 200)
    return _throttled(response, refused.retry_after) if refused and http_status(refused) == 429 else response
