"""How much a run read, in Chinese: the coverage ledger's sentence (report appendix, page stats, CLI)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

COVERAGE: Mapping[str, str] = MappingProxyType(
    {
        "coverage_read": "读取了项目自有的 {own:,} 个文件中的 {read:,} 个（{bytes_read} / {own_bytes}）",
        "coverage_read_bound": "读取了项目自有的至少 {own:,} 个文件中的 {read:,} 个（已读 {bytes_read}）",
        "coverage_read_only": "读取了 {read:,} 个文件（{bytes_read}）；未读取文件树，项目规模未知",
        "coverage_listed": "列出了 {count:,} 个文件夹",
        "coverage_listed_one": "列出了 1 个文件夹",
        "coverage_listed_none": "未列出文件夹",
        "coverage_never": "未读取其中任何内容：{names}",
        "coverage_more": "{names} 等另外 {more:,} 个",
        "coverage_all": "每个顶层文件夹都查看过",
        "coverage_sep": "；",
        "coverage_comma": "、",
        "coverage_end": "。",
        "coverage_repo": "{repo}：",
        "coverage_gitattributes_lines_capped": "`.gitattributes` 只读取了前 2,000 行",
        "coverage_gitattributes_pattern_too_long": "`.gitattributes` 中超过 256 个字符的模式未采用",
        "coverage_gitattributes_too_complex": "`.gitattributes` 的模式过多或过于复杂，无法一并匹配：其 Linguist 覆盖规则未采用",
    }
)
