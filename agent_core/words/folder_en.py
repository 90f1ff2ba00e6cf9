"""How a folder's report (a ``/tree/<ref>/<folder>`` URL) tells the folder's own facts from its
repository's, in English."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

FOLDER: Mapping[str, str] = MappingProxyType(
    {
        "folder_description": "**Description of the repository {}:** {}",
        "folder_repo_facts": "Of the repository {} as a whole:",
        "folder_primary_language": "Primary language of this folder",
        "folder_repo_languages": "the whole repository: {}",
        "folder_commits": "The commits below are those that touched {} (the history filtered by its path).",
        "folder_tests_elsewhere": "**Tests kept outside the folder:** {}.",
        "s_project_tests": "The tests of the project it belongs to are in {}.",
        "folder_project_tests": "**Tests:** in the test folder of the project it belongs to, {}.",
        "folder_is_tests": "**Tests:** this folder is a test folder ({}).",
        "s_is_tests": "This folder holds tests: {} ({}).",
        "folder_repo_tests": "**Tests:** none in this folder by the usual conventions; the repository keeps tests in {}.",
        "s_repo_tests": "The repository keeps tests in {}.",
        "s_tests_elsewhere": "Tests for this folder are kept outside it: {}.",
    }
)
