"""Issue 37, item 2, for a local model: its wrong sentences given back, numbered, and its one-line
corrections put in their places (:mod:`agent_core.agent.corrections`); the loop's part is in
``tests/test_draft_review.py``."""

from __future__ import annotations

import pytest

from agent_core import events as ev
from agent_core.agent.corrections import MAX_SENTENCES, answers, flagged, request, spliced
from agent_core.agent.set_aside import unsupported
from testing.linear import growth


def _wrong(draft: str, piece: str, kind: str = "number", observed: str = "stars: 42") -> ev.CheckedClaim:
    start = draft.index(piece)
    return ev.CheckedClaim(
        kind=kind, claim=piece, verdict="contradicted", observed=observed, start=start, end=start + len(piece)
    )


DRAFT = (
    "# demo\n\n"
    "Demo counts words. It has 7 stars and many forks.\n\n"
    "- **Gradle**: Build tool used for building the project.\n"
    "- **CMake**: the build system.\n\n"
    "```\ndemo/\n└── gradle/\n```\n"
)


def test_the_sentences_holding_wrong_claims_are_given_back_with_what_was_observed() -> None:
    claims = [
        _wrong(DRAFT, "7 stars"),
        _wrong(DRAFT, "Gradle", kind="dependency", observed="declared by no manifest read"),
        _wrong(DRAFT, "gradle/", kind="path", observed=None),  # in a drawn tree: it goes whole
    ]
    back = flagged(DRAFT, claims)
    assert [b.text for b in back] == [
        "It has 7 stars and many forks.",
        "**Gradle**: Build tool used for building the project.",
    ]
    assert back[1].marker == "- "
    asked = request(back, "en")
    assert '1. "It has 7 stars and many forks.": the observations show stars: 42' in asked
    assert (
        '2. "**Gradle**: Build tool used for building the project.": the observations show declared' in asked
    )
    assert "2. DROP" in asked and "<sentence 1, corrected>" in asked
    assert "观察结果显示 stars: 42" in request(back, "zh")


def test_a_correction_takes_its_sentences_place_and_a_drop_takes_its_line() -> None:
    back = flagged(DRAFT, [_wrong(DRAFT, "7 stars"), _wrong(DRAFT, "Gradle")])
    fixed = spliced(DRAFT, back, '1) "It has 42 stars."\n**2.** drop\n')[0]
    assert fixed == (
        "# demo\n\nDemo counts words. It has 42 stars.\n\n- **CMake**: the build system.\n\n"
        "```\ndemo/\n└── gradle/\n```\n"
    )
    # a sentence within a line dropped takes the space after it; a list item rewritten keeps its marker
    assert "\nDemo counts words.\n\n- **Gradle**" in spliced(DRAFT, back, "1. DROP")[0]
    assert "- CMake builds it.\n- **CMake**" in spliced(DRAFT, back, "2. - CMake builds it.")[0]


def test_what_is_not_an_answer_leaves_the_sentence_for_the_check() -> None:
    back = flagged(DRAFT, [_wrong(DRAFT, "7 stars"), _wrong(DRAFT, "Gradle")])
    for reply in ("", "Here is the corrected report:\n# demo", "1. <sentence 1, corrected>", "9. DROP"):
        assert spliced(DRAFT, back, reply) == (DRAFT, ()), reply
    assert answers("1. a\n1. b\n2. 删除\n", 2) == {1: "a", 2: None}  # the first answer counts
    assert answers("Final: 1. It has 42 stars.", 1) == {1: "It has 42 stars."}


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_at_most_a_few_sentences_go_back_and_the_work_is_linear() -> None:
    many = "".join(f"Line {i} has 7 stars.\n\n" for i in range(20))
    claims = [_wrong(many, f"Line {i} has 7") for i in range(20)]
    assert len(flagged(many, claims)) == MAX_SENTENCES

    def corrected(text: str) -> None:
        back = flagged(text, [_wrong(text, "7 stars")])
        spliced(text, back, "1. x\n" * (len(text) // 10))

    for make in (
        lambda n: "It has 7 stars." + " word." * (n // 6),
        lambda n: "It has 7 stars.\n" + "- 1. (" * (n // 6),
    ):
        measured = growth(corrected, make, start=5_000, factor=4)
        assert measured.linear(), str(measured)


def test_a_line_put_in_keeps_only_what_the_check_confirms() -> None:
    """The real 1.5B, told "30 commits in total" was a page of 30, wrote "34 commits made in the last two
    years": a claim the check cannot confirm, set aside in the line it put in, left alone elsewhere."""
    draft = "It has 34 commits. It has 2 forks.\n"
    claims = tuple(
        ev.CheckedClaim(kind="number", claim=piece, verdict="unchecked", start=draft.index(piece), end=0)
        for piece in ("34 commits", "2 forks")
    )
    check = ev.ClaimsChecked(t=0.0, claims=claims)
    assert unsupported(draft, check, (), (), rewritten=("It has 34 commits.",)) == [claims[0]]
    assert unsupported(draft, check, (), ()) == []
