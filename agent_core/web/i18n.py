"""The browser app's labels in English and Chinese: one dict per language and :func:`t` to look one up.

Only what the page itself says lives here (buttons, headings, status texts, table columns). Reports
follow the report-language setting of the core; repository content is never translated.
A key missing from a language falls back to English; a key missing everywhere is returned as is, so a
typo shows up on the page instead of crashing a handler.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Literal

UiLanguage = Literal["en", "zh"]
UI_LANGUAGES: Mapping[str, UiLanguage] = types.MappingProxyType({"English": "en", "中文": "zh"})

_EN: Mapping[str, str] = types.MappingProxyType(
    {
        "title": "Repo Analyst",
        "subtitle": "Paste a GitHub repository and watch an agent analyse it, step by step.",
        "target_label": "Repository URL(s), owner/repo, or a local path",
        "target_label_hosted": "Repository URL(s) or owner/repo",
        "target_placeholder": "https://github.com/pallets/flask",
        "question_label": "Question (optional)",
        "question_placeholder": "What is the architecture? Is it well maintained?",
        "analyze": "Analyze",
        "stop": "Stop",
        "examples": "Examples",
        "trace": "Trace",
        "report": "Report",
        "report_empty": "*The report appears here as it is written.*",
        "checked_title": "Checked by Repo Analyst, not by the model",
        "checked_pending": "*The key facts and the claim check appear here when the report is done.*",
        "checked_gaps": "Data gaps",
        "checked_claims": "Claims held against the observations",
        "checked_counts": "{verified} ✓ verified · {contradicted} ✗ contradicted · {unchecked} ? not checkable",
        "checked_observed": "observed:",
        "diagram_model": "🗺 Architecture diagram proposed by the model ({components} components, {attempts} call(s))",
        "diagram_tree": "🗺 Architecture diagram built from the tree ({components} components)",
        "diagram_dropped": "Paths not in the tree, dropped: {paths}",
        "download_report": "Download report.md",
        "download_trace": "Download trace.jsonl",
        "breakers": "Circuit breakers",
        "stats": "Run stats",
        "followup_label": "Follow-up question",
        "followup_placeholder": "Ask more about the same repository (available after a report)",
        "ask": "Ask",
        "chaos": "Chaos mode (this session only)",
        "chaos_enabled": "Inject GitHub faults",
        "chaos_fault_rate": "Fault rate (503s and timeouts)",
        "chaos_burst": "Trigger a 429 burst",
        "chaos_down": "Force a tool down",
        "chaos_none": "(none)",
        "chaos_note": (
            "Faults are injected where each tool call reaches its source (GitHub or a local repository), "
            "inside the retries and the circuit breaker, exactly where real failures happen."
        ),
        "chaos_off": "chaos: off",
        "chaos_armed": " ({count} rate-limited calls armed)",
        "chaos_on": "chaos: **on** · fault rate {rate}",
        "chaos_down_now": "`{tool}` forced down",
        "chaos_burst_next": "next {count} calls rate-limited",
        "chaos_injected": "{count} faults injected so far",
        "replay": "Replay a recorded run",
        "replay_choice": "Bundled recording",
        "replay_upload": "…or upload a trace (.jsonl)",
        "replay_speed": "Speed",
        "replay_button": "Replay",
        "export": "Export",
        "settings": "Settings",
        "provider": "Model provider",
        "model": "Model",
        "base_url": "Base URL",
        "api_key": "API key (kept in this browser session only)",
        "github_token": "GitHub token (kept in this browser session only)",
        "max_turns": "Max turns",
        "report_language": "Report language",
        "ui_language": "Interface language",
        "apply_settings": "Apply settings",
        "settings_applied": "Settings applied to this session.",
        "status_model": "model: {model} via {provider}",
        "status_planner": "offline planner (no API key)",
        "status_gh_auth": "GitHub: authenticated",
        "status_gh_anon": "GitHub: unauthenticated (60 requests/hour)",
        "status_gh_remaining": "{remaining} requests left, resets {reset}",
        "status_space_warning": "⚠️ no GitHub token on this Space: the shared 60 requests/hour run out fast",
        "status_running": "Running…",
        "status_done": "Done.",
        "status_degraded": "Done (degraded: some data could not be read).",
        "status_failed": "Failed: {message}",
        "status_stopped": "Stopped.",
        "status_replaying": "Replaying…",
        "status_replay_mode": "▶ replay of {name} (recorded with {model})",
        "status_replayed": "Replay finished.",
        "status_no_followup": "Run an analysis first: follow-ups continue its conversation.",
        "budget_exceeded": (
            "This session has used its {limit} runs for this hour; try again in {minutes} min."
        ),
        "tool_budget_exceeded": (
            "This visitor has used its {limit} tool calls for this hour; try again in {minutes} min."
        ),
        "run_in_progress": (
            "You already have an analysis running on this Space: wait for it to finish (or press Stop), "
            "then start the next one."
        ),
        "space_busy": "This Space is serving too many visitors right now; try again in {minutes} min.",
        "space_runs_exhausted": (
            "This Space has used its analyses for this hour; try again in {minutes} min, or paste your "
            "own API key and GitHub token in Settings."
        ),
        "space_tokens_exhausted": (
            "This Space has used its model tokens for this hour; try again in {minutes} min, or paste your "
            "own API key in Settings."
        ),
        "allowance": "left this hour: ",
        "allowance_visitor": "{runs} of your runs",
        "allowance_space_runs": "Space {runs} runs",
        "allowance_space_tokens": "{tokens} model tokens",
        "allowance_space_github": "{requests} GitHub requests",
        "stopped": "⏹ Stopped",
        "stopped_log": "stopped",
        "col_breaker": "breaker",
        "col_state": "state",
        "col_failures": "failures",
        "col_last_error": "last error",
        "col_next_probe": "next probe",
        "probe_due": "due",
        "source_github": "GitHub",
        "source_local": "local",
        "source_model": "model",
        "breaker_line": "⚡ {name} breaker: {old} → {new} ({reason})",
        "breaker_detail": "consecutive failures: {failures}",
        "breaker_next_probe": " · next probe in {seconds:.0f} s",
        "stat_turns": "Turns",
        "stat_tool_calls": "Tool calls",
        "stat_github_requests": "GitHub requests",
        "stat_cache_hits": "Cache hits",
        "stat_rate_limit": "Rate limit left",
        "stat_tokens": "Tokens in / out",
        "stat_cost": "Estimated cost",
        "stat_elapsed": "Elapsed",
        "stat_unknown": "—",
        "step": "Step",
        "report_step": "Writing the report",
        "retry_line": "↻ attempt {attempt} failed ({reason}); retrying in {delay:.2f}s",
        "failed": "❌ {message}",
    }
)

_ZH: Mapping[str, str] = types.MappingProxyType(
    {
        "title": "仓库分析助手",
        "subtitle": "粘贴一个 GitHub 仓库，逐步观看智能体如何分析它。",
        "target_label": "仓库地址、owner/repo 或本地路径",
        "target_label_hosted": "仓库地址或 owner/repo",
        "question_label": "问题（可选）",
        "question_placeholder": "它的架构是怎样的？维护得好吗？",
        "analyze": "分析",
        "stop": "停止",
        "examples": "示例",
        "trace": "执行过程",
        "report": "报告",
        "report_empty": "*报告会在生成时显示在这里。*",
        "checked_title": "由 Repo Analyst 核对，而非模型",
        "checked_pending": "*报告完成后，关键事实和核对结果显示在这里。*",
        "checked_gaps": "数据缺口",
        "checked_claims": "对照观察结果核对的说法",
        "checked_counts": "✓ 已核实 {verified} 条 · ✗ 矛盾 {contradicted} 条 · ? 无法核对 {unchecked} 条",
        "checked_observed": "观察到：",
        "diagram_model": "🗺 架构图由模型提议（{components} 个组件，{attempts} 次调用）",
        "diagram_tree": "🗺 架构图根据文件树绘制（{components} 个组件）",
        "diagram_dropped": "不在文件树中、已丢弃的路径：{paths}",
        "download_report": "下载 report.md",
        "download_trace": "下载 trace.jsonl",
        "breakers": "熔断器",
        "stats": "运行统计",
        "followup_label": "追问",
        "followup_placeholder": "继续询问同一个仓库（生成报告后可用）",
        "ask": "提问",
        "chaos": "混沌模式（仅本会话）",
        "chaos_enabled": "注入 GitHub 故障",
        "chaos_fault_rate": "故障率（503 与超时）",
        "chaos_burst": "触发一波 429",
        "chaos_down": "强制某个工具宕机",
        "chaos_none": "（无）",
        "chaos_note": "故障注入在每次工具调用到达数据源（GitHub 或本地仓库）的地方，位于重试与熔断器之内，正是真实故障发生的位置。",
        "chaos_off": "混沌模式：关闭",
        "chaos_armed": "（已预设 {count} 次限流调用）",
        "chaos_on": "混沌模式：**开启** · 故障率 {rate}",
        "chaos_down_now": "`{tool}` 已被强制宕机",
        "chaos_burst_next": "接下来 {count} 次调用将被限流",
        "chaos_injected": "已注入 {count} 个故障",
        "replay": "回放录制的运行",
        "replay_choice": "内置录制",
        "replay_upload": "……或上传一个 trace 文件（.jsonl）",
        "replay_speed": "速度",
        "replay_button": "回放",
        "export": "导出",
        "settings": "设置",
        "provider": "模型提供商",
        "model": "模型",
        "base_url": "接口地址",
        "api_key": "API 密钥（仅保存在本浏览器会话中）",
        "github_token": "GitHub 令牌（仅保存在本浏览器会话中）",
        "max_turns": "最大轮数",
        "report_language": "报告语言",
        "ui_language": "界面语言",
        "apply_settings": "应用设置",
        "settings_applied": "设置已应用到本会话。",
        "status_model": "模型：{model}（{provider}）",
        "status_planner": "离线规划器（未配置 API 密钥）",
        "status_gh_auth": "GitHub：已认证",
        "status_gh_anon": "GitHub：未认证（每小时 60 次请求）",
        "status_gh_remaining": "剩余 {remaining} 次请求，{reset} 重置",
        "status_space_warning": "⚠️ 此 Space 未配置 GitHub 令牌：共享的每小时 60 次请求很快会用完",
        "status_running": "运行中……",
        "status_done": "完成。",
        "status_degraded": "完成（降级：部分数据无法读取）。",
        "status_failed": "失败：{message}",
        "status_stopped": "已停止。",
        "status_replaying": "正在回放……",
        "status_replay_mode": "▶ 回放 {name}（录制时使用 {model}）",
        "status_replayed": "回放结束。",
        "status_no_followup": "请先运行一次分析：追问会延续那次对话。",
        "budget_exceeded": "本会话这一小时的 {limit} 次运行已用完；请 {minutes} 分钟后再试。",
        "tool_budget_exceeded": "这一小时的 {limit} 次工具调用已用完；请 {minutes} 分钟后再试。",
        "run_in_progress": "你在此 Space 上已有一个分析正在运行：请等它结束（或按停止）后再开始下一个。",
        "space_busy": "此 Space 当前访客过多；请 {minutes} 分钟后再试。",
        "space_runs_exhausted": "此 Space 这一小时的分析次数已用完；请 {minutes} 分钟后再试，或在设置中填入你自己的 API 密钥和 GitHub 令牌。",
        "space_tokens_exhausted": "此 Space 这一小时的模型 token 已用完；请 {minutes} 分钟后再试，或在设置中填入你自己的 API 密钥。",
        "allowance": "本小时剩余：",
        "allowance_visitor": "你的 {runs} 次运行",
        "allowance_space_runs": "Space {runs} 次运行",
        "allowance_space_tokens": "{tokens} 个模型 token",
        "allowance_space_github": "{requests} 次 GitHub 请求",
        "stopped": "⏹ 已停止",
        "stopped_log": "已停止",
        "col_breaker": "熔断器",
        "col_state": "状态",
        "col_failures": "失败次数",
        "col_last_error": "最近错误",
        "col_next_probe": "下次探测",
        "probe_due": "即将",
        "source_github": "GitHub",
        "source_local": "本地",
        "source_model": "模型",
        "breaker_line": "⚡ 熔断器 {name}：{old} → {new}（{reason}）",
        "breaker_detail": "连续失败：{failures} 次",
        "breaker_next_probe": " · {seconds:.0f} 秒后探测",
        "stat_turns": "轮数",
        "stat_tool_calls": "工具调用",
        "stat_github_requests": "GitHub 请求",
        "stat_cache_hits": "缓存命中",
        "stat_rate_limit": "剩余配额",
        "stat_tokens": "输入 / 输出 token",
        "stat_cost": "预估费用",
        "stat_elapsed": "耗时",
        "step": "步骤",
        "report_step": "撰写报告",
        "retry_line": "↻ 第 {attempt} 次尝试失败（{reason}）；{delay:.2f} 秒后重试",
        "failed": "❌ {message}",
    }
)

LABELS: Mapping[UiLanguage, Mapping[str, str]] = types.MappingProxyType({"en": _EN, "zh": _ZH})


def t(key: str, lang: str = "en", **values: object) -> str:
    """The label ``key`` in ``lang`` (English fallback), formatted with ``values`` when given."""
    table = LABELS.get(lang, _EN)  # type: ignore[call-overload]
    text = table.get(key) or _EN.get(key) or key
    return text.format(**values) if values else text


def ui_language(choice: str | None) -> UiLanguage:
    """A selector's value ("English", "中文", "en", "zh") as a language code; English otherwise."""
    if choice in ("en", "zh"):
        return choice  # type: ignore[return-value]
    return UI_LANGUAGES.get(choice or "", "en")
