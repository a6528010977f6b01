"""REST errors always have the shape {"code": ..., "message": ...}."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ServiceError


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
    """Raise from a view with a stable code: ``raise ApiError("seat_taken", "...", status=409)``."""

    def __init__(self, code: str, message: str, *, status: int = 400, details: dict | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status
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
        exc = ApiError(exc.code, exc.message, status=exc.status, details=exc.details)
    elif isinstance(exc, Http404):
        exc = ApiError("not_found", "There is nothing at this address.", status=404)
    elif isinstance(exc, PermissionDenied):
        exc = ApiError("permission_denied", "You may not do that.", status=403)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException):
        body = {**getattr(exc, "details", {}), "code": _code_for(exc), "message": _message_for(exc)}
        if isinstance(exc.detail, dict):
            body["fields"] = exc.detail
        return Response(body, status=response.status_code, headers=dict(response.headers))
    return response
