"""ASGI entry point: HTTP through Django, websockets through Channels.

Run with ``uvicorn config.asgi:application`` from the checkout with ``platform`` on the
path (``manage.py runplatform`` does this).
"""

from __future__ import annotations

import os
import sys

from django.core.asgi import get_asgi_application

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
