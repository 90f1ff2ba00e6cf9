"""The repository model: what each path of a tree is for, computed once per tree, in one place.

Roles (source, tests, docs, examples, vendored, generated, build, ci) by documented conventions
(:mod:`~agent_core.repomodel.conventions`: GitHub Linguist's rules and each language's test
conventions), ``.gitattributes`` overrides (:mod:`~agent_core.repomodel.attributes`), packages from
manifests and npm workspaces (:mod:`~agent_core.repomodel.packages`), CI systems
(:mod:`~agent_core.repomodel.ci`). :func:`build_repo_model` builds it in one pass over the entries;
:func:`model_of` memoises it per ``FileTree`` object, so the report, the brief, the trace's tree summary
and the diagram say the same counts without each recomputing them.

Imports only the ground floor and :mod:`agent_core.sources.models` (pinned by tests/test_layering.py).
"""

from agent_core.repomodel.attributes import Overrides, parse_gitattributes
from agent_core.repomodel.build import build_repo_model, role_by_convention
from agent_core.repomodel.ci import CI_DIRS, CI_FILES
from agent_core.repomodel.conventions import ROLES, Role, generated_name, vendored_name
from agent_core.repomodel.memo import derived, model_of
from agent_core.repomodel.model import (
    CiSystem,
    ConventionCount,
    FolderCount,
    RepoModel,
    RootContext,
    TestSummary,
    TopFolder,
)
from agent_core.repomodel.packages import Package, workspace_globs, workspace_member
from agent_core.repomodel.summary import tree_summary

__all__ = [
    "CI_DIRS",
    "CI_FILES",
    "ROLES",
    "CiSystem",
    "ConventionCount",
    "FolderCount",
    "Overrides",
    "Package",
    "RepoModel",
    "Role",
    "RootContext",
    "TestSummary",
    "TopFolder",
    "build_repo_model",
    "derived",
    "generated_name",
    "model_of",
    "parse_gitattributes",
    "role_by_convention",
    "tree_summary",
    "vendored_name",
    "workspace_globs",
    "workspace_member",
]
