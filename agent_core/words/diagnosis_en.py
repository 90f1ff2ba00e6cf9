"""Why something failed and what to do next, in English: one pair of sentences per cause key."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DIAGNOSIS: Mapping[str, str] = MappingProxyType(
    {
        "cause_dns_what": "GitHub could not be reached: the name {host} could not be resolved (DNS).",
        "cause_dns_next": "Check the network connection and DNS settings. To work without the network, analyse a local path (a git checkout) or watch a bundled replay.",
        "cause_network_what": "GitHub could not be reached: the connection to {host} failed.",
        "cause_network_next": "Check the network connection (a proxy or firewall may block it). To work without the network, analyse a local path (a git checkout) or watch a bundled replay.",
        "cause_tls_what": "The secure connection to {host} failed (TLS certificate or handshake).",
        "cause_tls_next": "A proxy may be intercepting HTTPS: check the system clock and certificates (SSL_CERT_FILE). To work without the network, analyse a local path (a git checkout) or watch a bundled replay.",
        "cause_timeout_what": "{host} did not answer in time.",
        "cause_timeout_next": "Try again in a minute; on a slow network raise GITHUB_READ_TIMEOUT.",
        "cause_github_server_what": "GitHub answered with server errors (HTTP 5xx).",
        "cause_github_server_next": "GitHub may be having an outage (githubstatus.com): try again in a few minutes.",
        "cause_rate_limit_what": "GitHub's API rate limit is used up until {reset}.",
        "cause_rate_limit_next": "Set GITHUB_TOKEN (5,000 requests an hour instead of 60), or try again after the reset.",
        "cause_space_quota_what": "This Space has used its GitHub requests for this hour (until {reset}).",
        "cause_space_quota_next": "Paste your own GitHub token in Settings to use your own quota, or try again after the reset.",
        "cause_not_found_what": "{repo}: not found or private on GitHub (GitHub answers 404 for both).",
        "cause_not_found_next": "Check the spelling of owner/name; a private repository needs a GITHUB_TOKEN that can read it.",
        "cause_github_auth_what": "GitHub refused the request (HTTP 401/403): the token is invalid or lacks access.",
        "cause_github_auth_next": "Check GITHUB_TOKEN: it may be expired or lack read access to this repository.",
        "cause_github_paused_what": "Calls to GitHub are paused for a few seconds after repeated failures (circuit breaker open).",
        "cause_github_paused_next": "Try again in half a minute. To work without the network, analyse a local path (a git checkout) or watch a bundled replay.",
        "cause_model_unreachable_what": "The model endpoint {host} could not be reached.",
        "cause_model_unreachable_next": "Check the base URL in Settings and the network.",
        "cause_model_timeout_what": "The model endpoint {host} did not answer in time.",
        "cause_model_timeout_next": "A local model may be too slow for this machine: try a smaller one or raise LLM_TURN_TIMEOUT.",
        "cause_model_auth_what": "The model endpoint {host} rejected the API key (HTTP 401/403).",
        "cause_model_auth_next": "Check the API key in Settings (API_KEY in .env).",
        "cause_model_no_balance_what": "The model account at {host} has no balance left (HTTP 402).",
        "cause_model_no_balance_next": "Top up the account, or choose another provider in Settings.",
        "cause_model_not_found_what": "The model endpoint {host} does not know this model name.",
        "cause_model_not_found_next": "Check the model name in Settings.",
        "cause_model_rate_limited_what": "The model endpoint {host} is rate limiting requests (HTTP 429).",
        "cause_model_rate_limited_next": "Wait a minute and try again, or use another key.",
        "cause_model_context_what": "The conversation exceeded the model's context window.",
        "cause_model_context_next": "Use a model with a larger window, or set LLM_CONTEXT_WINDOW to the server's real size.",
        "cause_model_refused_what": "The model endpoint {host} refused the request.",
        "cause_model_refused_next": "Check the base URL, key and model in Settings.",
        "cause_model_server_what": "The model endpoint {host} failed (server error).",
        "cause_model_server_next": "Try again in a few minutes.",
        "cause_model_stream_what": "The model's answer broke off or could not be read.",
        "cause_model_stream_next": "Try again; a proxy that buffers streams can cause this.",
        "cause_model_no_tools_what": "The model answered from memory instead of using the tools, twice.",
        "cause_model_no_tools_next": "Use a larger model or one with native tool calling; the report was written from the data gathered.",
        "cause_unknown_what": "Something failed: {host}.",
        "cause_unknown_next": "Try again; the server log has the details.",
        "unnamed_github": "GitHub",
        "unnamed_model": "of this Space",
        "unnamed_repo": "The repository",
    }
)
