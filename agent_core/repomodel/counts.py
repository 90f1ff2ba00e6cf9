"""Packages per ecosystem, and what each count leaves out.

A count of a repository's packages is only right with its scope: :func:`ecosystem_counts` says, beside
each ecosystem's packages, the package manifests it does not count (examples, test data: the model's
``set_aside``) and the unread manifests that may declare only a workspace (a ``pyproject.toml`` or
``Cargo.toml`` above other packages, :func:`~agent_core.repomodel.packages.packages_of`), so a report
says "47 .NET projects, not counting 17 in examples" and never states as a fact a count that only a read
would settle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent_core.repomodel.packages import Package

__all__ = ["EcosystemCount", "ecosystem_counts"]


@dataclass(frozen=True, kw_only=True)
class EcosystemCount:
    """How many packages one ecosystem has, how many of them are test packages and workspace members,
    and what the count leaves out: manifests in examples and in test data, and the paths of unread
    manifests that may declare only a workspace (or one more package)."""

    ecosystem: str
    packages: int
    tests: int = 0
    members: int = 0
    examples: int = 0
    fixtures: int = 0
    unread_roots: tuple[str, ...] = ()

    @property
    def leaves_out(self) -> bool:
        return bool(self.examples or self.fixtures or self.unread_roots)


def ecosystem_counts(
    packages: Iterable[Package], aside: Iterable[Package] = ()
) -> tuple[EcosystemCount, ...]:
    """Packages per ecosystem (most first, then by name), with their test packages, workspace members and
    what is left out; an ecosystem with nothing counted (only examples or test data) is not listed."""
    totals: dict[str, list[int]] = {}
    roots: dict[str, list[str]] = {}
    for package in packages:
        if package.uncounted == "unread_root":
            roots.setdefault(package.ecosystem, []).append(package.manifest)
            continue
        count = totals.setdefault(package.ecosystem, [0, 0, 0, 0, 0])
        count[0] += 1
        count[1] += package.test
        count[2] += package.member_of_workspace
    for package in aside:
        if (found := totals.get(package.ecosystem)) is not None:
            found[3 if package.uncounted == "examples" else 4] += 1
    return tuple(
        EcosystemCount(
            ecosystem=name,
            packages=n,
            tests=t,
            members=m,
            examples=x,
            fixtures=f,
            unread_roots=tuple(roots.get(name, ())),
        )
        for name, (n, t, m, x, f) in sorted(totals.items(), key=lambda kv: (-kv[1][0], kv[0]))
    )
