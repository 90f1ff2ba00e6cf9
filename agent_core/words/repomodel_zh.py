"""How the report says what the repository model counts, in Chinese: files, tests, packages, CI, roles."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

REPOMODEL: Mapping[str, str] = MappingProxyType(
    {
        "model_total": "{} 个文件、{} 个目录",
        "model_at_least": "至少 {}",
        "model_of_which": "共 {0}，其中 {1}：项目自身的文件为 {2} 个。",
        "model_own": "{}",
        "model_all_own": "共 {}，全部为项目自身的文件。",
        "model_vendored_by_name": "{0:,} 个按文件名判定",
        "model_vendored_part": "{} 个为第三方代码（{}）",
        "model_generated_part": "{} 个为生成文件",
        "model_and_": "、",
        "model_tests": "{2} 个包中共有 {0} 个 {1} 文件",
        "model_tests_mixed": "{1} 个包中共有 {0} 个测试文件（{2}）",
        "model_tests_line": "**测试：** {}。",
        "model_no_tests": "**测试：** 按常见约定（`*_test.go`、`*.test.ts`、`test_*.py`、`tests` 目录…）未发现测试。",
        "model_tests_strength": "存在测试：{}。",
        "model_packages": "**代码包与模块：** {} 个（{}）。",
        "model_workspace": "其中 {} 个是 npm 工作区成员",
        "model_ci": "**CI：** {}。",
        "model_ci_system": "{}（{}）",
        "model_own_short": "自有 {}",
        "model_verb_one": "",
        "model_verb_many": "",
        "model_file_unit_one": "",
        "model_file_unit_many": "",
        "model_package_unit_one": "",
        "model_package_unit_many": "",
        "model_role_source": "源代码",
        "model_role_tests": "测试",
        "model_role_docs": "文档",
        "model_role_examples": "示例",
        "model_role_vendored": "第三方代码（非项目自身）",
        "model_role_generated": "生成文件",
        "model_role_build": "构建配置",
        "model_role_ci": "CI",
    }
)
