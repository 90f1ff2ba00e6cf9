"""What the app says about a model turn it cut or stopped, in the report's language (beside the report,
in its data gaps: never inside the model's text); and the hint that tells a model a brief is not all
there is."""

from __future__ import annotations

from agent_core.words import Language

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


def beyond_brief(language: Language) -> str:
    """Said after the brief when the user asked a question: small models otherwise answer from the brief
    (or from memory) and never look further."""
    return _BEYOND_BRIEF[language]
