"""How the report says what the repository model counts, in English: files, tests, packages, CI, roles."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

REPOMODEL: Mapping[str, str] = MappingProxyType(
    {
        "model_total": "{0} {0!p:file|files} in {1} {1!p:folder|folders}",
        "model_at_least": "at least {}",
        "model_of_which": "{0}, of which {1}: {2} {3} the project's own.",
        "model_own": "{}",
        "model_all_own": "{}, all the project's own.",
        "model_vendored_by_name": "{0:,} {0!p:file|files} by name",
        "model_vendored_part": "{} vendored ({})",
        "model_generated_part": "{} generated",
        "model_and_": " and ",
        "model_tests": "{0} {1} {3} across {2} {4}",
        "model_tests_mixed": "{0} {3} across {1} {4} ({2})",
        "model_tests_line": "**Tests:** {}.",
        "model_no_tests": "**Tests:** none found by the usual conventions (`*_test.go`, `*.test.ts`, `test_*.py`, a `tests` folder…).",
        "model_tests_strength": "Tests are present: {}.",
        "model_packages": "**Packages and modules:** {} ({}).",
        "model_workspace": "{} of them members of the npm workspaces",
        "model_ci": "**CI:** {}.",
        "model_ci_system": "{} ({})",
        "model_own_short": "{} own",
        "model_verb_one": "is",
        "model_verb_many": "are",
        "model_file_unit_one": "file",
        "model_file_unit_many": "files",
        "model_package_unit_one": "package",
        "model_package_unit_many": "packages",
        "model_role_source": "source code",
        "model_role_tests": "tests",
        "model_role_docs": "documentation",
        "model_role_examples": "examples",
        "model_role_vendored": "vendored (not the project's own)",
        "model_role_generated": "generated",
        "model_role_build": "build configuration",
        "model_role_ci": "CI",
    }
)
