from django.http import JsonResponse
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
