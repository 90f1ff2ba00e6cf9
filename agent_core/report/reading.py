"""A slow model reading its prompt (``turn_progress``), in words: the page's step and the CLI's line.

Each says it with its own keys, named by a prefix (``turn_`` on the page, ``cli_`` in the terminal):
``{prefix}reading`` (no rate yet), ``{prefix}reading_part`` / ``{prefix}reading_about`` (the server's
count / the app's estimate), ``{prefix}reading_eta`` and ``{prefix}so_far`` (each carries its own
separator), ``{prefix}writing_unseen`` (past the first token, writing a tool call).
"""

from __future__ import annotations

from agent_core import events as ev
from agent_core.words import t


def prompt_progress(event: ev.TurnProgress, lang: str, *, prefix: str) -> str:
    """``reading the brief: 1,200 / 4,800 tokens (25%) · about 90 s left at 40 tokens/s``; a heartbeat's
    (the app's estimate after 10 s of silence) says so, and the time so far."""
    if event.writing:
        return t(f"{prefix}writing_unseen", lang, elapsed=event.elapsed_s or 0.0)
    if event.tokens_per_s is None:
        said = t(f"{prefix}reading", lang, total=event.total)
    else:
        key = f"{prefix}reading_about" if event.estimated else f"{prefix}reading_part"
        said = t(key, lang, done=event.done, total=event.total, share=event.done / max(event.total, 1))
    if event.tokens_per_s and event.done < event.total:
        eta = (event.total - event.done) / event.tokens_per_s
        said += t(f"{prefix}reading_eta", lang, eta=eta, rate=event.tokens_per_s)
    if event.elapsed_s is not None:
        said += t(f"{prefix}so_far", lang, elapsed=event.elapsed_s)
    return said
