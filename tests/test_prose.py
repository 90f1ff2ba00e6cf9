"""A README's first paragraph as plain prose, whatever its markup, quoted to a sentence's end."""

from __future__ import annotations

import pytest

from agent_core.report.prose import markup_of, readme_summary, to_sentence_end
from testing.linear import growth, repeated


def test_markup_comes_from_the_file_name_as_github_renders_it() -> None:
    assert [
        markup_of(p) for p in ("README.md", "README.rdoc", "docs/README.adoc", "README.rst", "README")
    ] == [
        "markdown",
        "rdoc",
        "asciidoc",
        "rst",
        "markdown",
    ]


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        (
            "README.rdoc",  # Rails' own README style: RDoc headings, +code+, {label}[url]
            "= Welcome to Rails\n\n== What's Rails?\n\nRails is a web-application framework that includes "
            "everything needed to create database-backed web applications according to the "
            "{Model-View-Controller (MVC)}[https://en.wikipedia.org/wiki/MVC] pattern. Use +rails new+ "
            "to start.\n",
            "Rails is a web-application framework that includes everything needed to create database-backed "
            "web applications according to the Model-View-Controller (MVC) pattern. Use `rails new` to start.",
        ),
        (
            "README.adoc",
            "= Spring Boot\n:toc:\nifdef::env-github[]\n\nimage::badge.svg[Build]\n\n[source,java]\n----\nclass A {}\n"
            "----\n\nSpring Boot helps you to create link:https://spring.io[Spring-powered] applications. "
            "See <<install,the install guide>>.\n",
            "Spring Boot helps you to create Spring-powered applications. See the install guide.",
        ),
        (
            "README.rst",
            "Requests\n========\n\n.. image:: https://x/badge.svg\n   :target: https://x\n\n|pypi| |ci|\n\n"
            "**Requests** is a simple, yet elegant, HTTP library. Read ``requests.get`` in the "
            "`documentation <https://docs.x>`_ and :func:`requests.post`.\n",
            "Requests is a simple, yet elegant, HTTP library. Read `requests.get` in the documentation and "
            "`requests.post`.",
        ),
        (
            "README.md",
            '<p align="center"><img src="logo.svg"></p>\n\n[![CI](https://x/b.svg)](https://x)\n\n'
            "<p>A <b>fast</b> JSON parser &amp; serializer for C++, written in [modern C++](https://x).</p>\n",
            "A fast JSON parser & serializer for C++, written in modern C++.",
        ),
        ("README.txt", "The frobnicator.\n\nIt frobs things quickly and well, e.g. widgets.\n", None),
    ],
)
def test_markup_becomes_plain_prose(path: str, text: str, expected: str | None) -> None:
    got = readme_summary(text, path=path)
    if expected is None:
        assert got == "It frobs things quickly and well, e.g. widgets."
    else:
        assert got == expected
    assert got is not None
    for raw in ("{", "}[", "+rails", "link:", "<<", "``", ":func:", "&amp;", "<b>", "**", "](", "image::"):
        assert raw not in got


def test_a_quote_ends_at_a_sentence_end_never_at_a_colon() -> None:
    intro = (
        "Active Record connects classes to relational database tables to establish an almost "
        "zero-configuration persistence layer for applications. The library provides a base class that, "
        "when subclassed, sets up a mapping between the new class and an existing table in the database. "
        "Models can also be connected to other models; this is done by defining the following associations:"
    )
    quoted = readme_summary(f"# Active Record\n\n{intro}\n\n* belongs_to\n")
    assert quoted is not None
    assert quoted.endswith("in the database.")
    assert ":" not in quoted
    # a long paragraph keeps whole sentences within the limit
    long = "First sentence is here. " + "Second one goes on and on " * 30 + "until it ends."
    assert to_sentence_end(long, 100) == "First sentence is here."
    # one sentence longer than the limit is cut on a word, said with an ellipsis
    assert to_sentence_end("word " * 100, 50) == ("word " * 10).strip() + "…"
    # a paragraph that only introduces a list is no quote; the next real paragraph is
    text = "# X\n\nThis project provides:\n\n- a\n- b\n\nX is a small library for widgets.\n"
    assert readme_summary(text) == "X is a small library for widgets."
    # versions and abbreviations do not end a sentence
    assert to_sentence_end("Runs on v1.2 and later, e.g. on Linux. More here.", 40) == (
        "Runs on v1.2 and later, e.g. on Linux."
    )


def test_a_sentence_introducing_code_is_quoted_to_its_colon_and_a_label_is_no_quote() -> None:
    sinatra = (
        "# Sinatra\n\nSinatra is a DSL for quickly creating web applications in Ruby with minimal effort:\n\n"
        "```ruby\nget '/' do\nend\n```\n\nInstall the gems needed:\n\nView at: http://localhost:4567\n"
    )
    assert readme_summary(sinatra) == (
        "Sinatra is a DSL for quickly creating web applications in Ruby with minimal effort…"
    )
    assert readme_summary("# x\n\nView at: http://localhost:4567 now\n") is None


def test_chinese_prose_is_kept() -> None:
    assert (
        readme_summary("# 标题\n\n一个统计单词频率的小工具。它很快。\n")
        == "一个统计单词频率的小工具。它很快。"
    )


@pytest.mark.untraced
@pytest.mark.parametrize(
    "unit", ["[", "![", "*a", "`", "{x}[", "<<a,", "link:x[", "<a ", ":r:`", "+a", "a\n\n"]
)
def test_hostile_readmes_cost_linear_work(unit: str) -> None:
    def summary(text: str) -> None:
        for path in ("README.md", "README.rst", "README.rdoc", "README.adoc"):
            readme_summary(text, path=path)

    measured = growth(summary, lambda n: repeated(unit)(n) + "\n" + repeated(unit + " ")(n), cap=1 << 16)
    assert measured.linear(), measured
