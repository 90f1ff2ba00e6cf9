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
    }
)
