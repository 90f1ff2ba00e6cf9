"""What the app says about a model turn it cut or stopped, in the report's language (beside the report,
in its data gaps: never inside the model's text); and the hint that tells a model a brief is not all
there is."""

from __future__ import annotations

import json

from agent_core.agent.brief import Brief
from agent_core.agent.pace import BriefSize
from agent_core.report.words import Language

_CUT = {
    "en": "the model started repeating itself at line {line}; the rest was cut",
    "zh": "模型从第 {line} 行开始重复自己，其余部分已截去",
}
_PARTIAL = {
    "en": "partial report: the model was stopped before it finished (the run's time limit, or its stream "
    "stopped); the sections it did not reach were written by the app from the observations",
    "zh": "报告不完整：模型在写完之前被停止（达到运行时间限制，或其输出流中断）；"
    "它未写到的部分由应用根据观察结果补写",
}
_COMPLETED = {
    "en": "*The model was stopped before it finished; the sections below were written by the app from the "
    "observations.*",
    "zh": "*模型在写完之前被停止；以下部分由应用根据观察结果补写。*",
}


def cut_reason(line: int, language: Language) -> str:
    """ "the model started repeating itself at line 14; the rest was cut"."""
    return _CUT[language].format(line=line)


def partial_reason(language: Language) -> str:
    """Why a report is partial, for its data gaps."""
    return _PARTIAL[language]


def completed_note(language: Language) -> str:
    """The line before the sections the app added to a partial report."""
    return _COMPLETED[language]


_BEYOND_BRIEF = {
    "en": "The brief above holds only the basics (metadata, the file tree, the README and the manifests). "
    "If the request needs anything else (a function, a setting, how something works), first call read_file "
    "on the files the tree suggests, then answer from what you read and cite those files.",
    "zh": "上面的简报只包含基本信息（元数据、文件树、README 和清单文件）。如果问题需要其他内容"
    "（某个函数、某项配置、某个机制如何工作），请先对文件树中相关的文件调用 read_file，"
    "再根据读到的内容回答，并注明这些文件。",
}


_CALL_EXAMPLE = {
    "en": "To read a file, reply with only this JSON (the path taken from the tree above): {call}",
    "zh": "要读取文件，只需回复下面这段 JSON（路径取自上面的文件树）：{call}",
}


def beyond_brief(language: Language, repo: str | None = None) -> str:
    """Said after the brief when the user asked a question: small models otherwise answer from the brief
    (or from memory) and never look further. With ``repo`` ("owner/name"; for a small local model) it
    ends with the call to write, in the JSON small models write anyway."""
    if repo is None:
        return _BEYOND_BRIEF[language]
    owner, name = repo.split("/", 1)
    path = "<文件树中的路径>" if language == "zh" else "<a path from the tree>"
    call = json.dumps(
        {"name": "read_file", "arguments": {"owner": owner, "repo": name, "path": path}}, ensure_ascii=False
    )
    return f"{_BEYOND_BRIEF[language]}\n{_CALL_EXAMPLE[language].format(call=call)}"


_BRIEF_CUT = {
    "en": "Brief cut to {tokens:,} tokens (the whole first request about {first:,}) to start within a minute "
    "at {speed:,.0f} tokens/s ({how}): {what}",
    "zh": "简报缩减到 {tokens:,} 个 token（整个首次请求约 {first:,} 个），以便按每秒 {speed:,.0f} 个 token"
    "（{how}）的速度在一分钟内开始作答：{what}",
}
_SPEED_HOW = {
    "en": ("measured", "assumed until measured"),
    "zh": ("实测", "尚未实测，按预设估计"),
}
_BRIEF_LEFT = {
    "en": ("{files} shortened", "{files} left out", "the model can read them with read_file."),
    "zh": ("{files} 被截短", "{files} 未收入", "模型可用 read_file 读取。"),
}


def brief_cut(size: BriefSize, brief: Brief, *, first_request: int, language: Language) -> str:
    """ "Brief cut to 1,650 tokens (the whole first request about 2,400) to start within a minute at 40
    tokens/s (assumed until measured): README.md shortened, setup.cfg left out; the model can read them
    with read_file." """
    shortened, left_out, read = _BRIEF_LEFT[language]
    sep = "，" if language == "zh" else ", "
    semi = "；" if language == "zh" else "; "
    parts = [shortened.format(files=sep.join(brief.shortened))] if brief.shortened else []
    parts += [left_out.format(files=sep.join(brief.left_out))] if brief.left_out else []
    what = semi.join([*parts, read])
    return _BRIEF_CUT[language].format(
        tokens=size.tokens,
        first=first_request,
        speed=size.speed or 0,
        how=_SPEED_HOW[language][0 if size.measured else 1],
        what=what,
    )
