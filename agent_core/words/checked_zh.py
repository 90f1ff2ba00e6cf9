"""What the app says about a report's claims, in Chinese: the "Checked by Repo Analyst" panel, export and CLI."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

CHECKED: Mapping[str, str] = MappingProxyType(
    {
        "checked_title": "由 Repo Analyst 核对，而非模型",
        "checked_pending": "*报告完成后，关键事实和核对结果显示在这里。*",
        "checked_facts": "关键事实（来自工具的观察结果）",
        "checked_gaps": "数据缺口",
        "checked_claims": "对照观察结果核对的说法",
        "checked_counts": "✓ 已核实 {verified} 条 · ✗ 矛盾 {contradicted} 条 · ? 无法核对 {unchecked} 条",
        "checked_summary": "{claims}：{counts}",
        "checked_verified_detail": "{count} 条已核实的陈述",
        "checked_observed": "观察到：",
        "checked_none": "没有找到可以核对的说法。",
        "checked_head": "| | 说法 | 观察结果 |",
        "fact_stars": "星标",
        "fact_forks": "复刻",
        "fact_open_issues": "未解决的问题",
        "fact_license": "许可证",
        "fact_language": "主要语言",
        "fact_default_branch": "默认分支",
        "fact_last_commit": "最近提交",
    }
)
