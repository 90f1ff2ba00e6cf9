"""What the app says about a model turn it cut or stopped, in the report's language (beside the report,
in its data gaps: never inside the model's text); and the hint that tells a model a brief is not all
there is. The sentences are in :mod:`agent_core.words` (``turns_en`` / ``turns_zh``)."""

from __future__ import annotations

import json

from agent_core.agent.brief import Brief
from agent_core.agent.pace import BriefSize
from agent_core.tools.registry import READ_FILE
from agent_core.words import Language, t


def cut_reason(line: int, language: Language) -> str:
    """ "the model started repeating itself at line 14; the rest was cut"."""
    return t("turn_cut", language, line=line)


def partial_reason(language: Language) -> str:
    """Why a report is partial, for its data gaps."""
    return t("turn_partial", language)


def completed_note(language: Language) -> str:
    """The line before the sections the app added to a partial report."""
    return t("turn_completed", language)


def beyond_brief(language: Language, repo: str | None = None) -> str:
    """Said after the brief when the user asked a question: small models otherwise answer from the brief
    (or from memory) and never look further. With ``repo`` ("owner/name"; for a small local model) it
    ends with the call to write, in the JSON small models write anyway."""
    hint = t("to_model_beyond_brief", language)
    if repo is None:
        return hint
    owner, name = repo.split("/", 1)
    path = t("to_model_call_path", language)
    call = json.dumps(
        {"name": READ_FILE, "arguments": {"owner": owner, "repo": name, "path": path}}, ensure_ascii=False
    )
    return f"{hint}\n{t('to_model_call_example', language, call=call)}"


def brief_cut(size: BriefSize, brief: Brief, *, first_request: int, language: Language) -> str:
    """ "Brief cut to 1,650 tokens (the whole first request about 2,400) to start within a minute at 40
    tokens/s (assumed until measured): README.md shortened, setup.cfg left out; the model can read them
    with read_file." """
    sep = t("brief_list_sep", language)
    parts = [t("brief_shortened", language, files=sep.join(brief.shortened))] if brief.shortened else []
    parts += [t("brief_left_out", language, files=sep.join(brief.left_out))] if brief.left_out else []
    what = t("brief_part_sep", language).join([*parts, t("brief_read_hint", language)])
    return t(
        "brief_cut",
        language,
        tokens=size.tokens,
        first=first_request,
        speed=size.speed or 0,
        how=t("brief_speed_measured" if size.measured else "brief_speed_assumed", language),
        what=what,
    )
