from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core import health


@never_cache
@require_GET
def healthz(request):
    checks = {
        "database": health.database_status(),
        "redis": health.redis_status(),
        "celery": health.celery_status(),
    }
    ok = all(result for result, _ in checks.values())
    body = {"status": "ok" if ok else "degraded"}
    body.update({name: {"ok": result, "detail": detail} for name, (result, detail) in checks.items()})
    return JsonResponse(body, status=200 if ok else 503)


def not_found(request, exception=None):
    """404 without Django's CSRF-processing default view: a malformed body must never turn a 404 into a 500."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "message": "There is nothing at this address."}, status=404)
    return render(request, "404.html", status=404)
