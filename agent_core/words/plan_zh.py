"""What the app narrates in the trace before a model or the planner reads anything, in Chinese: the
offline planner's turns and the prefetch's, and how a :class:`~agent_core.words.Said` joins its parts."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PLAN: Mapping[str, str] = MappingProxyType(
    {
        "said_sentence_sep": "",
        "said_list_sep": "、",
        "said_clause_sep": "；",
        "said_and_sep": "，并",
        "plan_overview": "先概览 {repos}：元数据、完整文件树、语言和最近 {commits} 次提交，全部并行获取。",
        "plan_no_tree": "无法获取 {repo} 的文件树，改为列出其根目录。",
        "plan_step": "{parts:and}。",
        "plan_step_in": "在 {repo} 中{parts:and}。",
        "plan_reading": "读取 {groups:clause}",
        "plan_listing_first": "列出 {folders}",
        "plan_listing": "列出 {folders}",
        "plan_fetching_first": "获取放在 {folders} 中的测试",
        "plan_fetching": "获取放在 {folders} 中的测试",
        "plan_root_folder": "根目录",
        "plan_read_readme": "{files}",
        "plan_read_manifest": "清单文件 {files}",
        "plan_read_module": "主要模块 {files}",
        "plan_read_ci": "CI 配置 {files}",
        "plan_read_license": "许可证 {files}",
        "plan_read_attributes": "Linguist 覆盖规则 {files}",
        "plan_read_question": "为了{purpose}：{files}",
        "plan_question": "回答问题",
        "plan_question_about": "回答问题（{topics}）",
        "plan_quoted": "“{word}”",
        "notice_tool_limit": "已达到工具调用上限（{limit}）；跳过了 {skipped:,} 次调用。",
        "notice_diagram_asking": "正在请模型绘制 {repo} 的架构图（最多 {seconds:.0f} 秒，即本次运行剩余的时间；届时未答复则保留根据文件树绘制的图）。",
        "notice_draft_before_reads": "模型还没自己读文件就开始写报告；已在第一个标题处停下：先读文件。",
        "notice_calls_cut": "模型请求读取 {calls} 个文件后即被停下：它的时间现在只够这些，拿到结果后还可以再请求。",
        "notice_reads_time_up": "模型已读完所需文件，读取时间已到（本地模型的报告应在一分钟内开始）：它的下一次调用被搁置，并请它撰写报告。",
        "notice_use_tools": "模型还没查看任何内容就作答了；请它先使用一次工具。",
        "notice_cpu_budget": "停止探索：仓库处理的 CPU 预算（{seconds:.0f} CPU 秒）已用完。报告根据已收集的内容撰写。",
        "prefetch_overview": "汇集 {repos} 的基本信息：元数据、完整文件树和最近的提交，一次全部获取。",
        "prefetch_lookup": "沿路径向上查找仓库的许可证和 CI：{folders}。",
        "prefetch_lookup_manifest": "沿路径向上查找最近的清单文件、仓库的许可证和 CI：{folders}。",
        "prefetch_basics": "读取每次分析都需要的文件：{files}。",
    }
)
