#!/usr/bin/env python3
"""Compile every locale/*/LC_MESSAGES/*.po into .mo with the standard library only.

Django's compilemessages needs GNU gettext, which a fresh machine may lack; the two
README commands run this instead. Follows the GNU .mo format (as CPython's msgfmt.py).
"""

from __future__ import annotations

import array
import ast
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_po(text: str) -> dict[bytes, bytes]:
    messages: dict[bytes, bytes] = {}
    section = None
    ctxt = msgid = msgid_plural = b""
    msgstr: dict[int, bytes] = {}
    fuzzy = False

    def flush() -> None:
        nonlocal ctxt, msgid, msgid_plural, msgstr, fuzzy
        if section is not None and (msgid or msgstr) and not fuzzy:
            key = msgid if not ctxt else ctxt + b"\x04" + msgid
            if msgid_plural:
                key += b"\0" + msgid_plural
                value = b"\0".join(msgstr[i] for i in sorted(msgstr))
            else:
                value = msgstr.get(0, b"")
            if value or not msgid:  # untranslated entries fall back to the source text
                messages[key] = value
        ctxt = msgid = msgid_plural = b""
        msgstr = {}
        fuzzy = False

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#,") and "fuzzy" in line:
            flush()
            section = None
            fuzzy = True
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgctxt"):
            if section in ("msgstr",):
                keep_fuzzy = fuzzy
                flush()
                fuzzy = keep_fuzzy
            section, idx = "msgctxt", 0
            line = line[7:]
        elif line.startswith("msgid_plural"):
            section = "msgid_plural"
            line = line[12:]
        elif line.startswith("msgid"):
            if section == "msgstr":
                keep_fuzzy = fuzzy
                flush()
                fuzzy = keep_fuzzy
            section = "msgid"
            line = line[5:]
        elif line.startswith("msgstr["):
            section = "msgstr"
            idx = int(line[7:line.index("]")])
            line = line[line.index("]") + 1:]
            msgstr.setdefault(idx, b"")
        elif line.startswith("msgstr"):
            section, idx = "msgstr", 0
            line = line[6:]
            msgstr.setdefault(0, b"")
        value = ast.literal_eval(line.strip()).encode("utf-8") if line.strip() else b""
        if section == "msgctxt":
            ctxt += value
        elif section == "msgid":
            msgid += value
        elif section == "msgid_plural":
            msgid_plural += value
        elif section == "msgstr":
            msgstr[idx] = msgstr.get(idx, b"") + value
    flush()
    return messages


def build_mo(messages: dict[bytes, bytes]) -> bytes:
    keys = sorted(messages)
    ids = strs = b""
    offsets = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(messages[k])))
        ids += k + b"\0"
        strs += messages[k] + b"\0"
    keystart = 7 * 4 + 16 * len(keys)
    valuestart = keystart + len(ids)
    koffsets: list[int] = []
    voffsets: list[int] = []
    for o1, l1, o2, l2 in offsets:
        koffsets += [l1, o1 + keystart]
        voffsets += [l2, o2 + valuestart]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + len(keys) * 8, 0, 0)
    return header + array.array("i", koffsets).tobytes() + array.array("i", voffsets).tobytes() + ids + strs


def main() -> int:
    count = 0
    for po in sorted((ROOT / "locale").glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.write_bytes(build_mo(parse_po(po.read_text(encoding="utf-8"))))
        count += 1
    print(f"compiled {count} message catalogue(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
