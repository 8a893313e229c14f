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

# Standard input that is a regular file of a MiB or more is mapped, not
# read (filter/oneshot): the same bytes out as from a pipe, and a file
# whose offset is past its start (a shell that read a line of it) is
# taken from where it stands, as a read would.
file_or_pipe() {
  [ "$(stat -c %s "$TEST_ROOT/big.json")" -ge 1048576 ] || fail "the input is too small to be mapped"
  cat "$TEST_ROOT/big.json" | "$JPBLOB_BIN" clean > "$TEST_ROOT/piped.json"
  "$JPBLOB_BIN" clean < "$TEST_ROOT/big.json" > "$TEST_ROOT/mapped.json"
  cmp "$TEST_ROOT/piped.json" "$TEST_ROOT/mapped.json" || fail "a file and a pipe cleaned differently"
  # Used up, as a read leaves it, for whatever reads the same input next.
  local left
  left=$({ "$JPBLOB_BIN" clean > /dev/null; wc -c; } < "$TEST_ROOT/big.json")
  [ "$left" -eq 0 ] || fail "$left bytes of the input were left for the next reader"
  { head -c 1 > /dev/null; "$JPBLOB_BIN" clean > "$TEST_ROOT/offset.json" 2> "$TEST_ROOT/err"; } < "$TEST_ROOT/big.json" || true
  tail -c +2 "$TEST_ROOT/big.json" | "$JPBLOB_BIN" clean > "$TEST_ROOT/rest.json" 2> /dev/null || true
  cmp "$TEST_ROOT/offset.json" "$TEST_ROOT/rest.json" || fail "a file past its start was not taken from there"
}
case_ "a file is mapped, a pipe read: the same bytes; a file past its start is read from there" file_or_pipe
pass
