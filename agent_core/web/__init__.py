"""What the browser app needs besides Gradio itself; ``app.py`` at the top of the checkout is the page.

    render     TraceView: events -> trace messages, report, stats (pure, no gradio)
    markdown   untrusted text made safe for Markdown renderers; short display forms
    breakers   the live breaker table's rows and colours
    batching   a run's events grouped into UI frames (urgent ones at once, text batched)
    session    BrowserSession: what one browser session owns (settings and keys, breakers, chaos, analysis)
    replay     recorded runs played back with their original timing; the bundled recordings
    budget     RunBudget: runs per hour per visitor in hosted mode
    i18n       the page's labels in English and Chinese
    mcp        RepositoryApi: the public API / MCP tools (the repository tools and ``analyze``)

Chaos mode's fault injector lives with the HTTP stack it plugs into: :mod:`agent_core.github.chaos`.
"""
