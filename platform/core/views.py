from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core import health


@never_cache
@require_GET
def healthz(request):
    """Database, Redis, Celery workers and the timer. Answered from a report at most
    ``health.REPORT_TTL_S`` old (a load balancer polling it must not cost a worker ping per call);
    ``?deep=1`` checks afresh and waits longer for the workers (for operators)."""
    body = health.report(deep=request.GET.get("deep") == "1")
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)


def not_found(request, exception=None):
    """404 without Django's CSRF-processing default view: a malformed body must never turn a 404 into a 500."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "message": "There is nothing at this address."}, status=404)
    return render(request, "404.html", status=404)
