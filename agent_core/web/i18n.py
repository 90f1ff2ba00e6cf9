"""The page's interface-language selector: its choices and what a choice means.

What the page says lives in :mod:`agent_core.words` (``page_en.py`` / ``page_zh.py``); reports follow the
core's report-language setting; repository content is never translated.
"""

from __future__ import annotations

import types
from collections.abc import Mapping

from agent_core.words import Language

UI_LANGUAGES: Mapping[str, Language] = types.MappingProxyType({"English": "en", "中文": "zh"})


def ui_language(choice: str | None) -> Language:
    """A selector's value ("English", "中文", "en", "zh") as a language code; English otherwise."""
    if choice in ("en", "zh"):
        return choice  # type: ignore[return-value]
    return UI_LANGUAGES.get(choice or "", "en")
