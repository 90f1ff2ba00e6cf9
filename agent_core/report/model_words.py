"""How the report says what the repository model counts, in English and Chinese.

The sentences of the structure section, the strengths and the side-by-side table that come from
:class:`~agent_core.repomodel.RepoModel`: how many files, how many of them vendored or generated and
so the project's own, tests by convention across packages, packages by ecosystem, CI systems, and the
role of each top-level folder. Kept apart from :mod:`~agent_core.report.words` because they are one
concept (the model's counts) with their own phrasing rules (thousands separators, lower bounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agent_core.repomodel import RepoModel, Role, TopFolder
from agent_core.report.inert import code
from agent_core.words import Language, Words


@dataclass(frozen=True, kw_only=True)
class ModelWords:
    total: str  # files, folders
    at_least: str  # a cut tree's count
    of_which: str  # the parts that are not the project's own
    own: str  # own files
    all_own: str
    vendored_part: str  # count, where
    generated_part: str
    and_: str
    tests: str  # files, convention, packages
    tests_mixed: str  # files, packages, breakdown
    tests_line: str
    no_tests: str
    tests_strength: str
    packages: str  # count, by ecosystem
    workspace: str  # members
    ci: str  # systems
    ci_system: str  # name, files
    own_short: str
    verbs: tuple[str, str]  # one, several: "is", "are"
    file_units: tuple[str, str]  # one, several (in sentences that put the number apart)
    package_units: tuple[str, str]
    roles: Mapping[Role, str]


_EN = ModelWords(
    total="{} files in {} folders",
    at_least="at least {}",
    of_which="{0}, of which {1}: {2} {3} the project's own.",
    own="{}",
    all_own="{}, all the project's own.",
    vendored_part="{} vendored ({})",
    generated_part="{} generated",
    and_=" and ",
    tests="{0} {1} {3} across {2} {4}",
    tests_mixed="{0} {3} across {1} {4} ({2})",
    tests_line="**Tests:** {}.",
    # conventions, not paths: a folder named in a code span (`tests/`) would be a claim that it exists
    no_tests="**Tests:** none found by the usual conventions (`*_test.go`, `*.test.ts`, `test_*.py`, a `tests` folder…).",
    tests_strength="Tests are present: {}.",
    packages="**Packages and modules:** {} ({}).",
    workspace="{} of them members of the npm workspaces",
    ci="**CI:** {}.",
    ci_system="{} ({})",
    own_short="{} own",
    verbs=("is", "are"),
    file_units=("file", "files"),
    package_units=("package", "packages"),
    roles=MappingProxyType(
        {
            "source": "source code",
            "tests": "tests",
            "docs": "documentation",
            "examples": "examples",
            "vendored": "vendored (not the project's own)",
            "generated": "generated",
            "build": "build configuration",
            "ci": "CI",
        }
    ),
)

_ZH = ModelWords(
    total="{} 个文件、{} 个目录",
    at_least="至少 {}",
    of_which="共 {0}，其中 {1}：项目自身的文件为 {2} 个。",
    own="{}",
    all_own="共 {}，全部为项目自身的文件。",
    vendored_part="{} 个为第三方代码（{}）",
    generated_part="{} 个为生成文件",
    and_="、",
    tests="{2} 个包中共有 {0} 个 {1} 文件",
    tests_mixed="{1} 个包中共有 {0} 个测试文件（{2}）",
    tests_line="**测试：** {}。",
    no_tests="**测试：** 按常见约定（`*_test.go`、`*.test.ts`、`test_*.py`、`tests` 目录…）未发现测试。",
    tests_strength="存在测试：{}。",
    packages="**代码包与模块：** {} 个（{}）。",
    workspace="其中 {} 个是 npm 工作区成员",
    ci="**CI：** {}。",
    ci_system="{}（{}）",
    own_short="自有 {}",
    verbs=("", ""),
    file_units=("", ""),
    package_units=("", ""),
    roles=MappingProxyType(
        {
            "source": "源代码",
            "tests": "测试",
            "docs": "文档",
            "examples": "示例",
            "vendored": "第三方代码（非项目自身）",
            "generated": "生成文件",
            "build": "构建配置",
            "ci": "CI",
        }
    ),
)

_BY_LANGUAGE: Mapping[Language, ModelWords] = MappingProxyType({"en": _EN, "zh": _ZH})
MAX_VENDORED = 3
MAX_CONVENTIONS = 4


def model_words(words: Words) -> ModelWords:
    return _BY_LANGUAGE[words.language]


def count(value: int) -> str:
    return f"{value:,}"


def files_line(model: RepoModel, words: Words) -> str:
    """ "17,846 files in 2,301 folders, of which 13,712 vendored (`vendor/`): 4,134 are the project's own."""
    said = model_words(words)
    total = said.total.format(count(model.files), count(model.dirs))
    if model.truncated:
        total = said.at_least.format(total)
    parts = []
    if model.vendored_files:
        roots = [code(f"{root.path}/") for root in model.vendored[:MAX_VENDORED]]
        if len(model.vendored) > MAX_VENDORED:
            roots.append(words("more", len(model.vendored) - MAX_VENDORED).strip())
        where = words("sep").join(roots) or words("unknown")
        parts.append(said.vendored_part.format(count(model.vendored_files), where))
    if model.generated_files:
        parts.append(said.generated_part.format(count(model.generated_files)))
    if not parts:
        return said.all_own.format(total)
    verb = said.verbs[model.own_files != 1]
    return said.of_which.format(total, said.and_.join(parts), count(model.own_files), verb)


def tests_phrase(model: RepoModel, words: Words) -> str | None:
    """ "1,013 `*_test.go` files across 180 packages", or by convention when several; None without tests."""
    said, tests = model_words(words), model.tests
    if not tests.files:
        return None
    units = (said.file_units[tests.files != 1], said.package_units[tests.packages != 1])
    if len(tests.by_convention) == 1:
        label = code(tests.by_convention[0].label)
        return said.tests.format(count(tests.files), label, count(tests.packages), *units)
    shown = [f"{count(n)} {code(label)}" for label, n in tests.by_convention[:MAX_CONVENTIONS]]
    if len(tests.by_convention) > MAX_CONVENTIONS:
        shown.append(words("more", len(tests.by_convention) - MAX_CONVENTIONS).strip())
    return said.tests_mixed.format(
        count(tests.files), count(tests.packages), words("sep").join(shown), *units
    )


def tests_line(model: RepoModel, words: Words) -> str:
    said = model_words(words)
    phrase = tests_phrase(model, words)
    return said.tests_line.format(phrase) if phrase else said.no_tests


def packages_line(model: RepoModel, words: Words) -> str | None:
    """How many packages per ecosystem, and how many are npm workspace members; None for at most one."""
    if len(model.packages) <= 1:
        return None
    said = model_words(words)
    ecosystems: dict[str, int] = {}
    for package in model.packages:
        ecosystems[package.ecosystem] = ecosystems.get(package.ecosystem, 0) + 1
    parts = [f"{name} {n}" for name, n in sorted(ecosystems.items(), key=lambda kv: (-kv[1], kv[0]))]
    members = sum(1 for p in model.packages if p.member_of_workspace)
    if members:
        parts.append(said.workspace.format(members))
    return said.packages.format(count(len(model.packages)), words("sep").join(parts))


def ci_line(model: RepoModel, words: Words) -> str | None:
    if not model.ci:
        return None
    said = model_words(words)
    systems = [said.ci_system.format(s.name, files_count(len(s.paths), words)) for s in model.ci]
    return said.ci.format(words("sep").join(systems))


def files_cell(model: RepoModel, words: Words) -> str:
    """The side-by-side table's files cell: "17,846 (4,134 own)"."""
    total = count(model.files)
    if model.own_files == model.files:
        return total
    return total + words("paren", model_words(words).own_short.format(count(model.own_files)))


def folder_files(folder: TopFolder, words: Words) -> str:
    """ "83 files", or "83 files (82 own)" when some of a folder's files are vendored or generated."""
    total = files_count(folder.files, words)
    if folder.own_files in (folder.files, 0):
        return total
    return total + words("paren", model_words(words).own_short.format(count(folder.own_files)))


def role_label(role: Role, words: Words) -> str:
    return model_words(words).roles[role]


def files_count(n: int, words: Words) -> str:
    """ "1 file", "4,134 files" in the report's language."""
    return words("files_one" if n == 1 else "files_many", count(n))
