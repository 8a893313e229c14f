#!/usr/bin/env bash
# Bad input: one-line errors, passthrough with a warning, nothing lost.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"

new_repo
digest=$(printf 'content that will go missing' | sha256sum | cut -c1-64)

not_json_passes_through() {
  mkdir -p .jp/conversations/1-broken
  printf '[{"type":"tool_call_response","content":"aGVsbG8=' > .jp/conversations/1-broken/events.json
  git add .jp/conversations/1-broken/events.json 2> "$TEST_ROOT/err"
  [ "$(grep -c 'git-jpblob: warning:' "$TEST_ROOT/err")" -eq 1 ] || fail "expected one warning: $(cat "$TEST_ROOT/err")"
  grep -q '1-broken/events.json is not valid JSON' "$TEST_ROOT/err" || fail "warning does not name the file"
  cmp <(git cat-file -p :.jp/conversations/1-broken/events.json) .jp/conversations/1-broken/events.json ||
    fail "malformed file was not stored as it was"
  [ ! -d .jp/blobs ] || fail "blobs were written for malformed input"
}
case_ "not JSON: passed through, one warning naming the file" not_json_passes_through

missing_blob_at_checkout() {
  write_conversation 2-gone "content that will go missing"
  git add .gitattributes .jp/conversations/2-gone/events.json
  git commit -qm gone
  remove_blob_files "$digest"
  rm .jp/conversations/2-gone/events.json
  if git checkout -- .jp/conversations/2-gone/events.json 2> "$TEST_ROOT/err"; then
    fail "checkout succeeded without the blob"
  fi
  grep -q "git-jpblob: blob $digest referenced by .jp/conversations/2-gone/events.json is missing" "$TEST_ROOT/err" ||
    fail "the error does not name digest and conversation: $(cat "$TEST_ROOT/err")"
  [ "$(grep -c . "$TEST_ROOT/err")" -ge 1 ] && [ -z "$(find .jp/conversations/2-gone -name events.json)" ] ||
    fail "a failed smudge left a file behind"
  JPBLOB_SKIP_SMUDGE=1 git checkout -- .jp/conversations/2-gone/events.json
  grep -q "\"\$blob\":\"$digest\"" .jp/conversations/2-gone/events.json || fail "skip did not leave references"
  git -c jpblob.smudge=refs checkout -- .jp/conversations/2-gone/events.json
}
case_ "a missing blob at checkout: clear failure naming the digest; the skip variable gets past it" missing_blob_at_checkout

usage_error_exits_129() {
  local rc
  set +e
  # An unknown option; an unknown command is git's status 1 (git_conventions.sh).
  "$JPBLOB_BIN" verify --frobnicate > /dev/null 2> "$TEST_ROOT/err"; rc=$?
  set -e
  [ "$rc" -eq 129 ] || fail "usage error exited $rc"
}
case_ "a usage error exits 129, as git's do" usage_error_exits_129

# Cleans the conversation the case before left in the work tree.
store_link_outside_refused() {
  local rc
  mkdir -p "$TEST_ROOT/outside"
  rm -rf .jp/blobs
  ln -s "$TEST_ROOT/outside" .jp/blobs
  # The link is refused where the store is used: clean in a lean work
  # tree writes its new blobs in the git folder, never there; with the
  # store checked out it writes there, and is refused. verify reads it.
  set +e
  "$JPBLOB_BIN" clean < .jp/conversations/2-gone/events.json > /dev/null 2> "$TEST_ROOT/err"; rc=$?
  set -e
  if ! lean_mode || [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 128 ] || fail "symlinked store: exit $rc"
    [ "$(wc -l < "$TEST_ROOT/err")" -eq 1 ] || fail "expected one line: $(cat "$TEST_ROOT/err")"
    grep -q '^git-jpblob: refusing blob store' "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  fi
  set +e
  "$JPBLOB_BIN" verify > /dev/null 2> "$TEST_ROOT/err"; rc=$?
  set -e
  [ "$rc" -eq 128 ] || fail "verify of a symlinked store: exit $rc"
  [ "$(wc -l < "$TEST_ROOT/err")" -eq 1 ] || fail "verify: expected one line: $(cat "$TEST_ROOT/err")"
  grep -q '^git-jpblob: refusing blob store' "$TEST_ROOT/err" || fail "verify's message: $(cat "$TEST_ROOT/err")"
  [ -z "$(ls -A "$TEST_ROOT/outside")" ] || fail "wrote outside the repository"
}
case_ "a .jp/blobs that links outside the repository is refused, one line, nothing written" store_link_outside_refused
pass
