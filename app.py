"""What a Hugging Face Space runs (``app_file: app.py``), and ``python app.py`` locally.

The app itself lives in :mod:`agent_core.web`: this file builds it from Settings and launches it,
on 127.0.0.1 locally, 0.0.0.0 on a Space (``SPACE_ID``) or when ``GRADIO_SERVER_NAME``/``HOST`` asks
for it, and never with a public share link.
"""

from __future__ import annotations

from agent_core.web.app import build_app, launch_options, main

__all__ = ["build_app", "launch_options", "main"]

if __name__ == "__main__":
    main()
