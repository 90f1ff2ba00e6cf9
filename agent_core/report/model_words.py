"""How the report says what the repository model counts, in English and Chinese.

The sentences of the structure section, the strengths and the side-by-side table that come from
:class:`~agent_core.repomodel.RepoModel`: how many files, how many of them vendored or generated and
so the project's own, tests by convention across packages, packages by ecosystem, CI systems, and the
role of each top-level folder: one concept (the model's counts) with its own phrasing rules (thousands
separators, lower bounds). The words are in :mod:`agent_core.words` (``repomodel_en`` / ``repomodel_zh``).
"""

from __future__ import annotations

from agent_core.repomodel import RepoModel, Role, TopFolder
from agent_core.repomodel.counts import EcosystemCount, ecosystem_counts
from agent_core.report.inert import code
from agent_core.report.phrases import join_names
from agent_core.words import Words

MAX_VENDORED = 3
MAX_CONVENTIONS = 4


def count(value: int) -> str:
    return f"{value:,}"


def files_line(model: RepoModel, words: Words) -> str:
    """ "17,846 files in 2,301 folders, of which 13,712 vendored (`vendor/`): 4,134 are the project's own."""
    total = words("model_total", count(model.files), count(model.dirs))
    if model.truncated:
        total = words("model_at_least", total)
    parts = []
    if model.vendored_files:
        roots = [code(f"{root.path}/") for root in model.vendored[:MAX_VENDORED]]
        if len(model.vendored) > MAX_VENDORED:
            roots.append(words("more", len(model.vendored) - MAX_VENDORED).strip())
        by_name = model.vendored_files - sum(root.files for root in model.vendored)
        if by_name > 0:  # minified files, Linguist's file patterns, .gitattributes overrides
            roots.append(words("model_vendored_by_name", by_name))
        where = words("sep").join(roots) or words("unknown")
        parts.append(words("model_vendored_part", count(model.vendored_files), where))
    if model.generated_files:
        parts.append(words("model_generated_part", count(model.generated_files)))
    if not parts:
        return words("model_all_own", total)
    verb = words("model_verb_many" if model.own_files != 1 else "model_verb_one")
    return words("model_of_which", total, words("model_and_").join(parts), count(model.own_files), verb)


def tests_phrase(model: RepoModel, words: Words) -> str | None:
    """ "1,013 `*_test.go` files across 180 packages", or by convention when several; None without tests."""
    tests = model.tests
    if not tests.files:
        return None
    units = (
        words("model_file_unit_many" if tests.files != 1 else "model_file_unit_one"),
        words("model_package_unit_many" if tests.packages != 1 else "model_package_unit_one"),
    )
    if len(tests.by_convention) == 1:
        label = code(tests.by_convention[0].label)
        return words("model_tests", count(tests.files), label, count(tests.packages), *units)
    shown = [f"{count(n)} {code(label)}" for label, n in tests.by_convention[:MAX_CONVENTIONS]]
    if len(tests.by_convention) > MAX_CONVENTIONS:
        shown.append(words("more", len(tests.by_convention) - MAX_CONVENTIONS).strip())
    return words(
        "model_tests_mixed", count(tests.files), count(tests.packages), words("sep").join(shown), *units
    )


def tests_line(model: RepoModel, words: Words) -> str:
    phrase = tests_phrase(model, words)
    return words("model_tests_line", phrase) if phrase else words("model_no_tests")


def packages_line(model: RepoModel, words: Words) -> str | None:
    """How many packages per ecosystem, and how many are npm workspace members; None for at most one."""
    if len(model.packages) <= 1:
        return None
    counts = ecosystem_counts(model.packages, model.aside)
    parts = [f"{c.ecosystem} {c.packages}{left_out(c, words)}" for c in counts]
    members = sum(1 for p in model.packages if p.member_of_workspace)
    if members:
        parts.append(words("model_workspace", members))
    sep = words("eco_sep") if any(c.leaves_out for c in counts) else words("sep")
    return words("model_packages", count(sum(c.packages for c in counts)), sep.join(parts))


def left_out(found: EcosystemCount, words: Words) -> str:
    """What an ecosystem's count leaves open or out: ", or 10 if `python/pyproject.toml` (unread)
    declares a package besides its workspace, not counting 17 in examples"; "" when nothing."""
    said = ""
    if roots := found.unread_roots:
        names = join_names([code(p) for p in roots], words)
        said = words(
            "eco_unread_one" if len(roots) == 1 else "eco_unread_many",
            f"{found.packages + len(roots):,}",
            names,
        )
    items = [words("eco_aside_examples", f"{found.examples:,}")] if found.examples else []
    items += [words("eco_aside_fixtures", f"{found.fixtures:,}")] if found.fixtures else []
    return said + (words("eco_aside", words("model_and_").join(items)) if items else "")


def ci_line(model: RepoModel, words: Words) -> str | None:
    if not model.ci:
        return None
    systems = [words("model_ci_system", s.name, files_count(len(s.paths), words)) for s in model.ci]
    return words("model_ci", words("sep").join(systems))


def files_cell(model: RepoModel, words: Words) -> str:
    """The side-by-side table's files cell: "17,846 (4,134 own)"."""
    total = count(model.files)
    if model.own_files == model.files:
        return total
    return total + words("paren", words("model_own_short", count(model.own_files)))


def folder_files(folder: TopFolder, words: Words) -> str:
    """ "83 files", or "83 files (82 own)" when some of a folder's files are vendored or generated."""
    total = files_count(folder.files, words)
    if folder.own_files in (folder.files, 0):
        return total
    return total + words("paren", words("model_own_short", count(folder.own_files)))


def role_label(role: Role, words: Words) -> str:
    return words(f"model_role_{role}")


def files_count(n: int, words: Words) -> str:
    """ "1 file", "4,134 files" in the report's language."""
    return words("files_one" if n == 1 else "files_many", count(n))
