#!/usr/bin/env bash
# A clean killed at random moments leaves no partial blob: every file named
# like a blob is complete and matches its name.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"
new_repo
python3 - > "$TEST_ROOT/big.json" <<'PY'
import base64, os, random
random.seed(7)
events = []
for i in range(400):
    data = (f"output {i} " * random.randint(100, 4000)).encode() + os.urandom(64)
    events.append('{"type":"tool_call_response","id":"t%d","content":"%s"}' % (i, base64.b64encode(data).decode()))
print("[" + ",\n".join(events) + "]")
PY

killed_cleans() {
  local i pid
  for i in $(seq 1 12); do
    "$JPBLOB_BIN" clean < "$TEST_ROOT/big.json" > /dev/null 2>&1 &
    pid=$!
    sleep "0.0$((RANDOM % 9 + 1))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    verify_blobs
  done
}
case_ "a clean killed at random moments leaves no partial blob" killed_cleans

# The interrupted runs leave at most temporary files, which a full run
# ignores; it then completes the store.
full_run_after_kills() {
  "$JPBLOB_BIN" clean < "$TEST_ROOT/big.json" > "$TEST_ROOT/clean.json"
  "$JPBLOB_BIN" smudge < "$TEST_ROOT/clean.json" | cmp - "$TEST_ROOT/big.json" || fail "round trip after kills"
  verify_blobs
}
case_ "a full run after the kills completes the store and round-trips" full_run_after_kills
pass
