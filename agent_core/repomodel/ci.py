"""Continuous integration systems, by the files and folders each one reads.

One table (:data:`CI_FILES` for files at the root, :data:`CI_DIRS` for folders whose content is the
configuration) covers GitHub Actions and the others a repository may use: GitLab CI, CircleCI, Azure
Pipelines, Jenkins, Travis CI, Buildkite, Cirrus CI, Prow, Tekton, Drone, AppVeyor, Woodpecker,
Bitbucket Pipelines, Semaphore, Google Cloud Build, and a ``.ci/`` folder of scripts.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: CI configuration files at the repository's root, by lower-cased name.
CI_FILES: Mapping[str, str] = MappingProxyType(
    {
        ".gitlab-ci.yml": "GitLab CI",
        ".gitlab-ci.yaml": "GitLab CI",
        "azure-pipelines.yml": "Azure Pipelines",
        "azure-pipelines.yaml": "Azure Pipelines",
        "jenkinsfile": "Jenkins",
        ".travis.yml": "Travis CI",
        ".travis.yaml": "Travis CI",
        ".cirrus.yml": "Cirrus CI",
        ".cirrus.yaml": "Cirrus CI",
        ".cirrus.star": "Cirrus CI",
        ".prow.yaml": "Prow",
        ".prow.yml": "Prow",
        ".drone.yml": "Drone",
        ".drone.yaml": "Drone",
        ".drone.star": "Drone",
        "appveyor.yml": "AppVeyor",
        ".appveyor.yml": "AppVeyor",
        "appveyor.yaml": "AppVeyor",
        ".woodpecker.yml": "Woodpecker",
        ".woodpecker.yaml": "Woodpecker",
        "bitbucket-pipelines.yml": "Bitbucket Pipelines",
        "cloudbuild.yaml": "Google Cloud Build",
        "cloudbuild.yml": "Google Cloud Build",
        "buildkite.yml": "Buildkite",
    }
)

#: Folders (paths from the root) whose files are CI configuration.
CI_DIRS: Mapping[str, str] = MappingProxyType(
    {
        ".github/workflows": "GitHub Actions",
        ".github/actions": "GitHub Actions",  # composite actions the workflows run
        ".gitlab/ci": "GitLab CI",
        ".circleci": "CircleCI",
        ".azure-pipelines": "Azure Pipelines",
        ".buildkite": "Buildkite",
        ".tekton": "Tekton",
        ".prow": "Prow",
        "prow": "Prow",
        ".woodpecker": "Woodpecker",
        ".semaphore": "Semaphore",
        ".ci": "CI scripts",
    }
)


def ci_file(lower_name: str) -> str | None:
    """The CI system a root-level file configures (``Jenkinsfile.release`` too), or None."""
    found = CI_FILES.get(lower_name)
    if found is None and lower_name.startswith("jenkinsfile"):
        return "Jenkins"
    return found
