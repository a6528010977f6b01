"""REST errors always have the shape {"code": ..., "message": ...}."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ServiceError

# The HTTP status of every refusal that is not a plain bad request (400): the one mapping from a
# service's code to HTTP, read by the REST handler below and by every HTML view that answers a refusal
# (``http_status``). Services raise codes only (``core.errors.ServiceError``); sockets carry the code.
STATUS_BY_CODE: dict[str, int] = {
    **dict.fromkeys(("not_authenticated", "not_logged_in"), 401),
    "insufficient_funds": 402,
    **dict.fromkeys((
        "account_inactive", "bots_cannot_join", "bots_cannot_queue", "chat_forbidden", "chat_muted",
        "invite_required", "not_a_player", "not_host", "not_seated", "not_staff", "permission_denied",
    ), 403),
    **dict.fromkeys((
        "chat_no_such_message", "chat_no_such_user", "no_such_arena", "no_such_game", "no_such_invite",
        "no_such_room", "no_such_table", "no_such_tournament", "not_found",
    ), 404),
    **dict.fromkeys((
        "account_busy", "already_joined", "already_playing", "already_queued", "already_registered",
        "already_seated", "already_started", "arena_closed", "bots_only", "currency_mismatch", "email_taken",
        "escrow_short", "host_stop_after_start", "in_another_arena", "key_reused", "no_bot_available",
        "no_entries_left", "no_recipients", "no_such_partner", "not_announced", "not_enough_players",
        "not_joined", "not_queued", "not_registered", "not_registering", "not_scheduled", "not_yet",
        "otp_already_enrolled", "otp_no_enrolment", "otp_not_enrolled", "registration_closed", "room_closed",
        "seat_taken", "stale_version", "table_ended", "table_full", "table_not_finished", "table_not_open",
        "table_not_running", "team_full", "tournament_full", "tournament_over", "username_taken",
    ), 409),
    **dict.fromkeys((
        "chat_rate_limited", "email_throttled", "login_throttled", "otp_throttled", "password_reset_throttled",
        "signup_throttled",
    ), 429),
    "pool_mismatch": 500,  # a tournament's escrow disagrees with its entries: ours to fix, never the player's
}


def http_status(exc: ServiceError) -> int:
    """The HTTP status of a service's refusal (400 unless ``STATUS_BY_CODE`` says otherwise)."""
    return STATUS_BY_CODE.get(exc.code, 400)


class ErrorSerializer(serializers.Serializer):
    """The body of every REST error (for the OpenAPI schema)."""

    code = serializers.CharField()
    message = serializers.CharField()


class StrictIntegerField(serializers.IntegerField):
    """A JSON number only: DRF's IntegerField also takes ``"1"`` and ``true``, which a client that sent
    them did not mean as numbers."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class ApiError(exceptions.APIException):
    """Raise from a view with a stable code: ``raise ApiError("no_such_room", "...")``; the status follows
    the code (``STATUS_BY_CODE``) unless given."""

    def __init__(self, code: str, message: str, *, status: int | None = None, details: dict | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status if status is not None else STATUS_BY_CODE.get(code, 400)
        self.error_code = code
        self.message = message
        self.details = dict(details or {})


def _code_for(exc: exceptions.APIException) -> str:
    if isinstance(exc, ApiError):
        return exc.error_code
    codes = exc.get_codes()
    if isinstance(codes, str):
        return codes
    return "invalid"


def _message_for(exc: exceptions.APIException) -> str:
    if isinstance(exc, ApiError):
        return exc.message
    detail = exc.detail
    if isinstance(detail, dict):
        parts = []
        for field, errors in detail.items():
            errs = errors if isinstance(errors, list) else [errors]
            parts.append(f"{field}: {' '.join(str(e) for e in errs)}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return " ".join(str(d) for d in detail)
    return str(detail)


def exception_handler(exc, context):
    # The one mapping from a service's refusal to HTTP: its code, message and status (views need no
    # try/except of their own). Django's own 404 and 403 (get_object_or_404, PermissionDenied) get
    # the same {code, message} body; the code matches the site's JSON 404 (core.views.not_found).
    if isinstance(exc, ServiceError):
        exc = ApiError(exc.code, exc.message, status=http_status(exc), details=exc.details)
    elif isinstance(exc, Http404):
        exc = ApiError("not_found", "There is nothing at this address.")
    elif isinstance(exc, PermissionDenied):
        exc = ApiError("permission_denied", "You may not do that.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException):
        body = {**getattr(exc, "details", {}), "code": _code_for(exc), "message": _message_for(exc)}
        if isinstance(exc.detail, dict):
            body["fields"] = exc.detail
        return Response(body, status=response.status_code, headers=dict(response.headers))
    return response
