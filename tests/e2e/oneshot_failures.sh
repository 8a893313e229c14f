#!/usr/bin/env bash
# Bad input: one-line errors, passthrough with a warning, nothing lost.
. "$(dirname "$0")/lib.sh"
subcase "Bad input: one-line errors, passthrough with a warning, nothing lost"

new_repo
# Not JSON: passed through, one warning naming the file.
mkdir -p .jp/conversations/1-broken
printf '[{"type":"tool_call_response","content":"aGVsbG8=' > .jp/conversations/1-broken/events.json
git add .jp/conversations/1-broken/events.json 2> "$TEST_ROOT/err"
[ "$(grep -c 'git-jpblob: warning:' "$TEST_ROOT/err")" -eq 1 ] || fail "expected one warning: $(cat "$TEST_ROOT/err")"
grep -q '1-broken/events.json is not valid JSON' "$TEST_ROOT/err" || fail "warning does not name the file"
cmp <(git cat-file -p :.jp/conversations/1-broken/events.json) .jp/conversations/1-broken/events.json ||
  fail "malformed file was not stored as it was"
[ ! -d .jp/blobs ] || fail "blobs were written for malformed input"

subcase "A missing blob at checkout: clear failure naming the digest"
# A missing blob at checkout: clear failure naming the digest; the skip
# variable gets past it.
write_conversation 2-gone "content that will go missing"
git add .gitattributes .jp/conversations/2-gone/events.json
git commit -qm gone
digest=$(printf 'content that will go missing' | sha256sum | cut -c1-64)
rm "$(find .jp/blobs -name "$digest.blob.gz")" .jp/conversations/2-gone/events.json
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

subcase "Usage errors exit 2"
# Usage errors exit 2; failures exit 1, each with one line.
set +e
"$JPBLOB_BIN" frobnicate > /dev/null 2> "$TEST_ROOT/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "usage error exited $rc"

subcase "A .jp/blobs that links outside the repository is refused"
# A .jp/blobs that links outside the repository is refused; nothing written.
mkdir -p "$TEST_ROOT/outside"
rm -rf .jp/blobs
ln -s "$TEST_ROOT/outside" .jp/blobs
set +e
"$JPBLOB_BIN" clean < .jp/conversations/2-gone/events.json > /dev/null 2> "$TEST_ROOT/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "symlinked store: exit $rc"
[ "$(wc -l < "$TEST_ROOT/err")" -eq 1 ] || fail "expected one line: $(cat "$TEST_ROOT/err")"
grep -q '^git-jpblob: refusing blob store' "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
[ -z "$(ls -A "$TEST_ROOT/outside")" ] || fail "wrote outside the repository"
pass
