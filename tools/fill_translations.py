#!/usr/bin/env python3
"""Fill empty msgstr entries of locale/*/django.po from a Python table of translations.

usage: fill_translations.py TABLE.py   (TABLE defines T = {msgid: (id, ms, tr)})
A developer aid for adding strings in bulk; the .po files remain the source of truth.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("id", "ms", "tr")


def esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def main(table_path: str) -> int:
    scope: dict = {}
    exec(Path(table_path).read_text(encoding="utf-8"), scope)
    table = scope["T"]
    missing = 0
    for k, lang in enumerate(LANGS):
        po = ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"
        text = po.read_text(encoding="utf-8")
        text = text.replace("#, fuzzy\n", "", 1) if text.startswith("# SOME") else text
        text = re.sub(r'"Content-Type: text/plain; charset=CHARSET\\n"', '"Content-Type: text/plain; charset=UTF-8\\n"', text)

        def fill(m: re.Match, k: int = k) -> str:
            nonlocal missing
            raw = m.group(1)
            msgid = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', raw)).encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
            if msgid in table:
                return f'msgid {raw}msgstr "{esc(table[msgid][k])}"\n'
            missing += 1
            return m.group(0)

        text = re.sub(r'msgid ((?:"(?:[^"\\]|\\.)*"\n)+)msgstr ""\n(?!")', fill, text)
        po.write_text(text, encoding="utf-8")
    print(f"untranslated entries left: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
