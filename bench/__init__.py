"""The benchmark: the product's claims measured on one machine with no internet.

Everything runs on 127.0.0.1 — the real app code against the project's own GitHub emulator and scripted
model server (``tests/emulator``), with configurable latencies and a fixed seed. One command runs every
section, prints one table and writes it as JSON::

    python -m bench                      # all sections, defaults from the issue
    python -m bench --quick              # small latencies and counts: a smoke run in about a minute
    python -m bench --only overhead,requests --out /tmp/bench.json

Each section is a module with ``measure(config, workdir) -> Section``; ``bench/__main__.py`` lists them.
"""
