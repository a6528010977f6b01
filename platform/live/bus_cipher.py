"""The channel layer's messages, sealed with AES-GCM instead of channels_redis' Fernet.

A table message carries every seat's hidden hand and pub/sub is server-wide in Redis, so every message is
encrypted and authenticated with a key only this deployment's processes hold (``CHANNEL_LAYER_KEYS``).
Fernet (AES-CBC, an HMAC and base64, driven from Python) cost 25 µs to seal and 42 µs to open one
4-seat table message, and every ASGI process opens every move's message: about a tenth of an ASGI
process's CPU per move (`bench/bus_crypto.py`, docs/benchmarks.md). One AES-GCM call costs 1–2 µs.
(AES-GCM-SIV would forgive a repeated nonce but costs 11 µs a call in OpenSSL.)

With random 96-bit nonces one AES-GCM key is safe for about 2^32 messages, which a busy deployment
would reach in weeks. So each serializer seals under a subkey of its own: HMAC-SHA256(key, salt) for a
random 16-byte salt, renewed every 2^24 messages, and the salt travels in the header. A sealed message
is ``VERSION | key id (4) | salt (16) | nonce (12) | ciphertext and tag`` over the msgpack bytes. The
first configured key seals; every one opens (prepend a new key to rotate, as with Fernet).

Registered with channels_redis' public serializer registry as ``msgpack-sealed``; the settings choose it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

import msgpack
from channels_redis.serializers import registry
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

FORMAT = "msgpack-sealed"
VERSION = b"\x01"
KEY_ID_BYTES = 4
SALT_BYTES = 16
NONCE_BYTES = 12
TAG_BYTES = 16
SUBKEY_END = len(VERSION) + KEY_ID_BYTES + SALT_BYTES
HEADER_BYTES = SUBKEY_END + NONCE_BYTES
MESSAGES_PER_SUBKEY = 1 << 24  # random nonces: a collision chance of about 2^-49 per subkey
OPENED_SUBKEYS_KEPT = 1024  # one per sealing process (and renewal) seen lately


class UnreadableMessage(ValueError):
    """Not sealed by a key of this deployment, or altered on the way."""


def _key_bytes(key: str | bytes) -> bytes:
    """The master key of a configured key: its SHA-256, as channels_redis derives a Fernet key."""
    return hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()


def _subkey(master: bytes, salt: bytes) -> AESGCM:
    return AESGCM(hmac.digest(master, salt, "sha256"))


class SealedMsgPackSerializer:
    """msgpack, then sealed with the deployment's keys; with no keys, plain msgpack (tests, a one-process
    development server). Same constructor as channels_redis' serializers."""

    def __init__(self, symmetric_encryption_keys: list[str | bytes] | None = None,
                 random_prefix_length: int = 0, expiry: int | None = None) -> None:
        if isinstance(symmetric_encryption_keys, (str, bytes)):
            raise ValueError("symmetric_encryption_keys must be a list of possible keys")
        if random_prefix_length:
            raise ValueError("the sealed serializer takes no random prefix (the nonce is random)")
        masters = [_key_bytes(k) for k in symmetric_encryption_keys or []]
        self.masters = {hashlib.sha256(m).digest()[:KEY_ID_BYTES]: m for m in masters}
        self.sealing_master = masters[0] if masters else None
        self.opened: dict[bytes, AESGCM] = {}
        # (header, cipher) as one value: the broadcaster thread and the event loop both seal, and a
        # message must never go out under one subkey's header and another's cipher.
        self.subkey: tuple[bytes, AESGCM] | None = None
        self.sealed_count = 0

    def _new_subkey(self) -> tuple[bytes, AESGCM]:
        master = self.sealing_master
        salt = os.urandom(SALT_BYTES)
        self.subkey = (VERSION + hashlib.sha256(master).digest()[:KEY_ID_BYTES] + salt, _subkey(master, salt))
        self.sealed_count = 0
        return self.subkey

    def serialize(self, message: dict[str, Any]) -> bytes:
        data = msgpack.packb(message)
        if self.sealing_master is None:
            return data
        subkey = self.subkey
        if subkey is None or self.sealed_count >= MESSAGES_PER_SUBKEY:
            subkey = self._new_subkey()
        self.sealed_count += 1
        header, cipher = subkey
        nonce = os.urandom(NONCE_BYTES)
        return header + nonce + cipher.encrypt(nonce, data, None)

    def deserialize(self, data: bytes) -> dict[str, Any]:
        if self.sealing_master is not None:
            data = self._open(data)
        return msgpack.unpackb(data)

    def _open(self, data: bytes) -> bytes:
        if data[:1] != VERSION or len(data) < HEADER_BYTES + TAG_BYTES:
            raise UnreadableMessage("a channel-layer message not sealed by this deployment")
        header = data[:SUBKEY_END]
        cipher = self.opened.get(header)
        if cipher is None:
            master = self.masters.get(header[1:1 + KEY_ID_BYTES])
            if master is None:
                raise UnreadableMessage("a channel-layer message sealed with a key this deployment does not hold")
            if len(self.opened) >= OPENED_SUBKEYS_KEPT:
                self.opened.clear()
            cipher = _subkey(master, header[1 + KEY_ID_BYTES:])
        try:
            plain = cipher.decrypt(data[SUBKEY_END:HEADER_BYTES], data[HEADER_BYTES:], None)
        except InvalidTag:
            raise UnreadableMessage("a channel-layer message that fails authentication") from None
        self.opened[header] = cipher  # kept only once a message under it proved genuine
        return plain


registry.register_serializer(FORMAT, SealedMsgPackSerializer)
