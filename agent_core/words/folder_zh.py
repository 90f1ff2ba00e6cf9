"""文件夹报告（``/tree/<ref>/<folder>`` 链接）如何区分文件夹自身与所在仓库的事实（中文）。"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

FOLDER: Mapping[str, str] = MappingProxyType(
    {
        "folder_description": "**仓库 {} 的描述：** {}",
        "folder_repo_facts": "仓库 {} 整体的情况：",
        "folder_primary_language": "本文件夹的主要语言",
        "folder_repo_languages": "整个仓库：{}",
        "folder_commits": "以下提交是改动过 {} 的提交（按其路径筛选的历史）。",
        "folder_tests_elsewhere": "**存放在文件夹之外的测试：** {}。",
        "s_project_tests": "它所属项目的测试位于 {}。",
        "folder_project_tests": "**测试：** 位于它所属项目的测试目录 {}。",
        "folder_is_tests": "**测试：** 本文件夹即测试目录（{}）。",
        "s_is_tests": "本文件夹存放测试：{}（{}）。",
        "folder_repo_tests": "**测试：** 按常见约定本文件夹内未见测试；仓库的测试位于 {}。",
        "s_repo_tests": "仓库的测试位于 {}。",
        "s_tests_elsewhere": "本文件夹的测试存放在文件夹之外：{}。",
    }
)
