#!/usr/bin/env bash
# Several replicas of the app on one machine: one redis-server, N `python app.py` processes and an nginx
# in front with sticky sessions, everything on 127.0.0.1; stopped together on Ctrl-C / TERM.
#
#   scripts/replicas.sh N [PORT]        # the proxy on http://127.0.0.1:PORT/ (default 7860)
#
# Every app process gets the caller's environment (GITHUB_TOKEN, API_KEY, SPACE_ID, ...) plus its own
# GRADIO_SERVER_PORT and REDIS_URL, so the replicas share the HTTP cache, the budgets and the GitHub
# quota view (README, "Several replicas"). Sessions stick to a replica by a cookie the proxy sets
# (`ra_replica`, a replica's number, never its address): Gradio's queue joins on one request and streams
# its results on another, so both must reach the same process. A client without the cookie (its first
# request) goes to the replica with the fewest open connections; a cookie naming a replica that is down
# falls over to the next one, and the cookie follows. Every response says who served it (`X-Replica`).
#
# Knobs (environment):
#   REDIS_URL           use this Redis (e.g. one shared by several machines) instead of starting one
#   CACHE_DIR           each replica's local cache goes in CACHE_DIR/replica-N (default ~/.cache/repo-analyst)
#   REPLICAS_UPSTREAMS  more replicas already running elsewhere, "ip:port ip:port" (several machines; IP
#                       addresses, not host names: who served is read from the address nginx connected to)
#   REPLICAS_DIR        where configs, logs and the `apps` table go (default: a temporary folder, removed)
#   PYTHON              the interpreter for app.py (default: python)
# Readiness is polled (Redis PING, each app's /config, the proxy's /config), never waited for by time.
# Once ready it prints one line "replicas: ready http://127.0.0.1:PORT/ ..." and writes REPLICAS_DIR/apps
# ("number port pid" per local replica) and REPLICAS_DIR/pids ("name pid", every process it started). If any process exits, the others are stopped and it exits 1.
set -euo pipefail

usage() { echo "usage: $0 N [PORT]   (N >= 0 local app processes; PORT for the proxy, default 7860)" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 && $1 =~ ^[0-9]+$ ]] || usage
COUNT=$1
PORT=${2:-7860}
[[ $PORT =~ ^[0-9]+$ ]] || usage
read -r -a REMOTE <<< "${REPLICAS_UPSTREAMS:-}"
(( COUNT + ${#REMOTE[@]} >= 1 )) || { echo "replicas: nothing to serve (N=0 and no REPLICAS_UPSTREAMS)" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python}
READY_SECONDS=${REPLICAS_READY_SECONDS:-300}
for tool in nginx "$PYTHON"; do
  command -v "$tool" >/dev/null || { echo "replicas: $tool is not installed" >&2; exit 3; }
done
if [[ -z ${REDIS_URL:-} ]] && (( COUNT > 0 )); then
  command -v redis-server >/dev/null || { echo "replicas: redis-server is not installed" >&2; exit 3; }
fi

if [[ -n ${REPLICAS_DIR:-} ]]; then
  RUN=$REPLICAS_DIR; KEEP_RUN=1; mkdir -p "$RUN"
else
  RUN=$(mktemp -d -t replicas.XXXXXX); KEEP_RUN=0
fi
PIDS=()
started() { PIDS+=("$2"); echo "$1 $2" >> "$RUN/pids"; }  # name pid: what stop_all will stop
: > "$RUN/pids"
stopping=0
stop_all() {
  (( stopping )) && return; stopping=1
  trap - INT TERM
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do  # up to 10 s for a clean exit, then KILL
    local alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    (( alive )) || break
    sleep 0.1
  done
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  (( KEEP_RUN )) || rm -rf "$RUN"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap stop_all EXIT

# Free loopback ports for the local processes (bound together, so no two are the same).
read -r -a PORTS <<< "$("$PYTHON" - "$((COUNT + 1))" <<'PY'
import socket, sys
held = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in held:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in held))
PY
)"

# Poll until a command succeeds, or give up (the process it waits for has died, or time is out).
wait_for() {  # what pid command...
  local what=$1 pid=$2; shift 2
  local deadline=$((SECONDS + READY_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "replicas: $what exited; see $RUN" >&2; return 1; fi
    if (( SECONDS >= deadline )); then echo "replicas: $what not ready in ${READY_SECONDS}s" >&2; return 1; fi
    sleep 0.2
  done
}
http_ok() {  # url: 200 within 2 s (the app's own runtime, so no curl is needed)
  "$PYTHON" -c 'import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=2).read(1)' "$1"
}

CACHE_BASE=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/repo-analyst}
if [[ -z ${REDIS_URL:-} ]] && (( COUNT > 0 )); then
  REDIS_PORT=${PORTS[$COUNT]}
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$RUN" --logfile "$RUN/redis.log" --daemonize no &
  started redis "$!"
  wait_for redis-server "$!" redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping
  export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
fi

: > "$RUN/apps"
SERVERS=()
for ((i = 1; i <= COUNT; i++)); do
  app_port=${PORTS[$((i - 1))]}
  # Each replica its own CACHE_DIR: the local SQLite cache is one process's (with REDIS_URL the shared
  # cache lives in Redis; if Redis is down each replica reads GitHub itself).
  (cd "$ROOT" && GRADIO_SERVER_NAME=${GRADIO_SERVER_NAME:-127.0.0.1} GRADIO_SERVER_PORT=$app_port \
    CACHE_DIR="$CACHE_BASE/replica-$i" exec "$PYTHON" app.py) > "$RUN/app-$i.log" 2>&1 &
  started "app-$i" "$!"
  echo "$i $app_port $!" >> "$RUN/apps"
  SERVERS+=("127.0.0.1:$app_port")
done
SERVERS+=("${REMOTE[@]}")
for ((i = 1; i <= COUNT; i++)); do
  read -r _ app_port pid < <(sed -n "${i}p" "$RUN/apps")
  wait_for "replica $i" "$pid" http_ok "http://127.0.0.1:$app_port/config"
done

# nginx: one upstream per replica (the others as its backups), a pool for new sessions, the cookie map.
mkdir -p "$RUN/nginx/tmp"
USER_LINE=""
if (( EUID == 0 )); then  # workers drop to nobody; they write request bodies under tmp/
  chown nobody "$RUN/nginx/tmp"; USER_LINE="user nobody $(id -gn nobody);"
fi
UPLOAD_MB=$(( ${MAX_UPLOAD_MB:-5} + 1 ))
{
  echo "$USER_LINE"
  echo "worker_processes 1; pid $RUN/nginx/nginx.pid; error_log $RUN/nginx/error.log warn;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  echo "  access_log off; client_body_temp_path $RUN/nginx/tmp/body; proxy_temp_path $RUN/nginx/tmp/proxy;"
  echo "  fastcgi_temp_path $RUN/nginx/tmp/fcgi; uwsgi_temp_path $RUN/nginx/tmp/uwsgi; scgi_temp_path $RUN/nginx/tmp/scgi;"
  echo "  upstream pool { least_conn;"
  for server in "${SERVERS[@]}"; do echo "    server $server max_fails=1 fail_timeout=10s;"; done
  echo "    keepalive 64; }"
  for ((i = 1; i <= ${#SERVERS[@]}; i++)); do
    echo "  upstream replica_$i { server ${SERVERS[$((i - 1))]};"
    for ((j = 1; j <= ${#SERVERS[@]}; j++)); do
      (( j == i )) || echo "    server ${SERVERS[$((j - 1))]} backup;"
    done
    echo "    keepalive 16; }"
  done
  echo "  map \$cookie_ra_replica \$ra_upstream { default pool;"
  for ((i = 1; i <= ${#SERVERS[@]}; i++)); do echo "    $i replica_$i;"; done
  echo "  }"
  # Who served: the last address tried (after a failover \$upstream_addr lists every one).
  echo "  map \$upstream_addr \$ra_served { default \"\";"
  for ((i = 1; i <= ${#SERVERS[@]}; i++)); do
    echo "    \"~(^|, )${SERVERS[$((i - 1))]//./\\.}\$\" $i;"
  done
  echo "  }"
  # The cookie is (re)set only when it is missing or names another replica than the one that served.
  echo "  map \"\$cookie_ra_replica:\$ra_served\" \$ra_set_cookie {"
  echo "    \"~:\$\" \"\"; \"~^(\\d+):\\1\$\" \"\";"
  echo "    default \"ra_replica=\$ra_served; Path=/; HttpOnly; SameSite=Lax\"; }"
  echo "  map \$http_upgrade \$connection_upgrade { default upgrade; \"\" \"\"; }"
  echo "  server {"
  echo "    listen 127.0.0.1:$PORT;"
  echo "    client_max_body_size ${UPLOAD_MB}m;"
  echo "    location / {"
  echo "      proxy_pass http://\$ra_upstream;"
  echo "      proxy_http_version 1.1;"
  echo "      proxy_set_header Upgrade \$http_upgrade;"
  echo "      proxy_set_header Connection \$connection_upgrade;"
  echo "      proxy_set_header Host \$host;"
  echo "      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;"
  echo "      proxy_set_header X-Forwarded-Proto \$scheme;"
  echo "      proxy_set_header X-Forwarded-Host \$host;"
  echo "      proxy_buffering off; proxy_request_buffering off; proxy_cache off;"
  echo "      proxy_read_timeout 1h; proxy_send_timeout 1h;"
  echo "      proxy_next_upstream error timeout http_502 http_503;"
  echo "      add_header X-Replica \$ra_served always;"
  echo "      add_header Set-Cookie \$ra_set_cookie always;"
  echo "    }"
  echo "  }"
  echo "}"
} > "$RUN/nginx/nginx.conf"
nginx -t -q -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -e "$RUN/nginx/error.log"
nginx -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -e "$RUN/nginx/error.log" -g "daemon off;" &
started nginx "$!"
wait_for nginx "$!" http_ok "http://127.0.0.1:$PORT/config"

echo "replicas: ready http://127.0.0.1:$PORT/ ($COUNT local + ${#REMOTE[@]} remote app processes," \
  "Redis at ${REDIS_URL:+${REDIS_URL##*@}}, logs in $RUN)"  # never the password before an @
set +e
wait -n "${PIDS[@]}"
status=$?
(( stopping )) || echo "replicas: a process exited ($status); stopping the others" >&2
exit 1
