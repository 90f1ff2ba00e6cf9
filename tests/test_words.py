"""The words package: every key in every language, with the same placeholders; one lookup for all."""

from __future__ import annotations

import string

import pytest

from agent_core.diagnosis import CAUSES, explain
from agent_core.events import Diagnosis
from agent_core.words import LANGUAGES, Language, t, words_for
from agent_core.words.tables import AREAS, TABLES, joined


def placeholders(text: str) -> list[str]:
    """The ``{}`` fields of a template by name or position (``{}`` counted: ``{} {}`` is ``{0} {1}``), each
    once (``{n} {n!p:file|files}`` says ``n`` twice)."""
    fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    automatic = iter(range(len(fields)))
    return sorted({name or str(next(automatic)) for name in fields})


def test_every_language_says_every_key() -> None:
    keys = {language: set(TABLES[language]) for language in LANGUAGES}
    assert {language: sorted(keys["en"] ^ found) for language, found in keys.items()} == {
        language: [] for language in LANGUAGES
    }


# Chinese has no plural: these sentences leave out English's number-agreement words (a verb, units),
# which are filled in but unused; a translation may never use a field English does not give.
AGREEMENT_UNSAID = {"zh": {"model_of_which", "model_tests", "model_tests_mixed"}}


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_translation_has_the_english_placeholders(language: Language) -> None:
    unsaid = AGREEMENT_UNSAID.get(language, set())
    differ = {
        key: (placeholders(text), placeholders(TABLES[language][key]))
        for key, text in TABLES["en"].items()
        if placeholders(text) != placeholders(TABLES[language][key]) and key not in unsaid
    }
    assert differ == {}
    extra = {
        key: set(placeholders(TABLES[language][key])) - set(placeholders(TABLES["en"][key])) for key in unsaid
    }
    assert extra == {key: set() for key in unsaid}


def test_the_areas_are_disjoint_and_a_key_said_twice_is_refused() -> None:
    assert sum(len(area) for area in AREAS["en"]) == len(TABLES["en"])
    with pytest.raises(ValueError, match="stars"):
        joined(({"stars": "a"}, {"stars": "b", "forks": "c"}))


def test_counts_agree_with_their_nouns_in_english() -> None:
    assert t("model_total", "en", "1", "1") == "1 file in 1 folder"
    assert t("model_total", "en", "1,204", "3") == "1,204 files in 3 folders"
    assert t("coverage_listed", "en", count=1) == "listed 1 folder"
    assert t("a_partial", "en", 2) == "the first 2 lines were read"
    assert t("model_total", "zh", "1", "1") == "1 个文件、1 个目录"


def test_lookup_formats_binds_a_language_and_never_crashes_on_a_typo() -> None:
    assert t("analyze", "zh") == "分析"
    assert t("files_many", "en", 3) == "3 files"
    assert t("status_failed", "en", message="x") == "Failed: x"
    assert t("analyze", "fr") == "Analyze"  # an unknown language reads English
    assert t("no-such-key", "zh") == "no-such-key"
    words = words_for("zh")
    assert words.language == "zh"
    assert words("files_one", 1) == "1 个文件"
    assert words.has("recommend_no_ci")
    assert not words.has("recommend_nothing")
    assert words_for(None).language == "en"


def test_every_cause_is_explained_in_every_language() -> None:
    keys = {f"cause_{cause}_{part}" for cause in CAUSES for part in ("what", "next")}
    assert {language: sorted(keys - set(TABLES[language])) for language in LANGUAGES} == {
        language: [] for language in LANGUAGES
    }
    quota = Diagnosis(cause="space_quota", source="github", reset_at=0.0)
    assert explain(quota, "zh").what == "本 Space 本小时的 GitHub 请求已用完（到 00:00 UTC 为止）。"
