"""命令行追踪的中文用语（agent_core/top/terminal.py）。"""

from __future__ import annotations

from types import MappingProxyType

TERMINAL = MappingProxyType(
    {
        "cli_planner": "离线规划器",
        "cli_start": "▶ 正在用 {model} 分析 {targets}",
        "cli_scope": "  范围：{label}（{kind}）",
        "cli_scope_file": "文件",
        "cli_scope_folder": "目录",
        "cli_question": "  问题：{question}",
        "cli_estimate": "  预计费用：${low:.4f}-{high:.4f}（预算上限 {budget:,} 个 token，{as_of} 的价格{prices}）",
        "cli_report_rule": "── 报告 ──",
        "cli_writing": "✍ 正在撰写报告…",
        "cli_turn_rule": "── 第 {turn} 轮 ──",
        "cli_retry": "   ↻ {tool}：第 {attempt} 次尝试失败（{reason}）；{delay:.2f} 秒后重试",
        "cli_next": "  下一步：{hint}",
        "cli_diagram": "🗺 {repo} 的架构图：{made}，{count} 个组件{why}",
        "cli_diagram_model": "由模型提出",
        "cli_diagram_tree": "根据文件树生成",
        "cli_attempts": "{count} 次尝试",
        "cli_breaker": "⚡ 熔断器 {breaker}：{old} → {new}（{reason}{extra}）",
        "cli_next_probe": "；{seconds:.0f} 秒后试探",
        "cli_degraded": "（降级）",
        "cli_done": (
            "✔ 完成{flag}：{turns} 轮，{calls} 次工具调用，{requests} 次 GitHub 请求，{hits} 次缓存命中，"
            "{tokens} 个 token{cost}，{seconds:.1f} 秒"
        ),
        "cli_cached": "（其中 {count} 个已缓存）",
        "cli_prices_of": "（{as_of} 的价格）",
        "cli_cost_local": "  费用：本地：不收费",
        "cli_cost_by_price": "  按价格计费：",
        "cli_bytes": "{count:,} 字节",
        "cli_lines": "第 {start}-{end} 行，共 {total} 行",
        "cli_cut_at": "已截断：从第 {line} 行继续",
        "cli_listing": "{files:,} 个文件，{dirs:,} 个目录",
        "cli_listing_cut": "截断于 1,000 项",
        "cli_stars": "{count:,} 星",
        "cli_renamed": "原名 {name}",
        "cli_archived": "已归档",
        "cli_commits": "{authors:,} 位作者的 {commits:,} 次提交",
        "cli_newest": "最新 {day}",
        "cli_tree_files": "{count:,} 个文件",
        "cli_tree_own": "项目自身 {own:,} 个（{vendored:,} 个为第三方代码）",
        "cli_tree_tests": "{packages:,} 个包中的 {tests:,} 个测试文件",
        "cli_tree_cut": "GitHub 截断了这棵树：至少 {count:,} 个文件",
        "cli_reading": "正在读取简报：{total:,} 个 token",
        "cli_reading_part": "正在读取简报：{done:,} / {total:,} 个 token（{share:.0%}）",
        "cli_reading_eta": "，按每秒 {rate:.0f} 个 token 约还需 {eta:.0f} 秒",
        "cli_reading_about": "正在读取简报：约 {done:,} / {total:,} 个 token（{share:.0%}，估计）",
        "cli_so_far": "，已用 {elapsed:.0f} 秒",
        "cli_writing_unseen": "正在撰写完成后才显示的内容（工具调用）：已用 {elapsed:.0f} 秒",
    }
)
