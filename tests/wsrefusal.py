"""How tests read a refused websocket's close code (core.websocket.refuse: accepted, then closed)."""

from __future__ import annotations


async def refusal_code(comm, connected: bool, code: int | None = None) -> int | None:
    """The close code the socket was refused with; None if it was accepted and not closed at once."""
    if not connected:  # refused at the handshake (a wrong Origin): the server answers HTTP 403
        return code
    output = await comm.receive_output(timeout=10)
    return output.get("code") if output["type"] == "websocket.close" else None
