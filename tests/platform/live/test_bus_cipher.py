"""The channel layer's sealed serializer: what one key seals only this deployment's keys open, altered
bytes are refused, and keys rotate like Fernet's (the first seals, every one opens)."""

from __future__ import annotations

import pytest
from channels_redis.serializers import registry

from live import bus_cipher
from live.bus_cipher import FORMAT, HEADER_BYTES, SUBKEY_END, SealedMsgPackSerializer, UnreadableMessage

MESSAGE = {"type": "table.state", "table": 7, "frames": {"12": '{"hand": ["SECRET-HAND-MARKER"]}'}, "n": b"\x00"}


def test_a_sealed_message_opens_with_the_same_key_and_hides_its_content():
    serializer = SealedMsgPackSerializer(["k1"])
    sealed = serializer.serialize(MESSAGE)
    assert b"SECRET-HAND-MARKER" not in sealed and b"frames" not in sealed
    assert serializer.deserialize(sealed) == MESSAGE


def test_the_same_message_seals_differently_each_time():
    serializer = SealedMsgPackSerializer(["k1"])
    assert serializer.serialize(MESSAGE) != serializer.serialize(MESSAGE)


def test_another_deployments_key_cannot_open_it():
    sealed = SealedMsgPackSerializer(["theirs"]).serialize(MESSAGE)
    with pytest.raises(UnreadableMessage):
        SealedMsgPackSerializer(["ours"]).deserialize(sealed)


@pytest.mark.parametrize("position", [0, 1, 10, HEADER_BYTES - 1, HEADER_BYTES, -1])  # version, key id, salt, nonce, text, tag
def test_an_altered_byte_anywhere_is_refused(position):
    serializer = SealedMsgPackSerializer(["k1"])
    sealed = bytearray(serializer.serialize(MESSAGE))
    sealed[position] ^= 0x01
    with pytest.raises(UnreadableMessage):
        serializer.deserialize(bytes(sealed))


@pytest.mark.parametrize("data", [b"", b"\x01", b"\x01abcd", b"\x82\xa4type"])
def test_short_or_plain_bytes_are_refused_when_keys_are_set(data):
    with pytest.raises(UnreadableMessage):
        SealedMsgPackSerializer(["k1"]).deserialize(data)


def test_each_process_seals_under_its_own_subkey_and_every_process_opens_it():
    one, other = SealedMsgPackSerializer(["k1"]), SealedMsgPackSerializer(["k1"])
    a, b = one.serialize(MESSAGE), other.serialize(MESSAGE)
    assert a[:SUBKEY_END] != b[:SUBKEY_END]  # a random salt each
    assert one.deserialize(b) == other.deserialize(a) == MESSAGE


def test_the_subkey_is_renewed_before_its_nonces_could_repeat(monkeypatch):
    monkeypatch.setattr(bus_cipher, "MESSAGES_PER_SUBKEY", 3)
    serializer, reader = SealedMsgPackSerializer(["k1"]), SealedMsgPackSerializer(["k1"])
    headers = [serializer.serialize(MESSAGE) for _ in range(7)]
    assert len({h[:SUBKEY_END] for h in headers}) == 3  # messages 1-3, 4-6, 7
    assert all(reader.deserialize(h) == MESSAGE for h in headers)


def test_forged_subkeys_do_not_fill_the_readers_memory():
    serializer, reader = SealedMsgPackSerializer(["k1"]), SealedMsgPackSerializer(["k1"])
    sealed = bytearray(serializer.serialize(MESSAGE))
    salt_byte = sealed[10]
    for n in range(1, 51):
        sealed[10] = salt_byte ^ n  # never the original: 50 salts this deployment never used
        with pytest.raises(UnreadableMessage):
            reader.deserialize(bytes(sealed))
    assert reader.opened == {}


def test_keys_rotate_the_first_seals_and_every_one_opens():
    old = SealedMsgPackSerializer(["old"]).serialize(MESSAGE)
    rotated = SealedMsgPackSerializer(["new", "old"])
    assert rotated.deserialize(old) == MESSAGE
    fresh = rotated.serialize(MESSAGE)
    assert SealedMsgPackSerializer(["new"]).deserialize(fresh) == MESSAGE
    with pytest.raises(UnreadableMessage):
        SealedMsgPackSerializer(["old"]).deserialize(fresh)


def test_without_keys_it_is_plain_msgpack():
    plain = SealedMsgPackSerializer().serialize(MESSAGE)
    assert registry.get_serializer("msgpack").deserialize(plain) == MESSAGE


def test_the_layer_is_configured_with_it(settings):
    from channels.layers import get_channel_layer

    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["serializer_format"] == FORMAT
    assert isinstance(registry.get_serializer(FORMAT, symmetric_encryption_keys=["k"]), SealedMsgPackSerializer)
    layer = get_channel_layer()
    assert layer.deserialize(layer.serialize(MESSAGE)) == MESSAGE
    assert layer.serialize(MESSAGE)[:1] == b"\x01"


def test_a_single_key_string_is_refused_like_channels_redis_does():
    with pytest.raises(ValueError):
        SealedMsgPackSerializer("k1")
