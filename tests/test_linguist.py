"""Linguist through go-enry: the gates that spare enry calls never hide an answer enry gives, the
``.gitattributes`` overrides match in linear time and say when they were capped, and the languages
count follows Linguist and ``linguist-language``/``linguist-detectable``."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import enry
import pytest

from agent_core.ledger import Coverage
from agent_core.repomodel import RootContext, build_repo_model, linguist, parse_gitattributes
from agent_core.repomodel.attributes import LINES_CAPPED, MAX_LINES, PATTERN_CAPPED
from agent_core.report.coverage import coverage_line
from agent_core.sources.languages import count_languages, language_for
from agent_core.sources.models import TreeEntry

ROOT = Path(__file__).resolve().parents[1]

# The rules' own examples (vendor.yml, generated.rb, documentation.yml), and names of this checkout.
RULE_NAMES = (
    *("jquery.js", "jquery-3.7.1.min.js", "jquery.ui.core.js", "bootstrap.min.css", "app.min.js"),
    *("d3.v7.js", "react-dom.js", "angular.min.js", "Chart.js", "foundation.css", "normalize.scss"),
    *("font-awesome.css", "types.d.ts", "MicrosoftAjax.js", "x-vsdoc.js", "theme-import.scss"),
    *("cpplint.py", "fabfile.py", "gradlew", "gradlew.bat", "mvnw", "mvnw.cmd", "configure"),
    *("config.guess", "config.sub", "aclocal.m4", "libtool.m4", "erlang.mk", "proguard-rules.pro"),
    *("dotnet-install.sh", "dotnet-install.ps1", "run.n", "waf", "rebar", "Vagrantfile", "Jenkinsfile"),
    *(".gitignore", ".gitattributes", ".DS_Store", ".indent.pro", "_esy", "activator.bat", ".osx"),
    *("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "Gopkg.lock", "glide.lock"),
    *("poetry.lock", "Cargo.lock", "Cargo.toml.orig", "flake.lock", "composer.lock", "deno.lock"),
    *("MODULE.bazel.lock", ".terraform.lock.hcl", "Pipfile.lock", "uv.lock", "pdm.lock", "esy.lock"),
    *(".pnp.cjs", ".pnp.loader.mjs", "app.js.map", "Form1.Designer.cs", "Steps.feature.cs", "x.zep.c"),
    *("Lib_TLB.pas", "MainMenu.nib", "README", "README.md", "readme.txt", "Readme.rst", "LICENSE"),
    *("LICENCE.md", "license.txt", "COPYING", "CHANGELOG.md", "CHANGES", "CONTRIBUTING.md", "INSTALL"),
    *("CITATION.cff", "main.go", "App.java", "lib.rs", "index.ts", "setup.py", "Makefile", "x.php"),
)
RULE_FOLDERS = (
    *("node_modules", "vendor", "Vendor", "vendors", "third_party", "3rdparty", "ThirdParty", "extern"),
    *("external", "externals", "dist", "deps", "Dependencies", "cache", "env", "Godeps/_workspace"),
    *("gradle/wrapper", ".mvn/wrapper", "docs/_build", "doc/static", "docs/themes", "Documentation"),
    *("javadoc", "groovydoc", "man", "examples", "demo", "demos", "samples", "sample", "inst/doc"),
    *("inst/extdata", "Pods", "Carthage/Build", "Carthage", "__generated__", "htmlcov", ".idea"),
    *(".yarn/releases", "bower_components", "font-awesome", "MathJax", "codemirror/lib"),
    *("tiny_mce/plugins", "packages/Newtonsoft.Json.12.0.1", "test/fixtures", "spec/fixtures"),
    *("testdata", "Foo.xctemplate", "Bar.imageset", "Realm.framework", ".github", ".vscode", "debian"),
    *("puphpet", "vendor/github.com", "ace-builds", "flow-typed", "admin_media", "Sparkle", "extjs"),
    *("src", "lib", "internal/api", "pkg/server", "packages/ui", "test", "docs", "cmd/tool"),
)


def _checkout_paths() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def _enry(key: str) -> linguist.Says:
    return linguist.Says(enry.is_vendor(key), enry.is_generated(key, b""), enry.is_documentation(key))


def test_the_name_gate_never_hides_what_enry_says() -> None:
    names = {*RULE_NAMES, *(p.rpartition("/")[2] for p in _checkout_paths())}
    hidden = []
    for name in sorted(names):
        for key in (name, f"_/{name}"):
            says, asked = _enry(key), linguist._asks(name, name.lower())
            hidden += [
                (key, i) for i, (said, ask) in enumerate(zip(says, asked, strict=True)) if said and not ask
            ]
            if asked == (False, False, False):
                assert linguist.name_says(name, key == name, name.lower()) == linguist.NOTHING
    assert hidden == []
    assert linguist.plain_name("main.go") and not linguist.plain_name("jquery.js")


def _expected(parent: str, name: str) -> linguist.Says:
    """What enry says of the folder and not of its parent alone (the parent's context holds that)."""
    says = _enry(linguist.folder_key(parent, name))
    if not parent:
        return says
    parent_name = parent.rpartition("/")[2]
    above = _enry(f"{parent_name}/" if "/" not in parent else f"_/{parent_name}/")
    return linguist.Says(*(s and not a for s, a in zip(says, above, strict=True)))


def test_the_folder_gate_never_hides_what_enry_says() -> None:
    folders = {p.rpartition("/")[0] for p in _checkout_paths() if "/" in p}
    pairs = {(f.rpartition("/")[0], f.rpartition("/")[2]) for f in folders}
    for rule in RULE_FOLDERS:  # at the root, at depth 1 and deeper
        for above in ("", "pkg", "pkg/sub"):
            path = f"{above}/{rule}" if above else rule
            pairs.add((path.rpartition("/")[0], path.rpartition("/")[2]))
    wrong = [(p, n) for p, n in sorted(pairs) if linguist.new_in_folder(p, n) != _expected(p, n)]
    assert wrong == []
    assert linguist.new_in_folder("", "node_modules").vendored
    assert linguist.new_in_folder("docs", "_build").vendored
    assert not linguist.new_in_folder("pkg", "docs").documentation  # ^docs?/ is the root's only


def test_ambiguous_extensions_take_the_language_whose_extension_it_is() -> None:
    assert [language_for(p) for p in ("a.cs", "b.rs", "c.php", "d.m", "e.h", "f.tsx")] == [
        "C#",
        "Rust",
        "PHP",
        "Objective-C",
        "C",
        "TypeScript",  # TSX is in Linguist's TypeScript group
    ]
    assert language_for("CMakeLists.txt") == "CMake" and language_for("notes.txt") is None


def _cpu(call: object, times: int = 20) -> float:
    assert callable(call)
    start = time.thread_time()
    for _ in range(times):
        call()
    return (time.thread_time() - start) / times


def test_a_backtracking_pattern_matches_in_linear_time() -> None:
    overrides = parse_gitattributes("*a*a*a*a*a*a*a*a*b linguist-vendored\n")
    miss, hit = "a" * 100, "a" * 99 + "b"
    assert overrides.of(miss) == {} and overrides.of(hit) == {"vendored": True}
    assert _cpu(lambda: overrides.of(miss)) < 0.010
    assert _cpu(lambda: overrides.of("x/" * 50 + miss)) < 0.010


def test_gitattributes_caps_are_kept_and_said() -> None:
    long_file = "".join(f"gen{i}/** linguist-generated\n" for i in range(MAX_LINES + 10))
    capped = parse_gitattributes(long_file)
    assert len(capped.rules) == MAX_LINES and capped.limits == (LINES_CAPPED,)
    overlong = parse_gitattributes(("x" * 300) + " linguist-vendored\nvendor2/** linguist-vendored\n")
    assert overlong.limits == (PATTERN_CAPPED,) and len(overlong.rules) == 1
    entries = [TreeEntry(path="gen1/a.go", type="file", size=3), TreeEntry(path="b.go", type="file", size=3)]
    model = build_repo_model(entries, context=RootContext(gitattributes=long_file))
    assert model.role_of("gen1/a.go") == "generated" and model.limits == (LINES_CAPPED,)
    line = coverage_line(
        Coverage(
            repo="a/b",
            files_read=1,
            bytes_read=10,
            own_files=2,
            own_bytes=6,
            folders_listed=0,
            limits=model.limits,
        )
    )
    assert "first 2,000 lines" in line
    assert "2,000" in coverage_line(
        Coverage(
            repo="a/b",
            files_read=1,
            bytes_read=10,
            own_files=2,
            own_bytes=6,
            folders_listed=0,
            limits=model.limits,
        ),
        "zh",
    )


def test_the_languages_count_honours_linguist_language_and_detectable() -> None:
    files = [("src/a.h", 100), ("src/b.c", 50), ("data/big.json", 900), ("tools/gen.py", 70)]
    assert count_languages(files) == {"C": 150, "Python": 70}
    attributes = "*.h linguist-language=C++\ndata/*.json linguist-detectable\ntools/** -linguist-detectable\n"
    assert count_languages(files, gitattributes=attributes) == {"JSON": 900, "C++": 100, "C": 50}
    assert count_languages([("x.pb", 10)], gitattributes="*.pb linguist-language=Protocol-Buffer\n") == {}


@pytest.mark.parametrize(
    ("value", "language"), [("Objective-C", "Objective-C"), ("objective-c", "C"), ("Nope", "C")]
)
def test_linguist_language_values_as_written(value: str, language: str) -> None:
    """A name Linguist spells so is taken; an alias or an unknown name leaves the file to its name."""
    counted = count_languages([("a.h", 10)], gitattributes=f"*.h linguist-language={value}\n")
    assert list(counted) == [language]
