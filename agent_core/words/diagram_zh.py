"""What the architecture diagram says in Chinese: where it comes from, its roles and its arrows."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DIAGRAM: Mapping[str, str] = MappingProxyType(
    {
        "diagram_drawn_by_tree": "由应用根据文件树和已读文件的导入关系绘制",
        "diagram_drawn_by_model": "由模型提议，每个路径都已对照文件树核对",
        "diagram_at_commit": "，提交 {}",
        "diagram_none": "没有架构图：未读取仓库的文件树。",
        "diagram_package": "代码包",
        "diagram_entry": "入口",
        "diagram_imports": "导入",
        "diagram_tests": "测试",
        "diagram_runs": "运行",
        "diagram_documents": "说明",
        "diagram_uses": "使用",
        "diagram_starts": "启动",
        "diagram_part_of": "属于",
        "diagram_cut": "未完整列出（文件树被截断）",
        "notice_diagram_waiting": "仍在等待模型绘制 {repo} 的架构图：已过 {seconds:,} 秒。",
    }
)
