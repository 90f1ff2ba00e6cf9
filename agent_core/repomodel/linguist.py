"""GitHub Linguist's path rules, asked of go-enry (its maintained Go port, ``import enry``), memoised.

Linguist decides vendored (``vendor.yml``), documentation (``documentation.yml``) and generated
(``generated.rb``) paths with regular expressions over the whole path. One enry call costs ~5-10 µs
(cgo and Go's regexp), so a 100,000-entry tree is never asked path by path: each rule is split into a
folder part and a name part.

- **Folders**: one call per distinct *folder key*, the folder's last two segments and whether it sits
  at the repository's root, at depth 1 or deeper: ``name/`` (root), ``parent/name/`` (depth 1, the
  whole path), ``_/parent/name/`` (deeper: ``_`` stands for "some folder", so ``^``-anchored rules such as
  ``^docs?/`` and ``^deps/`` do not fire below the root). A folder inherits what its parent is, so a
  rule matching any folder above it is seen there. Exact for every rule of one or two folder segments
  (``(^|/)node_modules/``, ``gradle/wrapper/``, ``Godeps/_workspace/``, ``docs?/_?(build|static)/``,
  ``vendor/github.com``...). Each rule file is asked of a key only when the key names one of its
  folders (:data:`VENDOR_FOLDERS`, :data:`DOC_FOLDERS`, :data:`GENERATED_FOLDERS`: ``vendor``,
  ``dist``, ``docs``, ``Pods``...), holds a dot or a part some rules match inside a name (``party``,
  ``vendor``): ``src/``, ``internal/api/`` are named by no rule.
- **Names**: one call per distinct file name, as ``name`` at the root and ``_/name`` below it (again so
  ``^rebar$`` fires at the root only), and each rule file only for names its rules can match
  (:func:`_asks`): a name without an extension or a dotfile; else vendor.yml for the extensions it names
  (:data:`VENDOR_EXTENSIONS`: ``.js``, ``.css``..., ``.d.ts``, and scripts by their stems:
  ``cpplint.py``, ``gradlew.bat``), generated.rb for
  its own (:data:`GENERATED_EXTENSIONS`: ``.map``, ``.lock``, ``.designer.cs``..., or ``lock`` in the
  name), documentation.yml for its stems (``README``, ``LICENSE``...). ``main.go`` or ``App.java`` is
  matched by no name rule.

Both gates may ask more than needed, never less: ``tests/test_linguist.py`` asks enry itself of the
rules' own examples (``jquery.js``, ``package-lock.json``, ``cpplint.py``, ``docs/_build/``...) and of
every name in this repository, and fails when a go-enry release adds a rule a gate would hide. In the
bench's 100,000-entry tree of 33 real repositories (31,000 distinct file names, 1,200 extensions, many
from Linguist's own samples) this leaves about 3,000 rule calls and 3,300 language calls: 0.1 s of CPU
the first time, none once memoised.

What the split misses, by design: rules joining a folder to a name further down, ``font-?awesome/.*\\.css``,
``[Bb]ourbon/.*\\.scss``, ``select2/.*\\.js``, ``flow-typed/.*\\.js``, ``extjs/.*\\.(js|xml|txt|html)``,
``\\.sqlx/query-.+\\.json`` (a name is asked without its folders), and three-segment ones such as
``[Cc]ode[Mm]irror/5.65/lib``: each names one bundled web library whose files are few, and nearly always
sits under a folder Linguist vendors already (``vendor/``, ``node_modules/``, ``static/``...). Linguist's
content rules (``isGeneratedGo``: "Code generated ... DO NOT EDIT", minified by line length) need the
file's text, which a tree does not have: they never fire here (see :mod:`conventions` for the names
that stand for them).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import enry

#: Extensions (lower-cased, the last one) that Linguist's *vendored* name rules name: web libraries
#: (``jquery.js``, ``bootstrap.css``, ``*.min.js``, ``*-vsdoc.js``: any name), editor files
#: (``.sublime-project``), and after another dot ``.d.ts`` (:data:`VENDOR_AFTER_DOTS`); scripts only by
#: the stems the rules name (:data:`SCRIPT_STEMS`: ``cpplint.py``, ``dotnet-install.sh``,
#: ``gradlew.bat``, ``config.guess``, ``erlang.mk``, ``proguard.pro``, ``run.n``, ``aclocal.m4``).
VENDOR_EXTENSIONS = frozenset(
    {"js", "css", "less", "scss", "sass", "styl", "dockerfile", "sublime-project", "sublime-workspace"}
    | {"ds_store", "osx", "framework"}
)
VENDOR_AFTER_DOTS = frozenset({"d.ts"})  # the last two extensions
SCRIPT_EXTENSIONS = frozenset({"py", "sh", "ps1", "bat", "cmd", "m4", "pro", "n", "guess", "sub", "mk"})
SCRIPT_STEMS = frozenset(
    {"cpplint", "fabfile", "dotnet-install", "gradlew", "mvnw", "activator", "config", "aclocal", "libtool"}
    | {"ltoptions", "ltsugar", "ltversion", "lt~obsolete", "erlang", "proguard", "proguard-rules", "run"}
)
#: Extensions Linguist's *generated* name rules name: Xcode's ``.nib``, ``.xcworkspacedata``,
#: ``.xcuserstate``, source maps, Delphi's ``_tlb.pas``, ``Cargo.toml.orig``, lock files
#: (``package-lock.json``, ``pnpm-lock.yaml``, ``.terraform.lock.hcl``); after another dot
#: (:data:`GENERATED_AFTER_DOTS`): ``.designer.cs``/``.vb``, ``.feature.cs``, ``.zep.c``/``.h``/``.php``.
GENERATED_EXTENSIONS = frozenset({"nib", "xcworkspacedata", "xcuserstate", "map", "pas", "orig", "lock"})
GENERATED_AFTER_DOTS = frozenset(
    {"designer.cs", "designer.vb", "feature.cs", "zep.c", "zep.h", "zep.php"}
)  # the last two extensions
#: and lock files by name in data formats (``package-lock.json``, ``npm-shrinkwrap.json``,
#: ``pnpm-lock.yaml``, ``.terraform.lock.hcl``; ``.pnp.cjs`` is a dotfile, asked as all are).
LOCK_EXTENSIONS = frozenset({"json", "yaml", "hcl"})
#: Linguist's documentation name rules, by the start of the lower-cased name (``(^|/)README(\.|$)``,
#: ``CHANGE(S|LOG)?``, ``CONTRIBUTING``, ``COPYING``, ``INSTALL``, ``LICEN[CS]E``, ``CITATION``).
DOC_STEMS = ("readme", "change", "contributing", "copying", "install", "licen", "citation")
#: The folder names (lower-cased) Linguist's folder rules name, by rule file; all its folder rules are
#: whole segments (``(^|/)node_modules/``, ``^[Dd]ocs?/``, ``gradle/wrapper/``, ``[Tt]ests?/fixtures/``,
#: ``Carthage/Build/``...) but for a few matched inside a name: ``(3rd|[Tt]hird)[-_]?[Pp]arty/``,
#: ``[Vv]+endor/``, ``__generated__/`` (:data:`VENDOR_FOLDER_PARTS`), dot folders (``.github/``,
#: ``.yarn/releases/``), ``*.xctemplate/``, ``*.imageset/``, ``*.framework``, all asked.
VENDOR_FOLDERS = frozenset(
    {"cache", "dependencies", "dist", "deps", "node_modules", "bower_components", "_workspace", "testdata"}
    | {"font-awesome", "fontawesome", "bourbon", "select2", "vendor", "vendors", "extern", "external"}
    | {"externals", "debian", "bootstrap-datepicker", "tiny_mce", "ace-builds", "mathjax", "codemirror"}
    | {"flow-typed", "admin_media", "env", "carthage", "sparkle", "wrapper", "extjs", "fixtures", "extdata"}
    | {"puphpet", "build", "_build", "theme", "_theme", "themes", "_themes", "template", "_template"}
    | {"templates", "_templates", "static", "_static"}  # docs?/_?(build|themes?|templates?|static)/
)
DOC_FOLDERS = frozenset(
    {"docs", "doc", "documentation", "groovydoc", "javadoc", "man", "examples", "demo", "demos", "sample"}
    | {"samples"}
)
GENERATED_FOLDERS = frozenset({"pods", "carthage", "node_modules", "vendor", "godeps", "htmlcov"})
VENDOR_FOLDER_SUFFIXES = (".xctemplate", ".imageset", ".framework")
VENDOR_FOLDER_PARTS = ("party", "vendor")
#: Parents whose children two-segment rules name: ``[Cc]ode[Mm]irror/(lib|mode...)``,
#: ``tiny_mce/(langs|plugins...)``, ``[Pp]ackages/Foo.1.2/``, ``Carthage/Build/``, ``vendor/github.com``.
VENDOR_PARENTS = frozenset({"codemirror", "tiny_mce", "packages"})
GENERATED_PARENTS = frozenset({"carthage", "vendor"})

_SOMEWHERE = "_/"  # a folder below the root that no rule names


class Says(NamedTuple):
    """What Linguist says of a folder or a name."""

    vendored: bool
    generated: bool
    documentation: bool


NOTHING = Says(False, False, False)


def folder_key(parent_path: str, name: str) -> str:
    """The path Linguist is asked for a folder ``name`` inside ``parent_path`` (see the module's doc)."""
    if not parent_path:
        return f"{name}/"
    if "/" not in parent_path:
        return f"{parent_path}/{name}/"
    return f"{_SOMEWHERE}{parent_path.rpartition('/')[2]}/{name}/"


@lru_cache(maxsize=1 << 16)
def folder_says(key: str) -> Says:
    """Linguist's answer for a folder key of :func:`folder_key` (memoised across trees). Each rule file
    is asked only when the key's folder (its last segment) or, for the two-segment rules, its parent is
    one the file names (:data:`VENDOR_FOLDERS`...): a rule the parent alone matches is the parent's
    context, not this folder's (:func:`new_in_folder`)."""
    *above, name = key.lower()[:-1].split("/")
    parent = above[-1] if above else ""
    dotted = name.startswith(".")
    return Says(
        (
            name in VENDOR_FOLDERS
            or dotted
            or name.endswith(VENDOR_FOLDER_SUFFIXES)
            or any(part in name for part in VENDOR_FOLDER_PARTS)
            or parent in VENDOR_PARENTS
            or parent.startswith(".")
        )
        and enry.is_vendor(key),
        (name in GENERATED_FOLDERS or dotted or "__generated__" in name or parent in GENERATED_PARENTS)
        and enry.is_generated(key, b""),
        name in DOC_FOLDERS and enry.is_documentation(key),
    )


def new_in_folder(parent_path: str, name: str) -> Says:
    """What Linguist says of the folder ``name`` in ``parent_path`` that it does not say of the parent
    alone (the parent's own context holds that): ``docs/_build/`` is vendored, ``docs/api/`` adds
    nothing to ``docs/``. The parent alone is asked in the same place (``_/parent/``, or ``parent/`` at
    the root), so the answer depends on the folder key only."""
    parent_name = parent_path.rpartition("/")[2]
    if plain_folder(name) and plain_folder(parent_name):
        return NOTHING
    says = folder_says(folder_key(parent_path, name))
    if not parent_path or says == NOTHING:
        return says
    above = folder_says(f"{parent_name}/" if "/" not in parent_path else f"{_SOMEWHERE}{parent_name}/")
    return Says(
        says.vendored and not above.vendored,
        says.generated and not above.generated,
        says.documentation and not above.documentation,
    )


def plain_name(name: str) -> bool:
    """True when no Linguist name rule can match ``name`` (so enry need not be asked at all)."""
    return _asks(name, name.lower()) == _NO


def _asks(name: str, lower: str) -> tuple[bool, bool, bool]:
    """Which of Linguist's rule files (vendored, generated, documentation) may name ``name``: a name
    without an extension (``configure``, ``gradlew``, ``Vagrantfile``) or a dotfile is asked of all;
    else by its extensions and words (``tests/test_linguist.py`` holds this against enry)."""
    dot = name.find(".")
    if dot <= 0:
        return True, True, True
    last = lower.rfind(".")
    ext = lower[last + 1 :]
    if ext not in _ANY_EXTENSION and last == dot and not lower.startswith(DOC_STEMS):
        return _NO  # the common case: ``main.go``, ``App.java``
    double = lower[lower.rfind(".", 0, last) + 1 :] if last != dot else ""
    return (
        ext in VENDOR_EXTENSIONS
        or double in VENDOR_AFTER_DOTS
        or (ext in SCRIPT_EXTENSIONS and lower[:dot] in SCRIPT_STEMS),
        ext in GENERATED_EXTENSIONS
        or double in GENERATED_AFTER_DOTS
        or (ext in LOCK_EXTENSIONS and ("lock" in lower or "shrinkwrap" in lower)),
        lower.startswith(DOC_STEMS),
    )


_NO = (False, False, False)
_ANY_EXTENSION = VENDOR_EXTENSIONS | SCRIPT_EXTENSIONS | GENERATED_EXTENSIONS | LOCK_EXTENSIONS


@lru_cache(maxsize=1 << 16)
def plain_folder(name: str) -> bool:
    """True when no Linguist folder rule names a folder called ``name``, nor a child of it."""
    lower = name.lower()
    return not (
        lower.startswith(".")
        or lower in VENDOR_FOLDERS
        or lower in DOC_FOLDERS
        or lower in GENERATED_FOLDERS
        or lower in VENDOR_PARENTS
        or lower.endswith(VENDOR_FOLDER_SUFFIXES)
        or any(part in lower for part in (*VENDOR_FOLDER_PARTS, "__generated__"))
    )


@lru_cache(maxsize=1 << 16)
def _name_says(key: str, asks: tuple[bool, bool, bool]) -> Says:
    vendored, generated, documentation = asks
    return Says(
        vendored and enry.is_vendor(key),
        generated and enry.is_generated(key, b""),
        documentation and enry.is_documentation(key),
    )


def name_says(name: str, at_root: bool, lower: str) -> Says:
    """Linguist's answer for a file ``name`` (``lower``: lower-cased) at the root or below it
    (memoised across trees)."""
    asks = _asks(name, lower)
    if asks == _NO:
        return NOTHING
    return _name_says(name if at_root else f"{_SOMEWHERE}{name}", asks)


@lru_cache(maxsize=4096)
def _extension_languages(suffix: str) -> tuple[str, ...]:
    return tuple(enry.get_languages(f"x{suffix}", b""))


@lru_cache(maxsize=1 << 15)
def _by_filename(name: str) -> tuple[str, ...]:
    return tuple(enry.get_languages_by_filename(name))


@lru_cache(maxsize=1024)
def _primary_extension(language: str) -> str:
    extensions = enry.get_language_extensions(language)
    return extensions[0].lower() if extensions else ""


@lru_cache(maxsize=1024)
def language_type(language: str) -> str:
    """Linguist's type of a language: programming, markup, data or prose ("" when unknown)."""
    found = enry.get_language_type(language) if language else ""
    return "" if found == "unknown" else found


def language_of(name: str) -> str | None:
    """The language of a file by its name, as Linguist decides without content: its exact file name
    (``Makefile``, ``CMakeLists.txt``), else its extension; of several candidates (``.cs``: Smalltalk
    or C#; ``.rs``: XML, Rust or RenderScript) the one whose primary extension is the file's, as the
    content heuristics nearly always decide, else enry's first. None when Linguist knows none."""
    by_name = _by_filename(name)
    return by_name[0] if by_name else extension_language(name)


def extension_language(name: str) -> str | None:
    """The language of a file by its extension alone (:func:`language_of` without the file name)."""
    dot = name.find(".", 1)
    return None if dot <= 0 else _suffix_language(name[dot:].lower())


@lru_cache(maxsize=1 << 14)
def _suffix_language(suffix: str) -> str | None:
    candidates = _extension_languages(suffix)
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    last = suffix[suffix.rfind(".") :]
    return next((c for c in candidates if _primary_extension(c) == last), candidates[0])


@lru_cache(maxsize=4096)
def _prose_extension(extension: str) -> bool:
    language = _suffix_language(extension)
    return language is not None and language_type(language) == "prose"


_PROSE: dict[str, bool] = {}  # by extension, at most 4096


def prose(name: str, lower: str) -> bool:
    """A file in one of Linguist's prose languages (Markdown, reStructuredText, AsciiDoc, Text...); the
    file name is asked only when the extension says prose (``CMakeLists.txt`` is CMake)."""
    last = lower.rfind(".")
    if last <= 0:
        return False
    extension = lower[last:]
    known = _PROSE.get(extension)
    if known is None:
        if len(_PROSE) >= 4096:  # a repository's names are hostile: the memo stays bounded
            _PROSE.clear()
        known = _PROSE[extension] = _prose_extension(extension)
    if not known:
        return False
    by_name = _by_filename(name)
    return not by_name or language_type(by_name[0]) == "prose"


def forget() -> None:
    """Empty the memos (a cold measurement: ``scripts/repomodel_cpu.py``)."""
    for memo in (
        folder_says,
        _name_says,
        plain_folder,
        _suffix_language,
        _prose_extension,
        _extension_languages,
        _by_filename,
        _primary_extension,
        language_type,
    ):
        memo.cache_clear()
    _PROSE.clear()
