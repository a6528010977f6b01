from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import selectors, services
from accounts.errors import AccountError
from accounts.forms import ProfileForm, SignUpForm, ThrottledAuthenticationForm
from accounts.http import client_address
from accounts.models import User


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
    return render(request, "accounts/profile.html", {"form": form, **selectors.profile_context(user=user)})


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
