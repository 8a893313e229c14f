#!/usr/bin/env bash
# Command two: run every test. Installs the dependencies, builds with
# warnings as errors, runs each fuzz target briefly under ASan + UBSan, then
# the unit, property and end-to-end tests through ctest.
# FUZZ_SECONDS (default 10) sets each fuzz target's run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz_seconds=${FUZZ_SECONDS:-10}

"$root/install/deps.sh"
# husky and lefthook (and the agent clients), from npm, for their e2e tests:
# fetched while the builds below run, since they wait on the network, not
# the cores; ctest waits for them.
managers_log=$(mktemp)
"$root/install/hook-managers.sh" > "$managers_log" 2>&1 &
managers=$!

echo "== build (warnings are errors)"
# Tests on explicitly: a build/ that install/setup.sh configured without
# them is reconfigured, never silently reused.
"$root/install/build.sh" -DJPBLOB_WERROR=ON -DJPBLOB_TESTS=ON
echo "   ($SECONDS s so far)"

echo "== fuzz (clang, ASan + UBSan, ${fuzz_seconds}s a target)"
CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DJPBLOB_FUZZ=ON -DJPBLOB_WERROR=ON > /dev/null
targets=(reference clean gzip pktline session process)
# Only the fuzz targets: the rest of this build is what build/ already proved.
cmake --build "$root/build-fuzz" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
# Each target on its own core: a run is one process for its whole time.
fuzz_one() {
  local target=$1 corpus
  corpus=$(mktemp -d)
  cp "$root/tests/fuzz/corpus/$target/"* "$corpus/"
  if ! (cd "$corpus" && "$root/build-fuzz/tests/fuzz/fuzz_$target" -max_total_time="$fuzz_seconds" \
      -max_len=4096 -print_final_stats=0 "$corpus" > fuzz.log 2>&1); then
    tail -40 "$corpus/fuzz.log"
    echo "fuzz_$target failed; the crashing input is in $corpus"
    return 1
  fi
  echo "fuzz_$target: $(grep -a -E '^#[0-9]+' "$corpus/fuzz.log" | tail -1)"
  rm -rf "$corpus"
}
jobs_at_once=$(nproc)
pids=()
failed=0
for target in "${targets[@]}"; do
  if [ ${#pids[@]} -ge "$jobs_at_once" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
  fuzz_one "$target" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || exit 1
echo "   ($SECONDS s so far)"

if ! wait "$managers"; then
  cat "$managers_log"
  echo "install/hook-managers.sh failed" >&2
  exit 1
fi
cat "$managers_log"
rm -f "$managers_log"

echo "== unit, property and end-to-end tests"
cd "$root/build"
count=$(ctest -N | sed -n 's/^Total Tests: //p')
if [ "${count:-0}" -eq 0 ]; then
  echo "ctest finds no test in $root/build; refusing to report success" >&2
  exit 1
fi
ctest --output-on-failure --no-tests=error -j "$(nproc)"
