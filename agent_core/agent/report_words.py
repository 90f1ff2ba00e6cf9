"""Every label and sentence of the deterministic report, in English and in Chinese.

One :class:`Words` value per language (:data:`EN`, :data:`ZH`). Field names say where a text appears;
``{}`` fields are :meth:`str.format` templates, filled by :mod:`agent_core.agent.report` and
:mod:`agent_core.agent.report_facts`. A new text is one more field, which every table must then fill;
a new language is one more ``Words(...)`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agent_core.agent.prompts import SECTIONS_EN, SECTIONS_ZH


@dataclass(frozen=True, kw_only=True)
class Words:
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

EN = Words(
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

ZH = Words(
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
