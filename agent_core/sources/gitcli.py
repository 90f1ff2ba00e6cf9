"""Running the git CLI safely against one repository, and parsing ``git ls-tree`` records.

How git runs: ``asyncio.create_subprocess_exec`` (never a shell) in its own process group, with
``-c core.quotepath=off``, NUL-separated output wherever paths appear (decoded as UTF-8; a name that
is not UTF-8 shows U+FFFD), literal pathspecs, and an environment stripped of inherited ``GIT_*``
variables (they could point git at another repository) plus ``GIT_TERMINAL_PROMPT=0``,
``GIT_CONFIG_NOSYSTEM=1`` and ``LC_ALL=C``. Cancelling a call kills git's process group.

:class:`GitCli` is the one place where git's complaints become our errors (:meth:`GitCli.failure`):
a missing executable is a :class:`~agent_core.errors.ConfigurationError`, a directory that is not a
repository (or not ours to read) an :class:`~agent_core.errors.InvalidTargetError`, anything else an
:class:`~agent_core.errors.UpstreamError`.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import signal
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent_core.errors import AgentCoreError, ConfigurationError, InvalidTargetError, UpstreamError
from agent_core.offload import outliving
from agent_core.sources.models import EntryType

_LOG = logging.getLogger(__name__)

_SYMLINK_MODE = "120000"
_DISCARD_CHUNK = 64 * 1024


def _read_back(sink: IO[bytes]) -> bytes:
    sink.seek(0)
    return sink.read()


@dataclass(frozen=True, kw_only=True)
class Blob:
    """The beginning of a blob (``data``, at most the cap asked for) and its whole ``size``."""

    data: bytes
    size: int

    @property
    def complete(self) -> bool:
        return len(self.data) == self.size


@dataclass(frozen=True, kw_only=True)
class LsTreeEntry:
    """One line of ``git ls-tree -l -z``."""

    mode: str
    object_type: str  # blob, tree or commit (a submodule's gitlink)
    oid: str
    size: int | None  # blobs only
    path: str

    @property
    def type(self) -> EntryType:
        return entry_type(self.mode, self.object_type)


@dataclass(frozen=True, kw_only=True)
class GitResult:
    """How one git run ended: its exit status, raw stdout and stderr decoded as UTF-8."""

    returncode: int
    stdout: bytes
    stderr: str


class GitCli:
    """Runs ``git`` (the executable named by ``git``) with ``-C root``; ``label`` names the repository
    in error messages. Building one runs nothing and cannot fail."""

    def __init__(self, root: Path, *, git: str = "git", label: str) -> None:
        self._root = root
        self._git = git
        self._label = label
        self.commands = 0  # git processes started by this instance (see counting())
        # The child needs PATH and HOME (global config, e.g. safe.directory); inherited GIT_* variables
        # (GIT_DIR, GIT_CONFIG_*...) could redirect or reconfigure git, so they are dropped.
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        self._env.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_LITERAL_PATHSPECS="1",
            GIT_OPTIONAL_LOCKS="0",
            LC_ALL="C",
        )

    def counting(self) -> GitCli:
        """The same runner with its own count of git processes, for one source call."""
        twin = copy.copy(self)
        twin.commands = 0
        return twin

    async def _spawn(self, argv: list[str], **streams: Any) -> asyncio.subprocess.Process:
        """Start git in its own process group, so that killing the group also kills whatever git started.

        asyncio starts the process before ``create_subprocess_exec`` returns it (it still connects the
        pipes); a cancellation in between kills only git itself, and its children run on, orphaned. So
        the start is shielded: a caller cancelled meanwhile leaves the start to :func:`_reap`, which
        kills the whole group once the process is known."""
        starting = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *argv, env=self._env, process_group=0 if os.name == "posix" else None, **streams
            )
        )
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            outliving(_reap(starting))
            raise
        except OSError as exc:
            raise ConfigurationError(
                f"cannot run the git executable {self._git!r}", hint="install git or configure its path"
            ) from exc

    async def run(self, args: Sequence[str], *, stdin: bytes | None = None) -> GitResult:
        """Run git in the repository; never raises for a git failure (see :meth:`output`).

        git writes its output to an unnamed temporary file, read back in a worker thread: a 100,000-entry
        ``ls-tree`` is megabytes, and reading them from a pipe is thousands of callbacks on the event
        loop that every other visitor's page waits behind."""
        self.commands += 1
        argv = [self._git, "-C", str(self._root), "-c", "core.quotepath=off", *args]
        with tempfile.TemporaryFile() as sink:
            proc = await self._spawn(
                argv,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=sink,
                stderr=asyncio.subprocess.PIPE,
            )
            try:
                _, err = await proc.communicate(stdin)
            finally:
                await _end(proc)  # cancelled (or failed) while git was still running: killed
            out = await asyncio.to_thread(_read_back, sink)
        return GitResult(
            returncode=proc.returncode if proc.returncode is not None else -1,
            stdout=out,
            stderr=err.decode("utf-8", errors="replace"),
        )

    async def output(self, args: Sequence[str], *, stdin: bytes | None = None) -> bytes:
        """Run git and return its stdout; a failure becomes a typed error."""
        result = await self.run(args, stdin=stdin)
        if result.returncode != 0:
            raise self.failure(args, result)
        return result.stdout

    async def blobs(self, oids: Sequence[str], *, max_bytes: int) -> dict[str, Blob]:
        """The first ``max_bytes`` of several blobs (and their whole sizes) through one streamed
        ``git cat-file --batch``: the rest of a bigger blob is read from the pipe and dropped in small
        chunks, never held, so a 200 MB blob costs this process no more memory than a small one."""
        if not oids:
            return {}
        self.commands += 1
        argv = [self._git, "-C", str(self._root), "-c", "core.quotepath=off", "cat-file", "--batch"]
        proc = await self._spawn(
            argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            assert proc.stdin is not None
            assert proc.stdout is not None
            proc.stdin.write("".join(f"{o}\n" for o in oids).encode())
            await proc.stdin.drain()
            proc.stdin.close()
            return {oid: await self._read_blob(proc.stdout, max_bytes) for oid in oids}
        finally:
            await _end(proc)

    async def _read_blob(self, out: asyncio.StreamReader, max_bytes: int) -> Blob:
        header = (await out.readline()).decode("ascii", errors="replace").split()
        if len(header) != 3:  # "<oid> missing": a corrupt repository
            oid = header[0] if header else "?"
            raise UpstreamError(f"git object {oid} is missing in {self._label}")
        size = int(header[2])
        kept = await out.readexactly(min(size, max_bytes))
        left = size - len(kept)
        while left > 0:  # what is past the cap: read and dropped
            chunk = await out.read(min(left, _DISCARD_CHUNK))
            if not chunk:
                raise UpstreamError(f"git stopped in the middle of a blob in {self._label}")
            left -= len(chunk)
        await out.readexactly(1)  # content is followed by a newline
        return Blob(data=kept, size=size)

    async def submodule_urls(self, commit: str) -> dict[str, str]:
        """``{submodule path: url}`` from ``.gitmodules`` at ``commit``; empty when there is none."""
        result = await self.run(["config", "-z", "--blob", f"{commit}:.gitmodules", "--list"])
        if result.returncode != 0:
            return {}  # no (readable) .gitmodules: URLs stay unknown
        paths: dict[str, str] = {}
        urls: dict[str, str] = {}
        for item in result.stdout.decode("utf-8", errors="replace").split("\0"):
            key, _, value = item.partition("\n")
            name, _, variable = key.removeprefix("submodule.").rpartition(".")
            if not key.startswith("submodule.") or not name:
                continue
            if variable == "path":
                paths[name] = value
            elif variable == "url":
                urls[name] = value
        return {path: urls[name] for name, path in paths.items() if name in urls}

    def failure(self, args: Sequence[str], result: GitResult) -> AgentCoreError:
        """The one place where git's complaints become our errors."""
        detail = result.stderr.strip().splitlines()
        first = detail[0].removeprefix("fatal: ") if detail else f"exit status {result.returncode}"
        _LOG.debug("git %s failed (%s): %s", " ".join(args[:2]), result.returncode, result.stderr.strip())
        lowered = result.stderr.lower()
        if "not a git repository" in lowered or "cannot change to" in lowered:
            return InvalidTargetError(f"{self._root} is not a git repository")
        if "dubious ownership" in lowered:
            return InvalidTargetError(
                f"{self._root} belongs to another user and git refuses to read it",
                hint="add it to git's safe.directory setting",
            )
        return UpstreamError(f"git {args[0]} failed in local repository {self._label}: {first}")


LISTING_PIECE = 1 << 20  # bytes of a listing decoded and split in one call: ~5 ms holding the GIL


def ls_tree_records(out: bytes) -> Iterator[tuple[str, str, str, str, str]]:
    """Records of ``git ls-tree -z -l`` as ``(mode, type, oid, size or "-", path)``. Decoded and split
    in pieces of :data:`LISTING_PIECE` bytes cut at NULs (NUL and tab are never part of a UTF-8
    sequence, so each path decodes as it would alone): a 100,000-entry tree is a dozen decodes and
    splits, not 100,000 of each, and not one of each either: over a 12 MB listing those single calls
    held the GIL for 0.05 and 0.03 s, while another page's request waited. A blob git cannot read (a
    partial clone's missing object: git prints ``BAD``) has no size, like a submodule's "-". Records
    are split in a Python loop for the same reason, and yielded one by one as tuples of strings, which
    the collector stops tracking: 100,000 lists held at once were 100,000 more objects for each full
    collection to walk while it holds the GIL."""
    start = 0
    while start < len(out):
        stop = out.find(b"\0", start + LISTING_PIECE)
        stop = len(out) if stop < 0 else stop
        for record in out[start:stop].decode("utf-8", errors="replace").split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                fields = meta.split()
                if len(fields) == 4:
                    mode, kind, oid, size = fields
                    yield mode, kind, oid, size if size.isdigit() else "-", path
        start = stop + 1


def parse_ls_tree(out: bytes) -> list[LsTreeEntry]:
    """Records of ``git ls-tree -z -l``: ``<mode> <type> <oid> <size or ->\\t<path>\\0``."""
    return [
        LsTreeEntry(
            mode=mode, object_type=object_type, oid=oid, size=None if size == "-" else int(size), path=path
        )
        for mode, object_type, oid, size, path in ls_tree_records(out)
    ]


def entry_type(mode: str, object_type: str) -> EntryType:
    """:attr:`LsTreeEntry.type` of a record's mode and object type."""
    if object_type == "tree":
        return "dir"
    if object_type == "commit":
        return "submodule"
    return "symlink" if mode == _SYMLINK_MODE else "file"


async def _reap(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """End a git whose caller was cancelled while it started."""
    try:
        proc = await starting
    except Exception:  # noqa: BLE001 - it never started; the caller's error was already raised
        return
    await _end(proc)


async def _end(proc: asyncio.subprocess.Process) -> None:
    """Kill git's process group if git still runs (cancelled or failed meanwhile), and wait for its end."""
    if proc.returncode is None:
        _kill_group(proc)
    await proc.wait()


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except ProcessLookupError:
        pass  # already gone
