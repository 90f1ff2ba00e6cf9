"""State that several replicas of the app share through Redis (``REDIS_URL``); unset, none of this is built.

One concept per module: the connection and its key prefix (:mod:`.connection`), whether Redis is reachable
(:mod:`.health`), the HTTP cache and its scope secret (:mod:`.cache`), the budgets' and quotas' windows
(:mod:`.windows`), the GitHub rate-limit view (:mod:`.ratelimits`) and what a run's trace says about it
(:mod:`.notices`). :class:`agent_core.top.services.Services` builds them; the seams they plug into
(hishel's storage, :class:`~agent_core.resilience.quota.HourlyQuota`, the rate-limit view of
:class:`~agent_core.github.http.GitHubHTTP`) are unchanged.
"""

from agent_core.shared_state.cache import SharedCacheStorage, shared_scope_secret
from agent_core.shared_state.connection import (
    KEY_PREFIX,
    SharedState,
    SharedStateError,
    UnreadableValueError,
)
from agent_core.shared_state.health import RECONNECT_PAUSE, Health
from agent_core.shared_state.notices import health_notice, refusal, watch_health
from agent_core.shared_state.ratelimits import SharedRateLimits
from agent_core.shared_state.windows import SharedQuota, SharedRunBudget, StartDecision

__all__ = [
    "KEY_PREFIX",
    "RECONNECT_PAUSE",
    "Health",
    "SharedCacheStorage",
    "SharedQuota",
    "SharedRateLimits",
    "SharedRunBudget",
    "SharedState",
    "SharedStateError",
    "StartDecision",
    "UnreadableValueError",
    "health_notice",
    "refusal",
    "shared_scope_secret",
    "watch_health",
]
