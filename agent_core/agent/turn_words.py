"""What the app says about a model turn it cut or stopped, in the report's language (beside the report,
in its data gaps: never inside the model's text); and the hint that tells a model a brief is not all
there is. The sentences are in :mod:`agent_core.words` (``turns_en`` / ``turns_zh``)."""

from __future__ import annotations

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


def beyond_brief(language: Language) -> str:
    """Said after the brief when the user asked a question: small models otherwise answer from the brief
    (or from memory) and never look further."""
    return t("to_model_beyond_brief", language)
