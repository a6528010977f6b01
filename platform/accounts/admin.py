from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import services
from accounts.forms import ThrottledAdminAuthenticationForm
from accounts.models import User
from audit.mixins import AuditedAdmin  # staff/active/superuser changes and actions are audited

# The admin's own login is throttled as the site's is (same counters: issue 23 #2).
admin.site.login_form = ThrottledAdminAuthenticationForm


@admin.register(User)
class UserAdmin(AuditedAdmin, BaseUserAdmin):
    list_display = ("username", "display_name", "is_bot", "bot_style", "is_staff", "is_active", "date_joined",
                    "signup_address", "accounts_from_address")
    list_filter = ("is_bot", "is_staff", "is_active")
    search_fields = (*BaseUserAdmin.search_fields, "signup_address")
    readonly_fields = ("signup_address", "pending_email", "deleted_at")
    actions = ["clear_login_throttle"]
    fieldsets = (*BaseUserAdmin.fieldsets, ("Player", {"fields": (
        "display_name", "preferred_language", "is_bot", "bot_style", "bot_description", "signup_address",
        # staff who set ``email`` by hand set or clear its verification here too (docs/accounts.md)
        "email_verified_at", "pending_email", "deleted_at")}))

    def get_queryset(self, request):
        same_address = (User.objects.filter(signup_address=OuterRef("signup_address")).order_by()
                        .values("signup_address").annotate(n=Count("pk")).values("n"))
        return super().get_queryset(request).annotate(
            from_address=Subquery(same_address, output_field=IntegerField()))

    @admin.display(description=_("accounts from this address"), ordering="from_address")
    def accounts_from_address(self, user: User):
        """How many accounts signed up from this one's address, linked to the list of them."""
        if user.signup_address is None:
            return "-"
        url = reverse("admin:accounts_user_changelist") + f"?signup_address={user.signup_address}"
        return format_html('<a href="{}">{}</a>', url, user.from_address)

    @admin.action(description=_("Clear login throttling for the selected users"))
    def clear_login_throttle(self, request, queryset):
        names = list(queryset.values_list("username", flat=True))
        for username in names:
            services.login_throttle_clear(username=username)
        self.message_user(request, ngettext("Login throttling cleared for %(n)d user.",
                                            "Login throttling cleared for %(n)d users.", len(names)) % {"n": len(names)},
                          messages.SUCCESS)
