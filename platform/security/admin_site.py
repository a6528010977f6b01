"""The admin site: Django's, plus the staff second factor (``security.staff_otp``).

- ``has_permission`` also asks for the second factor: a session a code has verified, or (while
  ``STAFF_REQUIRE_TOTP`` is off) a staff member with no device at all;
- the login page sends a signed-in staff member who lacks only that to the code step, or to enrolment;
- the index shows a banner recommending enrolment to staff without a device;
- the two pages of the second factor live under the admin's path (``admin:two_factor``,
  ``admin:two_factor_verify``), outside ``has_permission`` (they are how one gets it).

The password step is unchanged: ``accounts.admin`` gives this site its throttled login form.
"""

from __future__ import annotations

from functools import partial
from urllib.parse import urlencode

from django.contrib.admin import AdminSite
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache

from security import staff_otp, views
from security.staff_otp import AdminAccess

# The step a staff member the admin refuses only for want of the second factor is sent to.
_STEPS = {AdminAccess.CODE_NEEDED: "admin:two_factor_verify", AdminAccess.ENROLMENT_NEEDED: "admin:two_factor"}


def admin_access(request) -> AdminAccess:
    """The user's standing, worked out once per request (the admin asks has_permission several times)."""
    access = getattr(request, "_staff_admin_access", None)
    if access is None:
        access = request._staff_admin_access = staff_otp.admin_access(user=request.user)
    return access


class StaffAdminSite(AdminSite):
    index_template = "staff_otp/admin_index.html"

    def has_permission(self, request) -> bool:
        return super().has_permission(request) and staff_otp.admin_allows(access=admin_access(request))

    @method_decorator(never_cache)
    @login_not_required
    def login(self, request, extra_context=None):
        user = request.user
        if request.method == "GET" and user.is_active and user.is_staff:
            step = _STEPS.get(admin_access(request))
            if step is not None:
                target = request.GET.get("next") or reverse("admin:index", current_app=self.name)
                return HttpResponseRedirect(f"{reverse(step, current_app=self.name)}?{urlencode({'next': target})}")
        return super().login(request, extra_context)

    def index(self, request, extra_context=None):
        context = {"two_factor_recommended": admin_access(request) is AdminAccess.NOT_ENROLLED}
        return super().index(request, {**context, **(extra_context or {})})

    def get_urls(self):
        def staff_view(view):
            # Signed-in, active staff only (others go to the admin's login); never cached.
            return never_cache(staff_member_required(partial(view, site=self), login_url="admin:login"))

        return [
            path("two-factor/", staff_view(views.enrol), name="two_factor"),
            path("two-factor/verify/", staff_view(views.verify), name="two_factor_verify"),
            *super().get_urls(),
        ]
