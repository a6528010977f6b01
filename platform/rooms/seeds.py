"""Table seeds at rest: sealed (Fernet: AES-CBC with an HMAC) with keys held in the settings, never in the
database (``SEED_KEYS``; derived from ``SECRET_KEY`` unless set). A running table's seed decides every
later deal, so the table row keeps only the sealed form and its state carries no seed; the move path
opens it for the engine, and the reveal at the end publishes it (issue 23 #9)."""

from __future__ import annotations

from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


@lru_cache(maxsize=4)
def _sealer(keys: tuple[str, ...]) -> MultiFernet:
    import base64
    import hashlib

    return MultiFernet([Fernet(base64.urlsafe_b64encode(hashlib.sha256(k.encode()).digest())) for k in keys])


def _keys() -> tuple[str, ...]:
    return tuple(settings.SEED_KEYS)


def playable(table) -> dict:
    """The state the engine plays the next step from: the row's state with the table's seed opened in it.
    Only the move path (and a test that tries a move) needs it; never send or store it."""
    return {**table.state, "seed": table.seed.hex()}


def seal(seed: bytes) -> str:
    """The sealed form of a 32-byte seed (text, for the table row)."""
    return _sealer(_keys()).encrypt(bytes(seed)).decode("ascii")


def unseal(sealed: str) -> bytes:
    """The seed inside ``sealed``; ``ValueError`` if no configured key opens it (wrong keys, or tampering)."""
    return _opened(sealed, _keys())


# The move path opens the running table's seed on every move; opening (Fernet: base64, an HMAC, AES-CBC)
# cost ~0.07 ms of the ASGI process's ~2.5 ms per move. A seed opened once is kept for the table's next
# moves (about a process's running tables; a failure to open is not kept).
@lru_cache(maxsize=4096)
def _opened(sealed: str, keys: tuple[str, ...]) -> bytes:
    try:
        return _sealer(keys).decrypt(sealed.encode("ascii"))
    except (InvalidToken, UnicodeEncodeError) as exc:
        raise ValueError("this table's seed cannot be opened with the configured SEED_KEYS") from exc
