"""The staff second factor's two pages (``security.staff_otp``), served by the admin site
(``admin_site.StaffAdminSite.get_urls``: signed-in, active staff only)."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import django_otp
from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.http import client_address
from core.api import http_status
from security import staff_otp
from security.staff_otp import AdminAccess, SecondFactorError

_CODE = re.compile(r"[0-9]{6,8}")


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code from your authenticator app"), max_length=16, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True,
                                      "size": 10}))

    def clean_code(self) -> str:
        # Apps show the code as "123 456": spaces are fine; anything else is not a code (and not a guess).
        code = "".join(self.cleaned_data["code"].split())
        if not _CODE.fullmatch(code):
            raise ValidationError(gettext_lazy("Enter the 6-digit code your authenticator app shows."),
                                  code="otp_malformed")
        return code


def _next_url(request, site) -> str:
    """Where to go once done: the ``next`` the admin passed along, if it is ours, else the admin's index."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return reverse("admin:index", current_app=site.name)


def _verified(request, device) -> None:
    """This session passed the second factor: a new session key (the session gained a privilege), then
    django-otp records the device in it."""
    request.session.cycle_key()
    django_otp.login(request, device)


def _render(request, site, template: str, context: dict, *, status: int = 200, retry_after: int = 0,
            error_code: str = ""):
    context = {**site.each_context(request), **context, "error_code": error_code}
    response = TemplateResponse(request, template, context, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def _step_url(site, name: str, next_url: str) -> str:
    return f"{reverse(name, current_app=site.name)}?{urlencode({'next': next_url})}"


def _refused(form: CodeForm, exc: SecondFactorError) -> dict:
    """The refusal on the form, and how the page answers: 429 with Retry-After for a throttle, else 200
    with the error, as the site's login page does."""
    form.add_error("code", ValidationError(exc.message, code=exc.code))
    return {"error_code": exc.code, "status": 429 if http_status(exc) == 429 else 200, "retry_after": exc.retry_after}


def enrol(request, *, site):
    """Turn two-factor on: the QR code and secret of a new device, confirmed with a code from the app."""
    user = request.user
    next_url = _next_url(request, site)
    access = staff_otp.admin_access(user=user)
    if access is AdminAccess.CODE_NEEDED:  # a device already: prove it before anything else
        return HttpResponseRedirect(_step_url(site, "admin:two_factor_verify", request.path))
    title = _("Two-factor authentication")
    if access is AdminAccess.VERIFIED:
        return _render(request, site, "staff_otp/enrol.html",
                       {"title": title, "device": staff_otp.totp_confirmed_device(user=user), "enrolled": True})
    form = CodeForm(request.POST or None)
    refusal: dict = {}
    if request.method == "POST" and form.is_valid():
        try:
            device = staff_otp.totp_enrolment_confirm(user=user, token=form.cleaned_data["code"])
        except SecondFactorError as exc:
            if exc.code == "otp_already_enrolled":  # confirmed meanwhile (another tab): the code step next
                return HttpResponseRedirect(request.get_full_path())
            refusal = _refused(form, exc)
        else:
            _verified(request, device)
            messages.success(request, _("Two-factor authentication is on. The admin will ask for a code "
                                        "from your app after your password."))
            return HttpResponseRedirect(next_url)
    device = staff_otp.totp_enrolment_start(user=user)
    return _render(request, site, "staff_otp/enrol.html", {
        "title": title, "form": form, "next": next_url, "enrolled": False,
        "required": access is AdminAccess.ENROLMENT_NEEDED,
        "qr_data_url": staff_otp.totp_qr_data_url(device=device),
        "secret": staff_otp.totp_secret_text(device=device),
    }, **refusal)


def verify(request, *, site):
    """The admin's second step: a code from the staff member's app (throttled like the password)."""
    user = request.user
    next_url = _next_url(request, site)
    access = staff_otp.admin_access(user=user)
    if access is AdminAccess.ENROLMENT_NEEDED:
        return HttpResponseRedirect(_step_url(site, "admin:two_factor", next_url))
    if access is not AdminAccess.CODE_NEEDED:  # verified already, or nothing to verify
        return HttpResponseRedirect(next_url)
    form = CodeForm(request.POST or None)
    refusal: dict = {}
    if request.method == "POST" and form.is_valid():
        try:
            device = staff_otp.totp_verify(user=user, token=form.cleaned_data["code"],
                                           address=client_address(request))
        except SecondFactorError as exc:
            refusal = _refused(form, exc)
        else:
            _verified(request, device)
            return HttpResponseRedirect(next_url)
    return _render(request, site, "staff_otp/verify.html",
                   {"title": _("Two-factor authentication"), "form": form, "next": next_url}, **refusal)
