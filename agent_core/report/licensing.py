"""What one repository's licence is, from everything read: the metadata's licence (GitHub's detection, or a
local repository's licence files), the ``license`` field of the root manifests, and each root licence file
read (detected one by one); of a folder's run, the folder's own licence files and the repository root's. Held as one SPDX expression (:class:`~agent_core.sources.licenses.LicenseFinding`),
so "MIT OR Apache-2.0" makes "MIT" and "Apache-2.0" both true. Pure functions over
:class:`~agent_core.report.facts.Facts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.report.facts import Facts
from agent_core.sources.licenses import LicenseFinding, combine, detect_license, is_license_file


@dataclass(frozen=True, kw_only=True)
class ProjectLicense:
    """``finding``: what the statements say together (None: no statement names a known licence).
    ``complete``: nothing read leaves room for another licence, so a licence outside it is contradicted."""

    finding: LicenseFinding | None
    complete: bool


def project_license(facts: Facts) -> ProjectLicense:
    """The repository's licence from what was read; see the module docstring."""
    info = facts.evidence.info
    files = facts.evidence.files
    declared = [(m.path, m.license) for m in facts.manifests if "/" not in m.path and m.license]
    licence_files = [p for p in facts.paths if "/" not in p and is_license_file(p)]
    licence_files += list(facts.evidence.license_outside)  # a folder's run: the root's, as "../../LICENSE"
    detected = {p: detect_license(files[p].text or "") for p in licence_files if p in files}
    metadata = info.license if info is not None else None
    # The project's own declaration first: its expression is kept as written when it holds the others.
    finding = combine([*declared, ("metadata", metadata), *detected.items()])
    files_known = bool(licence_files) and all(detected.get(p) for p in licence_files)
    if finding is None:
        return ProjectLicense(finding=None, complete=False)
    declared_known = any(path in finding.sources for path, _ in declared)
    by_metadata_alone = "metadata" in finding.sources and len(licence_files) <= 1
    return ProjectLicense(finding=finding, complete=declared_known or files_known or by_metadata_alone)
