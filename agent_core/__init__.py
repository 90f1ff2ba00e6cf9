"""Repository analyst agent core."""
