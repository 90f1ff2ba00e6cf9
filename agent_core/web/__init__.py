"""The browser app: all the Gradio code of the project, and the only package that imports Gradio.

app           build_app (the web composition root), launch options, main
page/layout   what the page is made of (typed panels, the language selector's choices) and its layout
handlers      the run handlers; panels: the side panels' and Play's; bindings: which event runs which handler
render        TraceView: events -> trace messages, report, stats (pure, no gradio); trace_items,
              report_view, stats
markdown      untrusted text made safe for Markdown renderers; short display forms
breakers      the live breaker table's rows and colours
batching      a run's events grouped into UI frames (urgent ones at once, text batched); ActiveRun: Stop
browser_session  BrowserSession: what one browser session owns (settings and keys, breakers, chaos)
replay        recorded runs played back with their original timing; the bundled recordings
budget        RunBudget: runs per hour per visitor in hosted mode
mcp           RepositoryApi: the public API / MCP tools (made from the tool registry) and ``analyze``
"""
