"""Why something failed and what to do next, in Chinese: one pair of sentences per cause key."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DIAGNOSIS: Mapping[str, str] = MappingProxyType(
    {
        "cause_dns_what": "无法连接 GitHub：域名 {host} 无法解析（DNS）。",
        "cause_dns_next": "请检查网络连接和 DNS 设置。若无网络，可分析本地路径（一个 git 仓库）或观看内置回放。",
        "cause_network_what": "无法连接 GitHub：到 {host} 的连接失败。",
        "cause_network_next": "请检查网络连接（代理或防火墙可能阻止了它）。若无网络，可分析本地路径（一个 git 仓库）或观看内置回放。",
        "cause_tls_what": "到 {host} 的安全连接失败（TLS 证书或握手）。",
        "cause_tls_next": "可能有代理拦截了 HTTPS：请检查系统时间和证书（SSL_CERT_FILE）。若无网络，可分析本地路径（一个 git 仓库）或观看内置回放。",
        "cause_timeout_what": "{host} 未能及时响应。",
        "cause_timeout_next": "请稍后重试；网络较慢时可调大 GITHUB_READ_TIMEOUT。",
        "cause_github_server_what": "GitHub 返回了服务器错误（HTTP 5xx）。",
        "cause_github_server_next": "GitHub 可能正在故障（githubstatus.com）：请几分钟后重试。",
        "cause_rate_limit_what": "GitHub API 的速率限制已用完，将于 {reset} 重置。",
        "cause_rate_limit_next": "设置 GITHUB_TOKEN（每小时 5,000 次请求，而不是 60 次），或在重置后重试。",
        "cause_space_quota_what": "本 Space 本小时的 GitHub 请求已用完（到 {reset} 为止）。",
        "cause_space_quota_next": "在设置中粘贴你自己的 GitHub 令牌以使用你自己的配额，或在重置后重试。",
        "cause_not_found_what": "{repo}：在 GitHub 上找不到，或它是私有仓库（GitHub 对两者都返回 404）。",
        "cause_not_found_next": "请检查 owner/name 的拼写；私有仓库需要可读取它的 GITHUB_TOKEN。",
        "cause_github_auth_what": "GitHub 拒绝了请求（HTTP 401/403）：令牌无效或没有权限。",
        "cause_github_auth_next": "请检查 GITHUB_TOKEN：它可能已过期或没有此仓库的读取权限。",
        "cause_github_paused_what": "多次失败后，对 GitHub 的调用暂停几秒（熔断器已打开）。",
        "cause_github_paused_next": "请半分钟后重试。若无网络，可分析本地路径（一个 git 仓库）或观看内置回放。",
        "cause_model_unreachable_what": "无法连接模型端点 {host}。",
        "cause_model_unreachable_next": "请检查设置中的 Base URL 和网络。",
        "cause_model_timeout_what": "模型端点 {host} 未能及时响应。",
        "cause_model_timeout_next": "本地模型在这台机器上可能太慢：请换用更小的模型或调大 LLM_TURN_TIMEOUT。",
        "cause_model_auth_what": "模型端点 {host} 拒绝了 API 密钥（HTTP 401/403）。",
        "cause_model_auth_next": "请检查设置中的 API 密钥（.env 中的 API_KEY）。",
        "cause_model_no_balance_what": "{host} 上的模型账户余额不足（HTTP 402）。",
        "cause_model_no_balance_next": "请充值，或在设置中选择其他服务商。",
        "cause_model_not_found_what": "模型端点 {host} 不认识这个模型名称。",
        "cause_model_not_found_next": "请检查设置中的模型名称。",
        "cause_model_rate_limited_what": "模型端点 {host} 正在限流（HTTP 429）。",
        "cause_model_rate_limited_next": "请稍等一分钟再试，或换用其他密钥。",
        "cause_model_context_what": "对话超出了模型的上下文窗口。",
        "cause_model_context_next": "请使用上下文窗口更大的模型，或把 LLM_CONTEXT_WINDOW 设为服务器的真实大小。",
        "cause_model_refused_what": "模型端点 {host} 拒绝了请求。",
        "cause_model_refused_next": "请检查设置中的 Base URL、密钥和模型。",
        "cause_model_server_what": "模型端点 {host} 出错（服务器错误）。",
        "cause_model_server_next": "请几分钟后重试。",
        "cause_model_stream_what": "模型的回答中断或无法读取。",
        "cause_model_stream_next": "请重试；缓冲流式响应的代理可能导致此问题。",
        "cause_model_no_tools_what": "模型两次凭记忆回答，而没有使用工具。",
        "cause_model_no_tools_next": "请使用更大的模型或支持原生工具调用的模型；报告已根据已收集的数据写成。",
        "cause_unknown_what": "出现了错误：{host}。",
        "cause_unknown_next": "请重试；服务器日志中有详细信息。",
        "unnamed_github": "GitHub",
        "unnamed_model": "（本 Space 的）",
        "unnamed_repo": "该仓库",
    }
)
