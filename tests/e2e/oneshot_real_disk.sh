#!/usr/bin/env bash
# A real full disk and a real read-only store, on a tiny tmpfs mounted over
# .jp/blobs in a private mount namespace: clean fails with one line, writes
# nothing to stdout, leaves no partial blob, and git keeps the old index.
if [ -z "${JPBLOB_IN_NAMESPACE:-}" ]; then
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "SKIP: no permission to create a mount namespace"
    exit 0
  fi
  JPBLOB_IN_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"

new_repo
mkdir -p .jp/blobs
mount -t tmpfs -o size=128k tmpfs .jp/blobs
payload() { head -c "$1" /dev/urandom | base64 -w0; }
mkdir -p .jp/conversations/1-full
printf '[{"type":"tool_call_response","content":"%s"},{"type":"tool_call_response","content":"%s"}]' \
  "$(payload 1000)" "$(payload 400000)" > .jp/conversations/1-full/events.json

# The first blob fits, the second cannot.
full_disk() {
  local rc
  set +e
  "$JPBLOB_BIN" clean .jp/conversations/1-full/events.json < .jp/conversations/1-full/events.json \
    > "$TEST_ROOT/out" 2> "$TEST_ROOT/err"
  rc=$?
  set -e
  [ "$rc" -eq 128 ] || fail "clean on a full disk exited $rc"
  [ "$(wc -l < "$TEST_ROOT/err")" -eq 1 ] || fail "expected one line: $(cat "$TEST_ROOT/err")"
  grep -q 'No space left on device' "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  [ ! -s "$TEST_ROOT/out" ] || fail "clean wrote output despite failing"
  [ -z "$(find .jp/blobs -name '.jpblob-tmp-*')" ] || fail "a temporary file was left behind"
  verify_blobs
}
case_ "full disk: clean fails with one line, no output, no partial blob" full_disk

full_disk_through_git() {
  if git add .jp/conversations/1-full/events.json 2> "$TEST_ROOT/err"; then
    fail "git add succeeded on a full disk"
  fi
  [ -z "$(git ls-files .jp/conversations)" ] || fail "the index changed"
  grep -q 'No space left on device' "$TEST_ROOT/err" || fail "git add message: $(cat "$TEST_ROOT/err")"
}
case_ "full disk through git: the add fails and the index does not change" full_disk_through_git

# A conversation whose blobs all exist still cleans, because present blobs
# need no write.
read_only() {
  local rc
  printf '[{"type":"tool_call_response","content":"%s"}]' "$(printf small | base64)" > "$TEST_ROOT/small.json"
  "$JPBLOB_BIN" clean < "$TEST_ROOT/small.json" > "$TEST_ROOT/small.clean"
  mount -o remount,ro .jp/blobs
  "$JPBLOB_BIN" clean < "$TEST_ROOT/small.json" | cmp - "$TEST_ROOT/small.clean" ||
    fail "clean of stored content failed on a read-only store"
  printf '[{"type":"tool_call_response","content":"%s"}]' "$(payload 100)" > "$TEST_ROOT/new.json"
  set +e
  "$JPBLOB_BIN" clean < "$TEST_ROOT/new.json" > "$TEST_ROOT/out" 2> "$TEST_ROOT/err"
  rc=$?
  set -e
  [ "$rc" -eq 128 ] || fail "clean on a read-only store exited $rc"
  grep -q 'Read-only file system' "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  [ ! -s "$TEST_ROOT/out" ] || fail "clean wrote output despite failing"
}
case_ "read-only store: stored content still cleans, a new blob is refused" read_only
umount .jp/blobs
pass
