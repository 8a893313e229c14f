#!/usr/bin/env bash
# Reference-shaped user data (issue 25, item 1): an agent passing
# {"$blob":"<hex>","size":N,"encoding":"text"} as a structured tool argument
# must get its object back, byte for byte, whether or not that blob exists.
# Before, checkout replaced the one naming a stored blob by the blob's text
# (and git status stayed clean), and the hook refused the commit of the one
# naming no blob, for ever.
. "$(dirname "$0")/lib.sh"
install_jpblob
new_installed_repo repo

# A blob the repository holds: the output of conversation 1.
commit_conversation 1-first "the tool output a user's argument names"
EXISTS=$(printf 'the tool output a user'"'"'s argument names' | sha256sum | cut -c1-64)
EXISTS_SIZE=$(printf 'the tool output a user'"'"'s argument names' | wc -c)
MISSING=$(printf 'never stored anywhere' | sha256sum | cut -c1-64)
# A blob in the store that nothing but the user's object names.
printf 'named only by user data' > "$TEST_ROOT/only"
ONLY=$(git jpblob store "$TEST_ROOT/only" | sed "s/^blob:sha256://; s/ .*//")
ONLY_FILE=".jp/blobs/${ONLY:0:2}/${ONLY:2:2}/$ONLY.blob.gz"
mkdir -p .jp/conversations/2-shaped
cat > .jp/conversations/2-shaped/events.json <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_2",
    "name": "remember",
    "arguments": {
      "exists": {"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"},
      "missing": {
        "\$blob": "$MISSING",
        "size": 21,
        "encoding": "base64"
      },
      "nested": [{"only": {"\$blob":"$ONLY","size":23,"encoding":"text"}}],
      "escape": {"\$jpblob-literal":{"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"}}
    }
  },
  {
    "timestamp": "2026-04-10 17:04:24.923537",
    "type": "tool_call_response",
    "id": "toolu_2",
    "content": {"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"},
    "is_error": false
  }
]
JSON
cp .jp/conversations/2-shaped/events.json "$TEST_ROOT/shaped.json"
touch -d '2 days ago' "$ONLY_FILE"
# Only the user's data names it: untracked, and not what status should show.
echo "/$ONLY_FILE" >> "$(git rev-parse --git-dir)/info/exclude"
SHAPED=.jp/conversations/2-shaped/events.json

commit_works() {
  git add .jp/conversations
  git commit -qm "reference-shaped arguments" 2> "$TEST_ROOT/commit.err" ||
    fail "the hook refused the user's data: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$SHAPED" | grep -q '"\$jpblob-literal":{"\$jpblob-literal":' ||
    fail "the user's literal was not escaped: $(git show "HEAD:$SHAPED")"
  ! git cat-file -e "HEAD:$ONLY_FILE" 2> /dev/null || fail "the hook committed a blob only user data names"
  assert_clean_status
}
case_ "a commit holding reference-shaped arguments goes through, in literals" commit_works

checkout_gives_it_back() {
  rm "$SHAPED"
  git checkout -- "$SHAPED"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "checkout changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/shaped.json")"
  assert_clean_status
}
case_ "checkout of the path gives the file back byte for byte" checkout_gives_it_back

clone_gives_it_back() {
  git clone -q "$TEST_ROOT/repo" "$TEST_ROOT/clone" 2> "$TEST_ROOT/clone.err" ||
    fail "clone failed: $(cat "$TEST_ROOT/clone.err")"
  cd "$TEST_ROOT/clone"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "the clone changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/shaped.json")"
  assert_clean_status
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the clone: $(cat "$TEST_ROOT/verify.out")"
}
case_ "a fresh clone gives the file back byte for byte, status clean, verify happy" clone_gives_it_back

gc_and_verify() {
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/gc.err" || fail "gc failed: $(cat "$TEST_ROOT/gc.err")"
  [ -f "$ONLY_FILE" ] || fail "gc deleted the blob the user's data names"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify failed: $(cat "$TEST_ROOT/verify.out")"
  ! grep -q "^problem: .*$MISSING" "$TEST_ROOT/verify.out" || fail "verify requires the missing blob: $(cat "$TEST_ROOT/verify.out")"
  grep -q "^note: .*$MISSING" "$TEST_ROOT/verify.out" || fail "verify does not note the missing blob: $(cat "$TEST_ROOT/verify.out")"
  git jpblob verify --history > "$TEST_ROOT/history.out" 2>&1 || fail "verify --history failed: $(cat "$TEST_ROOT/history.out")"
}
case_ "gc keeps what the user's data names, verify requires none of it" gc_and_verify

skipped_checkout_stays_committed() {
  rm "$SHAPED" .jp/conversations/1-first/events.json
  JPBLOB_SKIP_SMUDGE=1 git checkout -- .jp/conversations
  grep -q '"\$jpblob-literal"' "$SHAPED" || fail "the skip did not leave the committed form"
  # Clean reads it as committed: its references stay references.
  assert_clean_status
  grep -qx '.jp/conversations/1-first/events.json' "$(git rev-parse --git-dir)/jpblob/committed-form" ||
    fail "the skipped checkout was not recorded"
  git jpblob checkout > "$TEST_ROOT/out" || fail "git jpblob checkout failed: $(cat "$TEST_ROOT/out")"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "git jpblob checkout changed the user's objects"
  assert_clean_status
  ! grep -q conversations "$(git rev-parse --git-dir)/jpblob/committed-form" || fail "the record still lists restored files"
}
case_ "after JPBLOB_SKIP_SMUDGE=1, status is clean and git jpblob checkout restores the user's objects" \
  skipped_checkout_stays_committed

# The merge driver merges two sides line by line in JP's form, where the
# user's objects stand bare, and cleans the result reading JP's form.
merge_keeps_them() {
  git checkout -q -b side
  sed -i 's/"name": "remember"/"name": "recall"/' "$SHAPED"
  git commit -qam "side: rename the tool"
  git checkout -q -
  sed -i 's/"is_error": false/"is_error": true/' "$SHAPED"
  git commit -qam "main: an error after all"
  git merge -q --no-edit side 2> "$TEST_ROOT/merge.err" || fail "the merge failed: $(cat "$TEST_ROOT/merge.err")"
  sed 's/"name": "remember"/"name": "recall"/; s/"is_error": false/"is_error": true/' "$TEST_ROOT/shaped.json" \
    > "$TEST_ROOT/merged.json"
  cmp -s "$SHAPED" "$TEST_ROOT/merged.json" || fail "the merge changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/merged.json")"
  git show "HEAD:$SHAPED" | grep -q '"missing": {"\$jpblob-literal":' ||
    fail "the merge committed the user's objects as references: $(git show "HEAD:$SHAPED")"
  rm "$SHAPED"
  git checkout -- "$SHAPED"
  cmp -s "$SHAPED" "$TEST_ROOT/merged.json" || fail "checkout after the merge changed the user's objects"
  assert_clean_status
}
case_ "a line merge by the merge driver keeps the user's objects as they were" merge_keeps_them

pass
