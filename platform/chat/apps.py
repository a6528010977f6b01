from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = _("Table chat")

    def ready(self) -> None:
        from chat import socket
        from chat.models import Channel
        from live import extensions

        # The table socket's chat (live.extensions): client frames, the layer's messages, and the players'
        # chat reaching late spectators in step with the play it belongs to.
        extensions.CLIENT_FRAMES["chat"] = socket.handle
        extensions.LAYER_MESSAGES["table.chat"] = socket.forward
        extensions.FOLLOWS_PLAY["table.chat"] = lambda message: message.get("channel") == Channel.PLAYERS
