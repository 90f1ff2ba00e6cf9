"""Test doubles that stand at the project's seams, shared by ``tests/``, ``bench/`` and ``scripts/``.

Nothing here is a fake of our own code: these are the *other side* of each seam, real over real sockets.

    emulator/   a GitHub REST emulator over real git repositories, and a scripted OpenAI-compatible
                model server streaming real SSE, both on ONE loopback HTTP server (:mod:`testing.loopback`)
    loopback    the threaded HTTP/1.1 server on 127.0.0.1 both emulators (and any test) build on
    clock       :class:`FakeClock`: time that moves only when told to (no test waits on the wall clock)
    analysis    real analyses over the emulators (the real loop, client and openai SDK)
    github      the real GitHub client and toolbox over the emulator
    app         the real Gradio app served on a free loopback port
    browser     Debian's headless Chromium through Playwright, allowed to reach loopback only

Dependencies point down and out: ``tests/``, ``bench/`` and ``scripts/`` import this package; it never
imports any of them.
"""
