#!/usr/bin/env bash
# Run the whole test suite N times (default 3) while two CPU-burning processes compete for the machine.
#
#     scripts/stress_suite.sh        # three busy runs
#     scripts/stress_suite.sh 5      # five
#     scripts/stress_suite.sh 3 tests/test_fault_suite.py --no-cov   # three of some files (pytest's arguments)
#
# A test that only passes on a quiet machine waits on the wall clock somewhere: this is how to find it.
# Prints each run's exit code and wall time; exits non-zero if any run failed. Works from any directory.
set -uo pipefail

runs="${1:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [runs [pytest arguments...]]   (runs: a positive number, default 3)" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
cd "$(dirname "$0")/.."

burners=()
stop_burners() {
  for pid in "${burners[@]}"; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  burners=()
}
trap stop_burners EXIT
trap 'exit 130' INT TERM

for _ in 1 2; do
  "${PYTHON:-python}" -c 'while True: pass' &
  burners+=("$!")
done
echo "burning two CPUs (pids ${burners[*]}) beside $runs run(s) of the suite"

failed=0
results=()
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  python -m pytest -n 2 --dist loadgroup -q -p no:cacheprovider "$@"  # the README's command
  status=$?
  elapsed=$(($(date +%s) - started))
  echo "stress run $run/$runs: exit $status, wall ${elapsed}s"
  results+=("run $run: exit $status, wall ${elapsed}s")
  [ "$status" -eq 0 ] || failed=1
done

echo "summary:"
printf '  %s\n' "${results[@]}"
exit "$failed"
