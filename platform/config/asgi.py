"""ASGI entry point: HTTP through Django, websockets through Channels.

Run with ``uvicorn config.asgi:application`` from the checkout with ``platform`` on the
path (``manage.py runplatform`` does this).
"""

from __future__ import annotations

import gc
import os
import sys

from django.core.asgi import get_asgi_application

from config import process

process.asgi_server = True  # before the settings load: this process gets a bounded connection pool
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi = get_asgi_application()  # set up Django before importing consumers

from channels.routing import ProtocolTypeRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config.routing import websocket_application  # noqa: E402

http_application = django_asgi
if settings.SERVE_STATIC:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    http_application = ASGIStaticFilesHandler(django_asgi)

# The move pool's threads wait on the database a few times per move; each time, getting the GIL back
# from a busy event loop took up to the default 5 ms switch interval, which made a move wait tens of
# milliseconds for a few hundred microseconds of work.
sys.setswitchinterval(float(os.environ.get("GIL_SWITCH_INTERVAL_S", "0.0005")))

application = ProtocolTypeRouter({"http": http_application, "websocket": websocket_application})

# The garbage collector: what is loaded by now lives as long as the process, so it is frozen out of
# every later collection, and the young generation is collected every 10,000 allocations instead of
# 700. Measured over a 30 s run at 200 tables (two processes): collections per process 280 -> 14,
# collection time ~800 -> ~100 ms, longest pause 100-135 ms (full collections) -> 20-30 ms.
gc.freeze()
gc.set_threshold(*(int(x) for x in os.environ.get("GC_THRESHOLDS", "10000,20,100").split(",")))
