"""Why a run failed or lost data, in words a person can act on: the cause, and what to do next.

A failure is diagnosed once, where it happens, as a short key (:data:`Cause`): the GitHub client sets
it on its errors (``dns``, ``tls``, ``network``, ``timeout``, ``github_server``, ``rate_limit``,
``not_found``, ``github_auth``), the model driver derives it from the model's error kind (``model_*``).
The events carry a :class:`~agent_core.events.Diagnosis` (the key, which service, the host, a reset time);
every consumer — the page, the CLI, the API — turns it into text with :func:`explain`, in English or
Chinese. The breaker that opened because of a failure remembers its cause, so "temporarily disabled" is
never the explanation: the failure behind it is.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from agent_core.events import Diagnosis

__all__ = [
    "CAUSES",
    "Explanation",
    "Failure",
    "connection_cause",
    "diagnose_results",
    "explain",
    "model_cause",
]

CAUSES = (
    "dns",
    "network",
    "tls",
    "timeout",
    "github_server",
    "rate_limit",
    "space_quota",
    "not_found",
    "github_auth",
    "github_paused",
    "model_unreachable",
    "model_timeout",
    "model_auth",
    "model_no_balance",
    "model_not_found",
    "model_rate_limited",
    "model_context",
    "model_refused",
    "model_server",
    "model_stream",
    "model_no_tools",
)
_ROOT_FIRST = (
    "dns",
    "tls",
    "network",
    "rate_limit",
    "space_quota",
    "github_auth",
    "timeout",
    "github_server",
    "not_found",
    "github_paused",
)
"""When several calls failed, the cause that explains the others comes first: no name resolution explains
every later failure, a 404 on one file explains nothing else."""
_DNS_WORDS = ("name or service not known", "temporary failure in name resolution", "nodename nor servname")


def connection_cause(error: BaseException) -> Literal["dns", "tls", "network"]:
    """What broke a connection, from the exception chain: the name did not resolve, TLS failed, or the
    network (refused, unreachable, reset)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current).lower()
        if isinstance(current, socket.gaierror) or any(word in text for word in _DNS_WORDS):
            return "dns"
        if isinstance(current, ssl.SSLError) or "certificate_verify_failed" in text or "[ssl" in text:
            return "tls"
        current = current.__cause__ or current.__context__
    return "network"


def model_cause(kind: str) -> str:
    """The cause of a model failure from its error kind (``unreachable`` → ``model_unreachable``)."""
    cause = f"model_{kind}"
    return cause if cause in CAUSES else "model_server"


@dataclass(frozen=True, kw_only=True)
class Failure:
    """One failed tool call, as far as a diagnosis cares."""

    cause: str | None
    host: str | None = None
    source: Literal["github", "local"] = "github"
    reset_at: float | None = None
    repo: str | None = None
    whole_repository: bool = False  # the call read the repository itself (a 404 there means it is missing)


def diagnose_results(failures: Iterable[Failure]) -> Diagnosis | None:
    """The cause that explains a run's failed tool calls: the most fundamental one (a name that does not
    resolve explains every later failure; a missing file explains nothing else and is left out)."""
    found = [f for f in failures if f.cause and (f.cause != "not_found" or f.whole_repository)]
    for root in _ROOT_FIRST:
        for failure in found:
            if failure.cause == root:
                return Diagnosis(
                    cause=root,
                    source=failure.source,
                    host=failure.host,
                    reset_at=failure.reset_at,
                    repo=failure.repo if root == "not_found" else None,
                )
    return None


@dataclass(frozen=True, kw_only=True)
class Explanation:
    what: str  # what happened, naming the cause
    next_step: str  # what the person can do about it


# A host the diagnosis does not name: a Space's own model endpoint is never named to its visitors.
_UNNAMED = {
    ("github", False): "GitHub",
    ("github", True): "GitHub",
    ("model", False): "of this Space",
    ("model", True): "（本 Space 的）",
}


def explain(diagnosis: Diagnosis, lang: str = "en", *, reset_at: float | None = None) -> Explanation:
    """The diagnosis in words, in ``lang`` ("en" or "zh"; English otherwise)."""
    table = _ZH if lang == "zh" else _EN
    what, next_step = table.get(diagnosis.cause, table["unknown"])
    at = diagnosis.reset_at if diagnosis.reset_at is not None else reset_at
    values = {
        "host": diagnosis.host or _UNNAMED.get((diagnosis.source, lang == "zh"), "?"),
        "repo": diagnosis.repo or ("该仓库" if lang == "zh" else "The repository"),
        "reset": time.strftime("%H:%M UTC", time.gmtime(at)) if at is not None else "?",
    }
    return Explanation(what=what.format(**values), next_step=next_step.format(**values))


_OFFLINE_EN = "To work without the network, analyse a local path (a git checkout) or watch a bundled replay."
_OFFLINE_ZH = "若无网络，可分析本地路径（一个 git 仓库）或观看内置回放。"

_EN: Mapping[str, tuple[str, str]] = {
    "dns": (
        "GitHub could not be reached: the name {host} could not be resolved (DNS).",
        "Check the network connection and DNS settings. " + _OFFLINE_EN,
    ),
    "network": (
        "GitHub could not be reached: the connection to {host} failed.",
        "Check the network connection (a proxy or firewall may block it). " + _OFFLINE_EN,
    ),
    "tls": (
        "The secure connection to {host} failed (TLS certificate or handshake).",
        "A proxy may be intercepting HTTPS: check the system clock and certificates (SSL_CERT_FILE). "
        + _OFFLINE_EN,
    ),
    "timeout": (
        "{host} did not answer in time.",
        "Try again in a minute; on a slow network raise GITHUB_READ_TIMEOUT.",
    ),
    "github_server": (
        "GitHub answered with server errors (HTTP 5xx).",
        "GitHub may be having an outage (githubstatus.com): try again in a few minutes.",
    ),
    "rate_limit": (
        "GitHub's API rate limit is used up until {reset}.",
        "Set GITHUB_TOKEN (5,000 requests an hour instead of 60), or try again after the reset.",
    ),
    "space_quota": (
        "This Space has used its GitHub requests for this hour (until {reset}).",
        "Paste your own GitHub token in Settings to use your own quota, or try again after the reset.",
    ),
    "not_found": (
        "{repo}: not found or private on GitHub (GitHub answers 404 for both).",
        "Check the spelling of owner/name; a private repository needs a GITHUB_TOKEN that can read it.",
    ),
    "github_auth": (
        "GitHub refused the request (HTTP 401/403): the token is invalid or lacks access.",
        "Check GITHUB_TOKEN: it may be expired or lack read access to this repository.",
    ),
    "github_paused": (
        "Calls to GitHub are paused for a few seconds after repeated failures (circuit breaker open).",
        "Try again in half a minute. " + _OFFLINE_EN,
    ),
    "model_unreachable": (
        "The model endpoint {host} could not be reached.",
        "Check the base URL in Settings and the network.",
    ),
    "model_timeout": (
        "The model endpoint {host} did not answer in time.",
        "A local model may be too slow for this machine: try a smaller one or raise LLM_TURN_TIMEOUT.",
    ),
    "model_auth": (
        "The model endpoint {host} rejected the API key (HTTP 401/403).",
        "Check the API key in Settings (API_KEY in .env).",
    ),
    "model_no_balance": (
        "The model account at {host} has no balance left (HTTP 402).",
        "Top up the account, or choose another provider in Settings.",
    ),
    "model_not_found": (
        "The model endpoint {host} does not know this model name.",
        "Check the model name in Settings.",
    ),
    "model_rate_limited": (
        "The model endpoint {host} is rate limiting requests (HTTP 429).",
        "Wait a minute and try again, or use another key.",
    ),
    "model_context": (
        "The conversation exceeded the model's context window.",
        "Use a model with a larger window, or set LLM_CONTEXT_WINDOW to the server's real size.",
    ),
    "model_refused": (
        "The model endpoint {host} refused the request.",
        "Check the base URL, key and model in Settings.",
    ),
    "model_server": (
        "The model endpoint {host} failed (server error).",
        "Try again in a few minutes.",
    ),
    "model_stream": (
        "The model's answer broke off or could not be read.",
        "Try again; a proxy that buffers streams can cause this.",
    ),
    "model_no_tools": (
        "The model answered from memory instead of using the tools, twice.",
        "Use a larger model or one with native tool calling; the report was written from the data gathered.",
    ),
    "unknown": ("Something failed: {host}.", "Try again; the server log has the details."),
}

_ZH: Mapping[str, tuple[str, str]] = {
    "dns": ("无法连接 GitHub：域名 {host} 无法解析（DNS）。", "请检查网络连接和 DNS 设置。" + _OFFLINE_ZH),
    "network": (
        "无法连接 GitHub：到 {host} 的连接失败。",
        "请检查网络连接（代理或防火墙可能阻止了它）。" + _OFFLINE_ZH,
    ),
    "tls": (
        "到 {host} 的安全连接失败（TLS 证书或握手）。",
        "可能有代理拦截了 HTTPS：请检查系统时间和证书（SSL_CERT_FILE）。" + _OFFLINE_ZH,
    ),
    "timeout": ("{host} 未能及时响应。", "请稍后重试；网络较慢时可调大 GITHUB_READ_TIMEOUT。"),
    "github_server": (
        "GitHub 返回了服务器错误（HTTP 5xx）。",
        "GitHub 可能正在故障（githubstatus.com）：请几分钟后重试。",
    ),
    "rate_limit": (
        "GitHub API 的速率限制已用完，将于 {reset} 重置。",
        "设置 GITHUB_TOKEN（每小时 5,000 次请求，而不是 60 次），或在重置后重试。",
    ),
    "not_found": (
        "{repo}：在 GitHub 上找不到，或它是私有仓库（GitHub 对两者都返回 404）。",
        "请检查 owner/name 的拼写；私有仓库需要可读取它的 GITHUB_TOKEN。",
    ),
    "github_auth": (
        "GitHub 拒绝了请求（HTTP 401/403）：令牌无效或没有权限。",
        "请检查 GITHUB_TOKEN：它可能已过期或没有此仓库的读取权限。",
    ),
    "github_paused": (
        "多次失败后，对 GitHub 的调用暂停几秒（熔断器已打开）。",
        "请半分钟后重试。" + _OFFLINE_ZH,
    ),
    "model_unreachable": ("无法连接模型端点 {host}。", "请检查设置中的 Base URL 和网络。"),
    "model_timeout": (
        "模型端点 {host} 未能及时响应。",
        "本地模型在这台机器上可能太慢：请换用更小的模型或调大 LLM_TURN_TIMEOUT。",
    ),
    "model_auth": (
        "模型端点 {host} 拒绝了 API 密钥（HTTP 401/403）。",
        "请检查设置中的 API 密钥（.env 中的 API_KEY）。",
    ),
    "model_no_balance": ("{host} 上的模型账户余额不足（HTTP 402）。", "请充值，或在设置中选择其他服务商。"),
    "model_not_found": ("模型端点 {host} 不认识这个模型名称。", "请检查设置中的模型名称。"),
    "model_rate_limited": ("模型端点 {host} 正在限流（HTTP 429）。", "请稍等一分钟再试，或换用其他密钥。"),
    "model_context": (
        "对话超出了模型的上下文窗口。",
        "请使用上下文窗口更大的模型，或把 LLM_CONTEXT_WINDOW 设为服务器的真实大小。",
    ),
    "model_refused": ("模型端点 {host} 拒绝了请求。", "请检查设置中的 Base URL、密钥和模型。"),
    "model_server": ("模型端点 {host} 出错（服务器错误）。", "请几分钟后重试。"),
    "model_stream": ("模型的回答中断或无法读取。", "请重试；缓冲流式响应的代理可能导致此问题。"),
    "model_no_tools": (
        "模型两次凭记忆回答，而没有使用工具。",
        "请使用更大的模型或支持原生工具调用的模型；报告已根据已收集的数据写成。",
    ),
    "unknown": ("出现了错误：{host}。", "请重试；服务器日志中有详细信息。"),
}
