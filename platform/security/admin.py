"""TOTP devices in the admin: listed, viewed and deleted (a lost device), never added or edited there.

A device is enrolled only by its owner, on the enrolment page (``views.enrol``), so no staff member
ever sees or sets another's secret (``OTP_ADMIN_HIDE_SENSITIVE_DATA`` also hides the key and QR code).
"""

from django.contrib import admin
from django_otp.plugins.otp_totp.admin import TOTPDeviceAdmin  # registers it; replaced below
from django_otp.plugins.otp_totp.models import TOTPDevice


class StaffTOTPDeviceAdmin(TOTPDeviceAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


if admin.site.is_registered(TOTPDevice):
    admin.site.unregister(TOTPDevice)
admin.site.register(TOTPDevice, StaffTOTPDeviceAdmin)
