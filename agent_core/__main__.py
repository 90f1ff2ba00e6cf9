"""``python -m agent_core``: see :mod:`agent_core.top.cli`."""

import sys

from agent_core.top.cli import main

sys.exit(main())
