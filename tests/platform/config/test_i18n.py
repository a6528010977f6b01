"""Every UI string is translated into Indonesian, Malay and Turkish (no empty or fuzzy entries)."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("compile_messages", ROOT / "tools" / "compile_messages.py")
compile_messages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compile_messages)


@pytest.mark.parametrize("language", ["id", "ms", "tr"])
def test_catalogue_is_complete(language):
    text = (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    blocks = text.split("\n\n")[1:]  # the first block is the header
    untranslated = [b for b in blocks if "msgid" in b and not b.strip().startswith("#~")
                    and re.fullmatch(r'msgstr(\[\d+\])? ""', b.strip().splitlines()[-1])]
    fuzzy = [b for b in blocks if "#, fuzzy" in b]
    assert not fuzzy, fuzzy[:3]
    assert not untranslated, untranslated[:3]
    compiled = compile_messages.parse_po(text)
    assert len(compiled) > 300
