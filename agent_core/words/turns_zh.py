"""What the app says about a model turn it cut or stopped, and what it says to the model, in Chinese."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

TURNS: Mapping[str, str] = MappingProxyType(
    {
        "check_reads_thought": "读取报告中的说法所依据的清单文件：{files}{more}。",
        "turn_cut": "模型从第 {line} 行开始重复自己，其余部分已截去",
        "turn_partial": "报告不完整：模型在写完之前被停止（达到运行时间限制，或其输出流中断）；它未写到的部分由应用根据观察结果补写",
        "turn_completed": "*模型在写完之前被停止；以下部分由应用根据观察结果补写。*",
        "to_model_beyond_brief": "上面的简报只包含基本信息（元数据、文件树、README 和清单文件）。如果问题需要其他内容（某个函数、某项配置、某个机制如何工作），请先对文件树中相关的文件调用 read_file，再根据读到的内容回答，并注明这些文件。",
        "to_model_report_request": "探索已停止（{reason}）。请立即根据已经获得的观察结果撰写最终报告，不要再调用工具；明确指出缺失的信息。",
        "to_model_use_tools": "你还没有调用任何工具，因此上面的回答无法核实。请先调用工具（例如 get_repo_info 和 get_file_tree）获取事实，再根据观察结果撰写报告。",
        "to_model_call_example": "要读取文件，只需回复下面这段 JSON（路径取自上面的文件树）：{call}",
        "to_model_call_path": "<文件树中的路径>",
        "brief_cut": "简报缩减到 {tokens:,} 个 token（整个首次请求约 {first:,} 个），以便按每秒 {speed:,.0f} 个 token（{how}）的速度在一分钟内开始作答：{what}",
        "brief_speed_measured": "实测",
        "brief_speed_assumed": "尚未实测，按预设估计",
        "brief_shortened": "{files} 被截短",
        "brief_left_out": "{files} 未收入",
        "brief_read_hint": "模型可用 read_file 读取。",
        "brief_list_sep": "，",
        "brief_part_sep": "；",
        "to_model_draft_tool_call": "你的回复只有 JSON：以文本形式写出的工具调用不会被执行，也不是报告。要读取内容，请按工具调用的方式调用提供给你的工具（{tools}）；要回答，请用 Markdown 写报告。",
        "to_model_draft_echo": "你的回复中 {lines} 行里有 {copied} 行是从上面的消息中照抄的：这不是报告。请根据工具返回的内容，用自己的话写报告。",
        "to_model_draft_repeated_block": "你的回复重复了相同的内容。每个部分只写一次。",
        "to_model_draft_from_memory": "你自己还没有读取任何文件，而你的草稿提到了本仓库中不存在的文件、链接或依赖。请先对想写的文件调用 read_file，再只根据工具返回的内容写报告。",
        "to_model_draft_no_reads": "在它成为报告之前：你自己还没有读取任何文件，而简报不包含源代码、测试和 CI 文件。请规划报告需要的 2 到 4 次读取（一个关键源文件、一个测试、一个 CI 工作流），对它们调用 read_file，然后写报告并注明读过的文件。",
        "to_model_draft_suggested": "文件树中值得读取的文件：{paths}。",
        "to_model_draft_close_reads": "现在只回复 read_file 调用（这些文件中的 2 到 4 个），不要写报告：例如用 {example} 调用 read_file。拿到结果后再写报告。",
        "to_model_draft_contradicted": "应用已将你的草稿与工具返回的内容核对；其中有些说法是错的。",
        "to_model_draft_missing_paths": "草稿引用的某些文件不在仓库的文件树中。",
        "to_model_draft_findings": "核对发现：",
        "to_model_draft_wrong": "- “{claim}”：观察结果显示 {observed}",
        "to_model_draft_missing": "- “{claim}”：仓库中没有",
        "to_model_draft_close": "请更正或删除这些内容，只引用存在的文件，然后回复完整的修订版报告（如需读取内容，可先调用工具）。",
        "to_model_draft_close_plain": "请回复完整的报告（如需读取内容，可先调用工具）。",
        "model_reason_repeats": "模型连续三轮重复已经做过的工具调用",
        "draft_revise": "应用检查了模型的草稿（{problems}），并退回一次请其修订",
        "draft_read_first": "模型没有自己读取任何文件就写了报告；已请它先读取一次",
        "draft_accepted": "修订之后：更正了 {corrected} 处说法，仍有 {left} 处被核对判定为错误",
        "draft_corrected": "已更正",
        "draft_still_wrong": "仍然错误",
        "draft_replaced": "模型的回复不能作为报告（{problems}）；报告由应用根据观察结果写成，保留了模型经核对属实的 {kept} 句话",
        "draft_problem_tool_call": "以文本写出的工具调用",
        "draft_problem_echo": "照抄提示",
        "draft_problem_repeated_block": "重复的内容",
        "draft_problem_from_memory": "凭记忆写成",
        "draft_problem_no_reads": "模型未读取任何文件",
        "draft_problem_contradicted": "核对判定为错误的说法",
        "draft_problem_missing_paths": "仓库中不存在的文件",
        "draft_replaced_reason": "模型的回复不是可用的报告（{problems}）",
        "draft_kept_heading": "模型草稿中经核对属实的句子",
        "draft_kept_note": "*引自模型的回复（该回复未被用作报告）；每句都含有应用根据观察结果核对过的说法。*",
    }
)
