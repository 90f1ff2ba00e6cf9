"""The top floor: what assembles the house and its doors.

``wiring`` and ``services`` build a run from settings; ``hosting`` holds the public Space's policy;
``api``, ``cli`` and ``terminal`` are the doors other than the page (``agent_core.web``).
Nothing below this package imports it (``tests/test_layering.py``).
"""
