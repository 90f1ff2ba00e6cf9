"""The deterministic report writer: facts from tool results, sections in English or Chinese, inert Markdown."""
