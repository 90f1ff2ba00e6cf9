"""The deterministic report writer: a factual Markdown report built only from tool results.

Two users: the offline planner (no model), and any run that must end without the model's report
(the model became unreachable, or a limit was hit) -- then ``writer_note`` says why. Every sentence
comes from a typed value in a :class:`~agent_core.tools.executor.ToolResult`; what is missing is
written as "unknown" (未知), and an absence ("no license") is only claimed when the data that would
show the thing was actually fetched.

The pipeline is plain functions::

    results ─▶ _Evidence per repository (what was fetched)
            ─▶ _Facts (manifests parsed, CI/tests/license presence, activity, strengths and risks)
            ─▶ Markdown, in English or Chinese through one _Words table

Repository text is untrusted: whatever comes from it goes through :func:`_plain` (escaped prose in
which no HTML tag can form) or :func:`_code` (a code span, only for text that cannot break out of one).
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Literal
from urllib.parse import quote

from agent_core.agent.prompts import SECTIONS_EN, SECTIONS_ZH, Language
from agent_core.sources.models import (
    CommitList,
    DirListing,
    FileContent,
    FileTree,
    Languages,
    RepoInfo,
    RepoRef,
)
from agent_core.tools.executor import ToolResult
from agent_core.tools.observe import notable_role

MAX_NAMES = 25  # longer lists end with "and N more"
README_CHARS = 600
LARGE_FILE_BYTES = 5 * 1024 * 1024
_TEST_DIRS = ("tests", "test", "spec", "__tests__")
_TEST_FILE = re.compile(r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Test\.java$)")

# ============================================================================================ words


@dataclass(frozen=True, kw_only=True)
class _Words:
    """Every label and sentence of a report, in one language. ``{}`` fields are format templates."""

    sections: tuple[str, ...]
    data_sources: str
    title_one: str
    title_many: str
    unknown: str
    none: str
    yes: str
    no: str
    more: str  # " and {n} more", appended to a list
    sep: str  # list separator
    semi: str  # separator of clauses
    colon: str
    paren: str  # " ({})"
    files: tuple[str, str]  # one, several
    not_examined: str
    question: str
    warning: str
    stale_item: str
    degraded_item: str
    # overview
    description: str
    from_readme: str
    stars: str
    forks: str
    open_issues: str
    license: str
    default_branch: str
    created: str
    last_push: str
    topics: str
    homepage: str
    primary_language: str
    renamed: str
    archived: str
    is_fork: str
    no_info: str
    # tech stack
    languages: str
    no_languages: str
    manifests: str
    manifest_line: str
    runtime_deps: str
    dev_deps: str
    groups: str
    build_backend: str
    indirect: str
    no_deps: str
    unparsed: str
    invalid: str
    partial: str
    unread_manifests: str
    no_manifests: str
    notable: str
    tooling: str
    categories: Mapping[str, str]
    # structure
    counts: str
    top_dir: str
    top_files: str
    notable_files: str
    roles: Mapping[str, str]
    truncated: str
    empty_repo: str
    no_tree: str
    root_only: str
    listing: str
    # activity
    last_commit: str
    first_commit: str
    sample: str
    span: str
    cadence: str
    same_day: str
    authors: str
    has_more: str
    latest: str
    no_commits: str
    commits_failed: str
    # strengths / risks / recommendations
    s_ci: str
    s_tests: str
    s_test_files: str
    s_license: str
    s_license_file: str
    s_readme: str
    s_docs: str
    s_activity: str
    s_contributors: str
    no_strengths: str
    r_no_license: str
    r_no_ci: str
    r_no_tests: str
    r_single_author: str
    r_archived: str
    r_no_readme: str
    r_short_readme: str
    r_large_files: str
    r_unchecked: str
    r_data: str
    r_empty: str
    no_risks: str
    recommend: Mapping[str, str]
    no_recommendations: str
    checks: Mapping[str, str]
    # comparison and sources
    side_by_side: str
    table_rows: tuple[str, ...]
    aspect: str
    yes_which: str
    mark_ok: str
    mark_failed: str
    mark_stale: str
    mark_degraded: str
    mark_memo: str
    no_calls: str


_CATEGORIES_EN = {
    "web": "web framework",
    "http": "HTTP client",
    "testing": "testing",
    "cli": "command line",
    "async": "async runtime",
    "ui": "UI framework",
    "data": "data processing",
    "ml": "machine learning",
    "orm": "database",
    "build": "build tool",
    "lint": "code quality",
    "server": "application server",
    "serialization": "serialization",
    "llm": "LLM client",
    "rpc": "RPC",
}
_CATEGORIES_ZH = {
    "web": "Web 框架",
    "http": "HTTP 客户端",
    "testing": "测试",
    "cli": "命令行",
    "async": "异步运行时",
    "ui": "界面框架",
    "data": "数据处理",
    "ml": "机器学习",
    "orm": "数据库",
    "build": "构建工具",
    "lint": "代码质量",
    "server": "应用服务器",
    "serialization": "序列化",
    "llm": "LLM 客户端",
    "rpc": "RPC",
}

EN = _Words(
    sections=SECTIONS_EN,
    data_sources="Data sources",
    title_one="{} — repository analysis",
    title_many="{} — repository comparison",
    unknown="unknown",
    none="none",
    yes="yes",
    no="no",
    more=" and {} more",
    sep=", ",
    semi="; ",
    colon=": ",
    paren=" ({})",
    files=("{} file", "{} files"),
    not_examined="Not examined.",
    question="**Question:** {}",
    warning="⚠ Some data could not be fetched: {}. Missing facts are marked “unknown”.",
    stale_item="{} (served from an older cached copy)",
    degraded_item="{} ({})",
    description="**Description:** {}",
    from_readme="**From the README** ({}): {}",
    stars="Stars",
    forks="Forks",
    open_issues="Open issues",
    license="License",
    default_branch="Default branch",
    created="Created",
    last_push="Last push",
    topics="Topics",
    homepage="Homepage",
    primary_language="Primary language",
    renamed="The repository was renamed: {} now redirects to {}.",
    archived="The repository is archived (read-only).",
    is_fork="The repository is a fork.",
    no_info="Repository metadata could not be fetched.",
    languages="**Languages:** {}",
    no_languages="none detected",
    manifests="**Manifests read:**",
    manifest_line="- {}: {}",
    runtime_deps="runtime dependencies ({}): {}",
    dev_deps="development dependencies ({}): {}",
    groups="optional groups: {}",
    build_backend="build backend: {}",
    indirect="indirect requirements: {}",
    no_deps="no dependencies declared",
    unparsed="present but not parsed",
    invalid="could not be parsed ({})",
    partial="the file was cut when read, so the lists may be incomplete",
    unread_manifests="**Other manifests in the tree (not read):** {}",
    no_manifests="No dependency manifest was found.",
    notable="**Notable dependencies:** {}",
    tooling="**Build and tooling files:** {}",
    categories=MappingProxyType(_CATEGORIES_EN),
    counts="Files: {}; directories: {}.",
    top_dir="- {} — {} — {}",
    top_files="**Top-level files:** {}",
    notable_files="**Notable files:** {}",
    roles=MappingProxyType(
        {
            "source": "source code",
            "tests": "tests",
            "docs": "documentation",
            "examples": "examples",
            "tooling": "tooling",
            "github": "GitHub configuration/CI",
            "benchmarks": "benchmarks",
            "assets": "static assets",
            "readme": "README",
            "license": "license",
            "manifest": "manifests",
            "ci": "CI",
            "container": "containers",
            "build": "build",
        }
    ),
    truncated="The tree was truncated by the server: the counts are lower bounds.",
    empty_repo="The repository is empty (no commits).",
    no_tree="The file tree could not be fetched.",
    root_only="The full tree could not be fetched; the root folder holds: {}",
    listing="Contents of {}: {}",
    last_commit="Last commit: {}",
    first_commit="First commit in the sample: {}",
    sample="Commits in the sample: {}",
    span=" over {} days",
    cadence="Average cadence: {} commits per week over the sample",
    same_day=" (all on the same day)",
    authors="Top authors in the sample: {}",
    has_more="More commits exist beyond this sample.",
    latest="Latest commits:",
    no_commits="The repository has no commits.",
    commits_failed="The commit history could not be fetched.",
    s_ci="Continuous integration is configured: {}.",
    s_tests="A tests folder is present: {} ({}).",
    s_test_files="Test files are present: {}.",
    s_license="A license is declared: {}.",
    s_license_file="A license file is present: {}.",
    s_readme="The README is substantial: {} ({} lines).",
    s_docs="A documentation folder is present: {}.",
    s_activity="Regular commits in the sample: {} commits from {} to {} (about {} per week); "
    "last commit on {}.",
    s_contributors="{} different authors in the commit sample.",
    no_strengths="No strengths could be established from the data gathered.",
    r_no_license="No license: no LICENSE file in the tree and none declared, so reuse terms are unclear.",
    r_no_ci="No CI configuration was found (no GitHub Actions workflow or other CI file).",
    r_no_tests="No tests folder or test files were found in the tree.",
    r_single_author="Bus factor: all {} commits in the sample are by one author ({}).",
    r_archived="The repository is archived: it no longer receives changes.",
    r_no_readme="No README was found at the root.",
    r_short_readme="The README is very short ({} lines).",
    r_large_files="Large files in the repository: {}.",
    r_unchecked="Could not check {} (no complete file list is available).",
    r_data="Some data is stale or missing ({}); facts marked unknown could not be verified.",
    r_empty="The repository is empty: there is nothing to assess yet.",
    no_risks="No risks are visible in the data gathered.",
    recommend=MappingProxyType(
        {
            "no_license": "Add a LICENSE file so others know the terms under which they may use the code.",
            "no_ci": "Add continuous integration (for example a GitHub Actions workflow running the tests "
            "on every push and pull request).",
            "no_tests": "Add automated tests and run them in CI.",
            "single_author": "Reduce the bus factor: have a second maintainer review and merge changes.",
            "archived": "Before depending on it, look for a maintained fork or an alternative.",
            "no_readme": "Add a README that explains what the project does and how to use it.",
            "short_readme": "Expand the README with installation, usage and an example.",
            "large_files": "Move large binary files out of git (Git LFS or release assets).",
            "unchecked": "Run the analysis again when the data source is reachable to check what is unknown.",
            "data": "Run the analysis again when the data source is reachable to fill the gaps.",
            "empty": "Push a first commit with the code and a README.",
        }
    ),
    no_recommendations="No recommendations: the data gathered shows no risk to address.",
    checks=MappingProxyType({"license": "the license", "ci": "CI", "tests": "tests", "readme": "the README"}),
    side_by_side="### Side by side",
    table_rows=(
        "Description",
        "Primary language",
        "License",
        "Stars",
        "Forks",
        "Last commit",
        "CI",
        "Tests",
        "Files",
    ),
    aspect="Aspect",
    yes_which="yes ({})",
    mark_ok="✓ ok",
    mark_failed="✗ failed",
    mark_stale="⚠ stale",
    mark_degraded="⚠ degraded",
    mark_memo="repeated call, answered from memory",
    no_calls="No tool calls were made.",
)

ZH = _Words(
    sections=SECTIONS_ZH,
    data_sources="数据来源",
    title_one="{} — 仓库分析",
    title_many="{} — 仓库对比",
    unknown="未知",
    none="无",
    yes="是",
    no="否",
    more=" 等另外 {} 项",
    sep="、",
    semi="；",
    colon="：",
    paren="（{}）",
    files=("{} 个文件", "{} 个文件"),
    not_examined="未检查。",
    question="**问题：** {}",
    warning="⚠ 部分数据未能获取：{}。缺失的信息标为“未知”。",
    stale_item="{}（使用了较早的缓存副本）",
    degraded_item="{}（{}）",
    description="**简介：** {}",
    from_readme="**README 摘要**（{}）：{}",
    stars="星标",
    forks="复刻",
    open_issues="未关闭的 issue",
    license="许可证",
    default_branch="默认分支",
    created="创建时间",
    last_push="最后推送",
    topics="主题",
    homepage="主页",
    primary_language="主要语言",
    renamed="该仓库已改名：{} 现重定向到 {}。",
    archived="该仓库已归档（只读）。",
    is_fork="该仓库是一个复刻（fork）。",
    no_info="未能获取仓库元数据。",
    languages="**语言：** {}",
    no_languages="未检测到",
    manifests="**已读取的清单文件：**",
    manifest_line="- {}：{}",
    runtime_deps="运行时依赖（{}）：{}",
    dev_deps="开发依赖（{}）：{}",
    groups="可选依赖组：{}",
    build_backend="构建后端：{}",
    indirect="间接依赖：{}",
    no_deps="未声明依赖",
    unparsed="存在，但未解析",
    invalid="无法解析（{}）",
    partial="读取时文件被截断，列表可能不完整",
    unread_manifests="**树中的其他清单文件（未读取）：** {}",
    no_manifests="未发现依赖清单文件。",
    notable="**重要依赖：** {}",
    tooling="**构建与工具文件：** {}",
    categories=MappingProxyType(_CATEGORIES_ZH),
    counts="文件：{}；目录：{}。",
    top_dir="- {} — {} — {}",
    top_files="**顶层文件：** {}",
    notable_files="**重要文件：** {}",
    roles=MappingProxyType(
        {
            "source": "源代码",
            "tests": "测试",
            "docs": "文档",
            "examples": "示例",
            "tooling": "工具脚本",
            "github": "GitHub 配置/CI",
            "benchmarks": "基准测试",
            "assets": "静态资源",
            "readme": "README",
            "license": "许可证",
            "manifest": "清单文件",
            "ci": "CI",
            "container": "容器",
            "build": "构建",
        }
    ),
    truncated="服务器截断了文件树：以上数量为下限。",
    empty_repo="该仓库为空（没有提交）。",
    no_tree="未能获取文件树。",
    root_only="未能获取完整文件树；根目录包含：{}",
    listing="{} 的内容：{}",
    last_commit="最近一次提交：{}",
    first_commit="样本中最早的提交：{}",
    sample="样本中的提交数：{}",
    span="，跨度 {} 天",
    cadence="平均频率：样本期间每周 {} 次提交",
    same_day="（均在同一天）",
    authors="样本中的主要作者：{}",
    has_more="在此样本之外还有更多提交。",
    latest="最近的提交：",
    no_commits="该仓库没有任何提交。",
    commits_failed="未能获取提交历史。",
    s_ci="已配置持续集成：{}。",
    s_tests="存在测试目录：{}（{}）。",
    s_test_files="存在测试文件：{}。",
    s_license="已声明许可证：{}。",
    s_license_file="存在许可证文件：{}。",
    s_readme="README 内容充实：{}（{} 行）。",
    s_docs="存在文档目录：{}。",
    s_activity="样本中提交规律：{} 次提交，从 {} 到 {}（约每周 {} 次）；最近一次提交于 {}。",
    s_contributors="提交样本中有 {} 位不同的作者。",
    no_strengths="根据已获取的数据无法确认优势。",
    r_no_license="没有许可证：文件树中没有 LICENSE 文件，也未声明许可证，复用条款不明确。",
    r_no_ci="未发现 CI 配置（没有 GitHub Actions 工作流或其他 CI 文件）。",
    r_no_tests="文件树中未发现测试目录或测试文件。",
    r_single_author="巴士因子：样本中的全部 {} 次提交都来自同一位作者（{}）。",
    r_archived="该仓库已归档：不再接收修改。",
    r_no_readme="根目录下没有 README。",
    r_short_readme="README 非常简短（{} 行）。",
    r_large_files="仓库中有大文件：{}。",
    r_unchecked="无法检查{}（没有完整的文件列表）。",
    r_data="部分数据过期或缺失（{}）；标为未知的信息无法核实。",
    r_empty="该仓库为空：暂无可评估的内容。",
    no_risks="在已获取的数据中未发现明显风险。",
    recommend=MappingProxyType(
        {
            "no_license": "添加 LICENSE 文件，让使用者了解代码的使用条款。",
            "no_ci": "添加持续集成（例如在每次推送和拉取请求时运行测试的 GitHub Actions 工作流）。",
            "no_tests": "添加自动化测试，并在 CI 中运行。",
            "single_author": "降低巴士因子：让第二位维护者参与评审和合并。",
            "archived": "依赖它之前，先寻找仍在维护的复刻或替代项目。",
            "no_readme": "添加 README，说明项目的用途和使用方法。",
            "short_readme": "充实 README：安装、用法和示例。",
            "large_files": "将大型二进制文件移出 git（Git LFS 或发布附件）。",
            "unchecked": "在数据源可用时重新分析，以核实未知的信息。",
            "data": "在数据源可用时重新分析，以补全缺失的数据。",
            "empty": "推送包含代码和 README 的首次提交。",
        }
    ),
    no_recommendations="暂无建议：已获取的数据中没有需要处理的风险。",
    checks=MappingProxyType({"license": "许可证", "ci": "CI", "tests": "测试", "readme": "README"}),
    side_by_side="### 对比一览",
    table_rows=("简介", "主要语言", "许可证", "星标", "复刻", "最近提交", "CI", "测试", "文件数"),
    aspect="项目",
    yes_which="是（{}）",
    mark_ok="✓ 成功",
    mark_failed="✗ 失败",
    mark_stale="⚠ 过期缓存",
    mark_degraded="⚠ 降级",
    mark_memo="重复调用，使用已有结果",
    no_calls="没有调用任何工具。",
)

# ======================================================================================== manifests

ManifestStatus = Literal["parsed", "unparsed", "invalid"]


@dataclass(frozen=True, kw_only=True)
class Dependency:
    name: str
    spec: str = ""  # version constraint as written ("" = any), environment markers dropped

    def text(self) -> str:
        if not self.spec:
            return self.name
        glue = "" if self.spec[0] in "<>=!~[(@" else " "
        return f"{self.name}{glue}{self.spec}"


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """What one manifest declares. ``partial``: the file was cut when read, lists may be incomplete."""

    path: str
    status: ManifestStatus
    runtime: tuple[Dependency, ...] = ()
    dev: tuple[Dependency, ...] = ()
    groups: tuple[tuple[str, tuple[Dependency, ...]], ...] = ()  # extras / optional groups
    build_backend: str | None = None
    indirect: int = 0
    partial: bool = False
    detail: str | None = None  # why it could not be parsed

    def all_dependencies(self) -> Iterable[Dependency]:
        yield from self.runtime
        yield from self.dev
        for _name, deps in self.groups:
            yield from deps


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(.*)$")
_GO_REQUIRE = re.compile(r"^\s*([^\s()]+)\s+(v[^\s]+)(\s*//\s*indirect)?")


def parse_manifest(path: str, text: str, *, partial: bool = False) -> Manifest:
    """Parse the dependency manifests the report understands; others are ``unparsed``."""
    name = path.rsplit("/", 1)[-1].lower()
    parser = _PARSERS.get(name)
    if parser is None and re.fullmatch(r"requirements[\w.-]*\.txt", name):
        parser = _parse_requirements
    if parser is None:
        return Manifest(path=path, status="unparsed")
    try:
        fields = parser(text)
    except (ValueError, configparser.Error) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        reason = "the file was cut when read" if partial else _first_line(str(exc))
        return Manifest(path=path, status="invalid", detail=reason)
    return Manifest(path=path, status="parsed", partial=partial, **fields)


def _parse_pyproject(text: str) -> dict[str, Any]:
    data = tomllib.loads(text)
    project = _table(data.get("project"))
    runtime = [_requirement(s) for s in _strings(project.get("dependencies"))]
    groups = {
        k: [_requirement(s) for s in _strings(v)]
        for k, v in _table(project.get("optional-dependencies")).items()
    }
    groups.update(
        {k: [_requirement(s) for s in _strings(v)] for k, v in _table(data.get("dependency-groups")).items()}
    )
    poetry = _table(_table(data.get("tool")).get("poetry"))
    runtime += [_named(k, v) for k, v in _table(poetry.get("dependencies")).items() if k.lower() != "python"]
    dev = [_named(k, v) for k, v in _table(poetry.get("dev-dependencies")).items()]
    for group, body in _table(poetry.get("group")).items():
        groups[group] = [_named(k, v) for k, v in _table(_table(body).get("dependencies")).items()]
    backend = _table(data.get("build-system")).get("build-backend")
    return {
        "runtime": _deps(runtime),
        "dev": _deps(dev),
        "groups": _groups(groups),
        "build_backend": backend if isinstance(backend, str) else None,
    }


def _parse_requirements(text: str) -> dict[str, Any]:
    deps = []
    for raw in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line or line.startswith("-") or "://" in line or line.startswith((".", "/")):
            continue  # options (-r, -e, --hash...), URLs and local paths name no package
        dep = _requirement(line)
        if dep.name:
            deps.append(dep)
    return {"runtime": _deps(deps)}


def _parse_package_json(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    groups = {
        k: [_named(n, v) for n, v in _table(data.get(k)).items()]
        for k in ("peerDependencies", "optionalDependencies")
    }
    return {
        "runtime": _deps(_named(n, v) for n, v in _table(data.get("dependencies")).items()),
        "dev": _deps(_named(n, v) for n, v in _table(data.get("devDependencies")).items()),
        "groups": _groups(groups),
    }


def _parse_cargo(text: str) -> dict[str, Any]:
    data = tomllib.loads(text)
    runtime = _table(data.get("dependencies")) or _table(_table(data.get("workspace")).get("dependencies"))
    return {
        "runtime": _deps(_named(k, v) for k, v in runtime.items()),
        "dev": _deps(_named(k, v) for k, v in _table(data.get("dev-dependencies")).items()),
        "groups": _groups(
            {"build": [_named(k, v) for k, v in _table(data.get("build-dependencies")).items()]}
        ),
    }


def _parse_go_mod(text: str) -> dict[str, Any]:
    direct, indirect, in_block = [], 0, False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("require ("):
            in_block = True
            continue
        if in_block and line.startswith(")"):
            in_block = False
            continue
        if not in_block and not line.startswith("require "):
            continue
        match = _GO_REQUIRE.match(line.removeprefix("require "))
        if match is None:
            continue
        if match.group(3):
            indirect += 1
        else:
            direct.append(Dependency(name=match.group(1), spec=match.group(2)))
    return {"runtime": _deps(direct), "indirect": indirect}


def _parse_setup_cfg(text: str) -> dict[str, Any]:
    config = configparser.ConfigParser(interpolation=None)
    config.read_string(text)
    runtime = config.get("options", "install_requires", fallback="")
    extras = config["options.extras_require"] if config.has_section("options.extras_require") else {}
    return {
        "runtime": _deps(_requirement(s) for s in runtime.splitlines() if s.strip()),
        "groups": _groups(
            {k: [_requirement(s) for s in v.splitlines() if s.strip()] for k, v in extras.items()}
        ),
    }


_PARSERS = MappingProxyType(
    {
        "pyproject.toml": _parse_pyproject,
        "package.json": _parse_package_json,
        "cargo.toml": _parse_cargo,
        "go.mod": _parse_go_mod,
        "setup.cfg": _parse_setup_cfg,
    }
)


def _requirement(text: str) -> Dependency:
    """A PEP 508 string: the name and the version part, without extras or environment markers."""
    match = _REQUIREMENT.match(text.split(";", 1)[0])
    if match is None:
        return Dependency(name="")
    return Dependency(name=match.group(1), spec=match.group(3).strip().strip("()").replace(" ", "")[:40])


def _named(name: str, value: Any) -> Dependency:
    """A dependency given as ``name = spec`` (Poetry, Cargo, npm): spec is a string or a table."""
    if isinstance(value, str):
        spec = value
    elif isinstance(value, Mapping):
        found = next((k for k in ("version", "path", "git", "workspace") if k in value), None)
        spec = str(value[found]) if found == "version" else (found or "")
    else:
        spec = ""
    spec = "" if spec == "*" else spec
    return Dependency(name=str(name), spec=spec.strip()[:40])


def _deps(items: Iterable[Dependency]) -> tuple[Dependency, ...]:
    return tuple(d for d in items if d.name)


def _groups(groups: Mapping[str, list[Dependency]]) -> tuple[tuple[str, tuple[Dependency, ...]], ...]:
    return tuple((name, _deps(deps)) for name, deps in groups.items() if _deps(deps))


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# What a dependency is known for, by normalised name (lower case, "_" as "-"); Go paths without /vN.
_NOTABLE_DEPENDENCIES = MappingProxyType(
    {
        **dict.fromkeys(("django", "flask", "fastapi", "starlette", "tornado", "sanic", "aiohttp"), "web"),
        **dict.fromkeys(
            ("express", "koa", "next", "nuxt", "@nestjs/core", "actix-web", "axum", "rocket"), "web"
        ),
        **dict.fromkeys(
            ("github.com/gin-gonic/gin", "github.com/labstack/echo", "github.com/gofiber/fiber"), "web"
        ),
        **dict.fromkeys(("requests", "httpx", "urllib3", "axios", "reqwest", "hyper"), "http"),
        **dict.fromkeys(
            ("pytest", "hypothesis", "jest", "mocha", "vitest", "github.com/stretchr/testify"), "testing"
        ),
        **dict.fromkeys(
            ("click", "typer", "rich", "clap", "commander", "yargs", "github.com/spf13/cobra"), "cli"
        ),
        **dict.fromkeys(("tokio", "async-std", "trio", "anyio"), "async"),
        **dict.fromkeys(
            ("react", "vue", "svelte", "@angular/core", "gradio", "streamlit", "tailwindcss"), "ui"
        ),
        **dict.fromkeys(("numpy", "pandas", "scipy", "polars", "pydantic"), "data"),
        **dict.fromkeys(("torch", "tensorflow", "scikit-learn", "transformers", "jax", "keras"), "ml"),
        **dict.fromkeys(
            ("sqlalchemy", "peewee", "prisma", "typeorm", "diesel", "sqlx", "gorm.io/gorm"), "orm"
        ),
        **dict.fromkeys(
            ("webpack", "vite", "esbuild", "rollup", "typescript", "setuptools", "hatchling"), "build"
        ),
        **dict.fromkeys(("eslint", "prettier", "ruff", "black", "mypy", "flake8", "pylint"), "lint"),
        **dict.fromkeys(("uvicorn", "gunicorn"), "server"),
        **dict.fromkeys(("serde", "serde-json", "protobuf"), "serialization"),
        **dict.fromkeys(("openai", "anthropic", "langchain", "llama-index"), "llm"),
        **dict.fromkeys(("grpcio", "google.golang.org/grpc", "tonic"), "rpc"),
    }
)


def notable_dependencies(manifests: Iterable[Manifest]) -> list[tuple[str, str]]:
    """(name as written, category) of the well-known dependencies, sorted by name, each once."""
    found: dict[str, tuple[str, str]] = {}
    for manifest in manifests:
        for dep in manifest.all_dependencies():
            key = re.sub(r"/v\d+$", "", dep.name.lower().replace("_", "-"))
            category = _NOTABLE_DEPENDENCIES.get(key)
            if category is not None and key not in found:
                found[key] = (dep.name, category)
    return sorted(found.values(), key=lambda item: item[0].lower())


# ========================================================================================= evidence


@dataclass(frozen=True, kw_only=True)
class _Evidence:
    """The successful results for one repository, by kind (the latest of each wins)."""

    repo: RepoRef
    info: RepoInfo | None = None
    tree: FileTree | None = None
    languages: Languages | None = None
    commits: CommitList | None = None
    listings: Mapping[str, DirListing] = field(default_factory=dict)
    files: Mapping[str, FileContent] = field(default_factory=dict)
    attempted: frozenset[str] = frozenset()  # tools called for this repository, whatever the outcome
    gaps: tuple[str, ...] = ()  # stale and degraded results, described


def _gather(repo: RepoRef, results: Sequence[ToolResult], words: _Words) -> _Evidence:
    latest: dict[type, Any] = {}
    listings: dict[str, DirListing] = {}
    files: dict[str, FileContent] = {}
    gaps: dict[str, None] = {}  # an ordered set
    attempted: set[str] = set()
    for result in (r for r in results if _belongs(r, repo)):
        attempted.add(result.tool)
        gap = _gap(result, words)
        if gap:
            gaps[gap] = None
        value = result.value if result.ok else None
        if isinstance(value, DirListing):
            listings[value.path] = value
        elif isinstance(value, FileContent):
            if value.path not in files or (value.start_line or 1) == 1:  # the first page says most
                files[value.path] = value
        elif isinstance(value, RepoInfo | Languages | CommitList) or (
            isinstance(value, FileTree) and not value.path
        ):
            latest[type(value)] = value
    return _Evidence(
        repo=repo,
        info=latest.get(RepoInfo),
        tree=latest.get(FileTree),
        languages=latest.get(Languages),
        commits=latest.get(CommitList),
        listings=listings,
        files=files,
        attempted=frozenset(attempted),
        gaps=tuple(gaps),
    )


def _belongs(result: ToolResult, repo: RepoRef) -> bool:
    if result.repo is not None:
        return result.repo.key() == repo.key()
    owner, name = result.arguments.get("owner"), result.arguments.get("repo")
    return f"{owner}/{name}".lower() == repo.key()


def _gap(result: ToolResult, words: _Words) -> str | None:
    what = _call_label(result)
    if result.stale:
        return words.stale_item.format(what)
    if result.degraded:
        return words.degraded_item.format(what, _plain(result.error or words.unknown, limit=120))
    return None


def _call_label(result: ToolResult) -> str:
    path = result.arguments.get("path")
    owner, name = result.arguments.get("owner"), result.arguments.get("repo")
    where = f" {_plain(f'{owner}/{name}')}" if owner and name else ""
    return f"{_code(result.tool)}{where}" + (f" {_code(str(path))}" if path else "")


# ============================================================================================ facts

Finding = tuple[str, str]  # (kind, sentence); the kind selects the recommendation


@dataclass(frozen=True, kw_only=True)
class _Activity:
    count: int
    first: datetime | None
    last: datetime | None
    authors: tuple[tuple[str, int], ...]  # most commits first, then by name
    has_more: bool

    @property
    def span_days(self) -> float | None:
        if self.first is None or self.last is None:
            return None
        return (self.last - self.first).total_seconds() / 86400

    @property
    def per_week(self) -> float | None:
        span = self.span_days
        return self.count / (span / 7) if span and span >= 1 else None


@dataclass(frozen=True, kw_only=True)
class _Facts:
    """What the evidence shows for one repository. ``None`` = unknown; ``()`` = known to be absent."""

    evidence: _Evidence
    paths: tuple[str, ...]  # every file path known (tree, or root and folder listings)
    dirs: tuple[str, ...]
    root_complete: bool  # the root folder is fully known, so an absence there is a fact
    tree_complete: bool
    manifests: tuple[Manifest, ...]
    readme: str | None
    license_files: tuple[str, ...] | None
    ci: tuple[str, ...] | None
    tests_dir: str | None
    test_files: int | None
    docs_dir: str | None
    activity: _Activity | None
    large_files: tuple[tuple[str, int], ...]

    @property
    def link_base(self) -> str | None:
        """``https://github.com/OWNER/REPO/blob/REF/`` for a GitHub repository, else None."""
        info = self.evidence.info
        if info is None or not info.html_url or not info.html_url.startswith("https://github.com/"):
            return None
        ref = info.default_branch or (self.evidence.tree.ref if self.evidence.tree else None) or "HEAD"
        return f"https://github.com/{quote(info.full_name, safe='/')}/blob/{quote(ref, safe='/')}/"


def _facts(evidence: _Evidence) -> _Facts:
    tree, root = evidence.tree, evidence.listings.get("")
    if tree is not None:
        paths = tuple(sorted(e.path for e in tree.entries if e.type != "dir"))
        dirs = tuple(sorted(e.path for e in tree.entries if e.type == "dir"))
        root_complete = tree_complete = not tree.truncated
    else:
        listed = [e for listing in evidence.listings.values() for e in listing.entries]
        paths = tuple(sorted(e.path for e in listed if e.type != "dir"))
        dirs = tuple(sorted(e.path for e in listed if e.type == "dir"))
        root_complete, tree_complete = root is not None and not root.truncated, False
    top_files = [p for p in paths if "/" not in p]
    readme = next((p for p in sorted(top_files, key=_readme_rank) if notable_role(p) == "readme"), None)
    licenses = tuple(p for p in top_files if re.match(r"(?i)(license|licence|copying)\b", p))
    test_dirs = [d for d in dirs if d.rsplit("/", 1)[-1] in _TEST_DIRS]
    test_files = sum(1 for p in paths if _TEST_FILE.search(p.rsplit("/", 1)[-1]) or _under(p, test_dirs))
    sizes = {e.path: e.size or 0 for e in tree.entries} if tree is not None else {}
    large = sorted(((p, s) for p, s in sizes.items() if s >= LARGE_FILE_BYTES), key=lambda x: -x[1])
    return _Facts(
        evidence=evidence,
        paths=paths,
        dirs=dirs,
        root_complete=root_complete,
        tree_complete=tree_complete,
        manifests=tuple(_manifests(evidence)),
        readme=readme,
        license_files=licenses if licenses or root_complete else None,
        ci=_ci(paths, dirs, evidence, complete=tree_complete),
        tests_dir=next((name for name in _TEST_DIRS if name in dirs), test_dirs[0] if test_dirs else None),
        test_files=test_files if test_files or tree_complete else None,
        docs_dir=next((d for d in ("docs", "doc", "documentation") if d in dirs), None),
        activity=_activity(evidence.commits),
        large_files=tuple(large[:3]),
    )


def _manifests(evidence: _Evidence) -> Iterable[Manifest]:
    for path, content in sorted(evidence.files.items()):
        if notable_role(path) != "manifest":
            continue
        if content.text is None:
            yield Manifest(path=path, status="invalid", detail=content.kind)
        else:
            yield parse_manifest(path, content.text, partial=content.truncated)


def _ci(
    paths: Sequence[str], dirs: Sequence[str], evidence: _Evidence, *, complete: bool
) -> tuple[str, ...] | None:
    found = tuple(p for p in paths if notable_role(p) == "ci")
    if found or complete:
        return found
    root = evidence.listings.get("")
    if root is None or root.truncated:
        return None
    if ".github" not in dirs or ".github/workflows" in evidence.listings:
        return found  # the root shows no .github folder, or its workflows folder was listed
    return None


def _activity(commits: CommitList | None) -> _Activity | None:
    if commits is None or commits.empty_repository:
        return None
    dates = [d for d in (_date(c.date) for c in commits.commits) if d is not None]
    authors = Counter(c.author or "" for c in commits.commits)  # "" = unknown author
    return _Activity(
        count=len(commits.commits),
        first=min(dates, default=None),
        last=max(dates, default=None),
        authors=tuple(sorted(authors.items(), key=lambda kv: (-kv[1], kv[0]))),
        has_more=commits.has_more,
    )


def _strengths(facts: _Facts, words: _Words) -> list[str]:
    ev, out = facts.evidence, []
    if facts.ci:
        out.append(words.s_ci.format(_names([_link(facts, p) for p in facts.ci], words)))
    if facts.tests_dir:
        count = sum(1 for p in facts.paths if p.startswith(f"{facts.tests_dir}/"))
        out.append(words.s_tests.format(_code(f"{facts.tests_dir}/"), _files(count, words)))
    elif facts.test_files:
        out.append(words.s_test_files.format(_files(facts.test_files, words)))
    license_id = ev.info.license if ev.info else None
    if license_id:
        out.append(words.s_license.format(_plain(license_id)))
    elif facts.license_files:
        out.append(words.s_license_file.format(_names([_link(facts, p) for p in facts.license_files], words)))
    readme = ev.files.get(facts.readme or "")
    if readme is not None and (readme.total_lines or 0) >= 20:
        out.append(words.s_readme.format(_link(facts, readme.path), readme.total_lines))
    if facts.docs_dir:
        out.append(words.s_docs.format(_code(f"{facts.docs_dir}/")))
    act = facts.activity
    if act and act.per_week and act.per_week >= 1 and act.first and act.last:
        week = f"{act.per_week:.1f}"
        out.append(words.s_activity.format(act.count, _day(act.first), _day(act.last), week, _day(act.last)))
    if act and len(act.authors) >= 3:
        out.append(words.s_contributors.format(len(act.authors)))
    return out


def _risks(facts: _Facts, words: _Words) -> list[Finding]:
    """What the data shows to be missing or worrying; an absence only when it was checkable."""
    ev = facts.evidence
    gaps = [("data", words.r_data.format(words.semi.join(ev.gaps)))] if ev.gaps else []
    if (ev.commits is not None and ev.commits.empty_repository) or (
        ev.tree is not None and ev.tree.empty_repository
    ):
        return [("empty", words.r_empty), *gaps]
    out: list[Finding] = []
    if ev.info is not None and ev.info.archived:
        out.append(("archived", words.r_archived))
    if facts.license_files == () and not (ev.info and ev.info.license):
        out.append(("no_license", words.r_no_license))
    if facts.ci == ():
        out.append(("no_ci", words.r_no_ci))
    if facts.test_files == 0 and not facts.tests_dir:
        out.append(("no_tests", words.r_no_tests))
    if facts.root_complete and facts.readme is None and facts.paths:
        out.append(("no_readme", words.r_no_readme))
    readme = ev.files.get(facts.readme or "")
    if readme is not None and readme.total_lines is not None and readme.total_lines < 10:
        out.append(("short_readme", words.r_short_readme.format(readme.total_lines)))
    act = facts.activity
    if act and act.count >= 2 and len(act.authors) == 1 and act.authors[0][0]:
        who = _plain(act.authors[0][0] or words.unknown)
        out.append(("single_author", words.r_single_author.format(act.count, who)))
    if facts.large_files:
        big = [_link(facts, p) + words.paren.format(f"{s / 1048576:.1f} MB") for p, s in facts.large_files]
        out.append(("large_files", words.r_large_files.format(words.sep.join(big))))
    checks = (("license", facts.license_files), ("ci", facts.ci), ("tests", facts.test_files))
    unchecked = [words.checks[name] for name, known in checks if known is None]
    if unchecked:
        out.append(("unchecked", words.r_unchecked.format(words.sep.join(unchecked))))
    return [*out, *gaps]


# ========================================================================================== writing


def write_report(
    *,
    scope: Sequence[RepoRef],
    question: str,
    results: Sequence[ToolResult],
    language: Language = "en",
    degraded_reasons: Sequence[str] = (),
    writer_note: str | None = None,
) -> str:
    """The report as Markdown: a level-1 title, the sections of :mod:`~agent_core.agent.prompts` as
    level-2 headings in order (each repository under its own level-3 heading when there are several,
    plus a side-by-side table), and a final "Data sources" section listing every call."""
    words = ZH if language == "zh" else EN
    facts = [_facts(_gather(repo, results, words)) for repo in scope]
    several = len(facts) > 1
    names = _plain(", ".join(repo.full_name for repo in scope))
    out = [f"# {(words.title_many if several else words.title_one).format(names)}", ""]
    out += _preface(facts, question, degraded_reasons, writer_note, words)
    renderers = (
        _overview,
        _tech_stack,
        _structure,
        _development,
        _strengths_section,
        _risks_section,
        _advice,
    )
    for title, render in zip(words.sections, renderers, strict=True):
        out += [f"## {title}", ""]
        if several and render is _overview:
            out += _comparison(facts, words)
        for fact in facts:
            if several:
                out += [f"### {_plain(fact.evidence.repo.full_name)}", ""]
            out += [*render(fact, words), ""]
    out += [f"## {words.data_sources}", "", *_sources(results, words)]
    return "\n".join(out).rstrip() + "\n"


def _preface(
    facts: Sequence[_Facts], question: str, reasons: Sequence[str], note: str | None, words: _Words
) -> list[str]:
    out: list[str] = []
    # The loop passes its own description of stale/degraded calls; without it, describe them here.
    gaps = [_plain(r, limit=200) for r in reasons] or list(
        dict.fromkeys(g for f in facts for g in f.evidence.gaps)
    )
    if gaps:
        out += [f"> {words.warning.format(words.semi.join(gaps))}", ""]
    if note:
        out += [f"> ℹ {_plain(note, limit=500)}", ""]
    if question.strip():
        out += [words.question.format(_plain(question, limit=300)), ""]
    return out


def _overview(facts: _Facts, words: _Words) -> list[str]:
    ev, info = facts.evidence, facts.evidence.info
    description = info.description if info else None
    readme = ev.files.get(facts.readme or "")
    summary = readme_summary(readme.text) if readme is not None and readme.text else None
    notes = []
    if info is not None and info.renamed_from:
        notes.append(words.renamed.format(_code(info.renamed_from), _code(info.full_name)))
    if info is not None and info.archived:
        notes.append(words.archived)
    if info is not None and info.fork:
        notes.append(words.is_fork)
    return _blocks(
        [words.no_info] if info is None and "get_repo_info" in ev.attempted else [],
        [words.description.format(_plain(description, limit=300) if description else words.unknown)],
        [words.from_readme.format(_link(facts, readme.path), _inline(summary))] if readme and summary else [],
        [f"- {label}{words.colon}{value}" for label, value in _key_facts(facts, words)],
        notes,
    )


def _key_facts(facts: _Facts, words: _Words) -> list[tuple[str, str]]:
    info = facts.evidence.info
    unknown = words.unknown

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    topics = info.topics if info else None
    rows = [
        (words.primary_language, _plain(_primary_language(facts) or unknown)),
        (words.stars, number(info.stars if info else None)),
        (words.forks, number(info.forks if info else None)),
        (words.open_issues, number(info.open_issues if info else None)),
        (words.license, _license_text(facts, words)),
        (words.default_branch, _code(info.default_branch) if info and info.default_branch else unknown),
        (words.created, _iso_day(info.created_at if info else None, unknown)),
        (words.last_push, _iso_day(info.pushed_at if info else None, unknown)),
        (
            words.topics,
            unknown if topics is None else _names([_code(t) for t in topics], words) or words.none,
        ),
    ]
    if info is not None and info.homepage:
        rows.append((words.homepage, _code(info.homepage)))
    return rows


def _tech_stack(facts: _Facts, words: _Words) -> list[str]:
    ev = facts.evidence
    manifests = [
        words.manifest_line.format(_link(facts, m.path), _manifest_text(m, words)) for m in facts.manifests
    ]
    unread = [_link(facts, p) for p in facts.paths if notable_role(p) == "manifest" and p not in ev.files]
    none_found = not manifests and not unread and (ev.tree is not None or facts.root_complete)
    notable = [
        _code(name) + words.paren.format(words.categories[category])
        for name, category in notable_dependencies(facts.manifests)
    ]
    tooling = [_link(facts, p) for p in facts.paths if notable_role(p) in ("build", "container")]
    return _blocks(
        [words.languages.format(_languages(ev, words))],
        [words.manifests, *manifests] if manifests else [],
        [words.unread_manifests.format(_names(unread, words))] if unread else [],
        [words.no_manifests] if none_found else [],
        [words.notable.format(_names(notable, words))] if notable else [],
        [words.tooling.format(_names(tooling, words))] if tooling else [],
    )


def _manifest_text(manifest: Manifest, words: _Words) -> str:
    if manifest.status == "unparsed":
        return words.unparsed
    if manifest.status == "invalid":
        return words.invalid.format(_plain(manifest.detail or words.unknown, limit=120))
    parts = []
    if manifest.runtime:
        parts.append(words.runtime_deps.format(len(manifest.runtime), _deps_text(manifest.runtime, words)))
    if manifest.dev:
        parts.append(words.dev_deps.format(len(manifest.dev), _deps_text(manifest.dev, words)))
    if manifest.groups:
        groups = [
            _code(name) + words.paren.format(_deps_text(deps, words, cap=10))
            for name, deps in manifest.groups
        ]
        parts.append(words.groups.format(words.sep.join(groups)))
    if manifest.indirect:
        parts.append(words.indirect.format(manifest.indirect))
    if manifest.build_backend:
        parts.append(words.build_backend.format(_code(manifest.build_backend)))
    if manifest.partial:
        parts.append(words.partial)
    return words.semi.join(parts) or words.no_deps


_DIR_ROLES = MappingProxyType(
    {
        **dict.fromkeys(("src", "lib"), "source"),
        **dict.fromkeys(_TEST_DIRS, "tests"),
        **dict.fromkeys(("docs", "doc"), "docs"),
        **dict.fromkeys(("examples", "example"), "examples"),
        **dict.fromkeys(("scripts", "tools"), "tooling"),
        ".github": "github",
        **dict.fromkeys(("benchmarks", "bench"), "benchmarks"),
        **dict.fromkeys(("assets", "static"), "assets"),
    }
)
_MAX_TOP_DIRS = 30


def _structure(facts: _Facts, words: _Words) -> list[str]:
    tree = facts.evidence.tree
    if tree is not None and tree.empty_repository:
        return [words.empty_repo]
    if tree is None:
        return _listings(facts, words)
    top_dirs = [d for d in facts.dirs if "/" not in d]
    dir_lines = []
    for name in top_dirs[:_MAX_TOP_DIRS]:
        count = sum(1 for p in facts.paths if p.startswith(f"{name}/"))
        role = _DIR_ROLES.get(name.lower())
        dir_lines.append(
            words.top_dir.format(_code(f"{name}/"), _files(count, words), words.roles[role] if role else "—")
        )
    if len(top_dirs) > _MAX_TOP_DIRS:
        dir_lines.append(f"- …{words.more.format(len(top_dirs) - _MAX_TOP_DIRS)}")
    top_files = [_code(p) for p in facts.paths if "/" not in p]
    notable = _notable_files(facts, words)
    return _blocks(
        [words.counts.format(tree.files, tree.dirs)],
        dir_lines,
        [words.top_files.format(_names(top_files, words))] if top_files else [],
        [words.notable_files.format(notable)] if notable else [],
        [words.truncated] if tree.truncated else [],
    )


def _listings(facts: _Facts, words: _Words) -> list[str]:
    """Without a tree: what the folder listings show, or that nothing is known."""
    listings = facts.evidence.listings
    if "" not in listings:
        return [words.no_tree]
    root = listings[""]
    out = [
        words.root_only.format(
            _names([_code(e.name + ("/" if e.type == "dir" else "")) for e in root.entries], words)
            or words.none
        )
    ]
    for path, listing in sorted(listings.items()):
        if path:
            names = _names([_code(e.name) for e in listing.entries], words, cap=10) or words.none
            out += ["", words.listing.format(_code(f"{path}/"), names)]
    return out


def _notable_files(facts: _Facts, words: _Words) -> str:
    by_role: dict[str, list[str]] = {}
    for path in facts.paths:
        role = notable_role(path)
        if role is not None:
            by_role.setdefault(role, []).append(path)
    order = ("readme", "license", "manifest", "ci", "container", "docs", "build")
    parts = [
        f"{words.roles[role]}{words.colon}{_names([_link(facts, p) for p in by_role[role]], words, cap=8)}"
        for role in order
        if role in by_role
    ]
    return words.semi.join(parts)


def _development(facts: _Facts, words: _Words) -> list[str]:
    ev, act = facts.evidence, facts.activity
    if ev.commits is None:
        return [words.commits_failed if "get_commits" in ev.attempted else words.not_examined]
    if act is None or act.count == 0:
        return [words.no_commits]
    out = [
        f"- {words.last_commit.format(_day(act.last) if act.last else words.unknown)}",
        f"- {words.first_commit.format(_day(act.first) if act.first else words.unknown)}",
    ]
    span = act.span_days
    sample = words.sample.format(act.count)
    if span is not None:
        sample += words.same_day if span < 1 else words.span.format(round(span))
    out.append(f"- {sample}")
    if act.per_week is not None:
        out.append(f"- {words.cadence.format(f'{act.per_week:.1f}')}")
    top = [_plain(name or words.unknown) + words.paren.format(count) for name, count in act.authors[:5]]
    out.append(f"- {words.authors.format(_names(top, words, cap=5))}")
    if act.has_more:
        out.append(f"- {words.has_more}")
    commits = ev.commits.commits[:5]
    out += ["", words.latest]
    for commit in commits:
        who = _plain(commit.author) if commit.author else words.unknown
        out.append(f"- {_iso_day(commit.date, words.unknown)} — {_plain(commit.message, limit=100)} — {who}")
    return out


def _strengths_section(facts: _Facts, words: _Words) -> list[str]:
    return [f"- {s}" for s in _strengths(facts, words)] or [words.no_strengths]


def _risks_section(facts: _Facts, words: _Words) -> list[str]:
    return [f"- {text}" for _kind, text in _risks(facts, words)] or [words.no_risks]


def _advice(facts: _Facts, words: _Words) -> list[str]:
    kinds = dict.fromkeys(kind for kind, _text in _risks(facts, words))
    return [f"- {words.recommend[kind]}" for kind in kinds if kind in words.recommend] or [
        words.no_recommendations
    ]


def _comparison(facts: Sequence[_Facts], words: _Words) -> list[str]:
    header = [words.aspect, *(f.evidence.repo.full_name for f in facts)]
    columns = [_table_column(f, words) for f in facts]
    rows = [[label, *(column[i] for column in columns)] for i, label in enumerate(words.table_rows)]
    lines = [_row(header), "|" + "---|" * len(header), *(_row(row) for row in rows)]
    return [words.side_by_side, "", *lines, ""]


def _table_column(facts: _Facts, words: _Words) -> list[str]:
    info, tree, act = facts.evidence.info, facts.evidence.tree, facts.activity
    unknown = words.unknown

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    if info is not None and info.license:
        license_id = info.license
    else:
        license_id = unknown if facts.license_files is None else words.none
        license_id = facts.license_files[0] if facts.license_files else license_id
    ci = _presence(facts.ci, len(facts.ci or ()), words)
    if facts.tests_dir:
        tests = words.yes_which.format(f"{facts.tests_dir}/")
    else:
        tests = _presence(facts.test_files, facts.test_files, words)
    return [
        _shorten(info.description, 80) if info and info.description else unknown,
        _primary_language(facts) or unknown,
        license_id,
        number(info.stars if info else None),
        number(info.forks if info else None),
        _day(act.last) if act and act.last else unknown,
        ci,
        tests,
        number(tree.files if tree else None),
    ]


def _presence(found: object, detail: object, words: _Words) -> str:
    """A table cell for something that is there ("yes (detail)"), absent ("no") or unknown (None)."""
    if found is None:
        return words.unknown
    return words.yes_which.format(detail) if found else words.no


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_plain(cell) for cell in cells) + " |"


def _sources(results: Sequence[ToolResult], words: _Words) -> list[str]:
    if not results:
        return [words.no_calls]
    out = []
    for result in results:
        if result.stale:
            mark = words.mark_stale
        elif result.degraded:
            mark = words.mark_degraded
        else:
            mark = words.mark_ok if result.ok else words.mark_failed
        line = f"- {mark} · {_call_label(result)}"
        if result.memo:
            line += f" ({words.mark_memo})"
        if result.error and (result.stale or not result.ok):
            line += f" — {_plain(result.error, limit=160)}"
        out.append(line)
    return out


def _languages(evidence: _Evidence, words: _Words) -> str:
    if evidence.languages is None:
        primary = evidence.info.language if evidence.info else None
        said = f"{words.primary_language}{words.colon}{_plain(primary)}" if primary else None
        return words.unknown + words.paren.format(said) if said else words.unknown
    total = sum(evidence.languages.bytes_by_language.values())
    if not total:
        return words.no_languages
    ranked = sorted(evidence.languages.bytes_by_language.items(), key=lambda kv: (-kv[1], kv[0]))
    return _names([f"{_plain(lang)} {100 * n / total:.1f}%" for lang, n in ranked], words, cap=10)


def _primary_language(facts: _Facts) -> str | None:
    ev = facts.evidence
    if ev.info is not None and ev.info.language:
        return ev.info.language
    if ev.languages is not None and ev.languages.bytes_by_language:
        return max(ev.languages.bytes_by_language.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return None


def _license_text(facts: _Facts, words: _Words) -> str:
    info = facts.evidence.info
    if info is not None and info.license:
        return _plain(info.license)
    if facts.license_files:
        return _names([_link(facts, p) for p in facts.license_files], words)
    return words.none if facts.license_files == () else words.unknown


# ======================================================================================= README text

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_RULE = re.compile(r"^[=\-~^#*`_+]{3,}$")
_BLOCK_START = ("#", "|", ">", "..", "- ", "* ", "+ ", "<h1", "<h2", "<h3", "<img", "<picture", "<a ", "<br")


def readme_summary(text: str, *, limit: int = README_CHARS) -> str | None:
    """The first real paragraph of a README (Markdown or reStructuredText), as plain text.

    Headings, badges, images, HTML, code blocks, tables, lists and quotes are skipped; links keep
    their text; emphasis markers and HTML tags are dropped. Cut at ``limit`` characters on a word.
    The result is still untrusted text: render it with :func:`_inline`.
    """
    text = re.sub(r"<!--.*?(-->|$)", " ", text, flags=re.DOTALL)
    text = re.sub(r"(?is)<(script|style)\b.*?(</\1\s*>|$)", " ", text)
    text = _FENCE.sub(" ", text)
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        if not lines or lines[0].lower().startswith(_BLOCK_START) or any(_RULE.match(line) for line in lines):
            continue
        prose = _clean_inline(" ".join(lines))
        letters = sum(c.isalpha() for c in prose)
        if letters >= 15 or (letters >= 6 and re.search(r"[\u3400-\u9fff]", prose)):
            return _shorten(prose, limit)
    return None


def _clean_inline(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\](\([^)]*\)|\[[^\]]*\])", " ", text)  # images
    text = re.sub(r"\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])", r"\1", text)  # links keep their text
    text = re.sub(r"<[^>]*>", " ", text)  # any remaining tag
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(\S[^*]*?)\*(?![\w*])", r"\1", text)
    return " ".join(text.split())


# ======================================================================================== escaping

_ESCAPED = re.compile(r"([\\`*_\[\]|#~>])")
_EVENT_ATTRIBUTE = re.compile(r"(?i)\b(on[a-z]+)(\s*)=")
# A backtick ends a code span and a table splits on "|"; "<" is fine ("<1" in a version) unless it
# could start a tag: markup is never emitted, even where a renderer would show it literally.
_UNSAFE_IN_CODE = re.compile(r"[`|]|<[A-Za-z/!?]")


def _plain(text: str, *, limit: int | None = None) -> str:
    """Untrusted text as inert Markdown prose: one line, Markdown syntax escaped, no HTML tag can
    form (``<`` becomes ``&lt;``), and ``onerror=``-like text neutralised (``=`` as ``&#61;``)."""
    text = re.sub(r"\s+", " ", text)
    if limit is not None:
        text = _shorten(text, limit)
    text = _ESCAPED.sub(r"\\\1", text).replace("<", "&lt;")
    return _EVENT_ATTRIBUTE.sub(r"\1\2&#61;", text)


def _code(text: str) -> str:
    """A code span when ``text`` cannot break out of one (or carry HTML), else escaped prose."""
    text = " ".join(text.split())
    if not text or _UNSAFE_IN_CODE.search(text) or _EVENT_ATTRIBUTE.search(text):
        return _plain(text)
    return f"`{text}`"


def _inline(text: str) -> str:
    """README prose: its code spans kept as code spans, everything else escaped."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(
        _code(p[1:-1]) if len(p) > 2 and p[0] == p[-1] == "`" else _plain(p) for p in parts
    ).strip()


def _link(facts: _Facts, path: str) -> str:
    """A file cited: a link to its page on GitHub, or just the path for a local repository."""
    base = facts.link_base
    if base is None:
        return _code(path)
    return f"[{_code(path)}]({base}{quote(path, safe='/')})"


# ========================================================================================= helpers


def _names(items: Sequence[str], words: _Words, *, cap: int = MAX_NAMES) -> str:
    """Already-rendered items joined, the tail replaced by "and N more"."""
    shown = words.sep.join(items[:cap])
    return shown + words.more.format(len(items) - cap) if len(items) > cap else shown


def _deps_text(deps: Sequence[Dependency], words: _Words, *, cap: int = MAX_NAMES) -> str:
    return _names([_code(d.text()) for d in deps], words, cap=cap)


def _files(count: int, words: _Words) -> str:
    return words.files[0 if count == 1 else 1].format(count)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(",;:") + "…"


def _date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # comparable with aware ones


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _iso_day(value: str | None, unknown: str) -> str:
    moment = _date(value)
    return _day(moment) if moment is not None else unknown


def _readme_rank(path: str) -> tuple[int, str]:
    low = path.lower()
    return (0 if low.endswith(".md") else 1 if "." not in low else 2, path)


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(path.startswith(f"{folder}/") for folder in folders)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _blocks(*blocks: list[str]) -> list[str]:
    """Markdown blocks separated by one blank line; empty blocks left out."""
    out: list[str] = []
    for block in blocks:
        if block:
            out += [*([""] if out else []), *block]
    return out
