#!/usr/bin/env bash
# 30,000 blobs: the hook commits a conversation that references them, also
# when they are staged but absent from the work tree (a sparse checkout, a
# deleted folder); gc deletes every one once the conversation is gone,
# unstages every one and leaves no emptied aa/bb folder. Paths reach git on
# standard input, never one argument each ("Argument list too long").
. "$(dirname "$0")/lib.sh"
only_in_mode full "its cases are about 30,000 blob files in the work tree (staged, then gone, then deleted with their folders), which a lean tree never has; a lean tree's gc of skip-worktree entries is e2e both_homes, run once to keep .ci/run under its 20 minutes"
new_installed_repo
git config jpblob.fsync false
conv=.jp/conversations/1-big/events.json

hook_commits_30000() {
  mkdir -p "$(dirname "$conv")"
  python3 - "$conv" <<'PY'
import base64, json, sys
events = [{"type": "tool_call_response", "id": "t%d" % i,
           "content": base64.b64encode(b"output %d" % i).decode(), "is_error": False}
          for i in range(30000)]
with open(sys.argv[1], "w") as f:
    json.dump(events, f, indent=2)
PY
  git add "$conv"
  git commit -qm "30,000 payloads"
  local tracked
  tracked=$(git ls-files .jp/blobs | wc -l)
  [ "$tracked" -eq 30000 ] || fail "the hook committed $tracked blobs, not 30000"
}
case_ "the hook commits a conversation with 30,000 blobs" hook_commits_30000

# The blobs leave the work tree but stay staged; one more payload is added.
staged_blobs_absent_from_work_tree() {
  grow_conversation "$conv" "one more output"
  git add "$conv"
  git add .jp/blobs  # the new blob, which clean wrote while adding the conversation
  rm -rf .jp/blobs
  git commit -qm "30,001 payloads" || fail "the hook refused blobs that are staged"
  [ "$(git ls-files .jp/blobs | wc -l)" -eq 30001 ] || fail "the new blob was not committed"
  git checkout -- .jp/blobs
}
case_ "blobs staged but gone from the work tree are committed" staged_blobs_absent_from_work_tree

gc_deletes_and_unstages_all() {
  git rm -q -r .jp/conversations/1-big
  git commit -qm "drop it"
  git jpblob gc --prune=now > "$TEST_ROOT/gc.out" 2>&1 || fail "gc failed: $(tail -3 "$TEST_ROOT/gc.out")"
  grep -q "^Removed 30001 file" "$TEST_ROOT/gc.out" || fail "gc: $(tail -1 "$TEST_ROOT/gc.out")"
  local left
  left=$(git ls-files .jp/blobs | wc -l)
  [ "$left" -eq 0 ] || fail "$left deleted blobs are still in the index"
  [ -z "$(find .jp/blobs -mindepth 1 2>/dev/null)" ] || fail "gc left folders: $(find .jp/blobs -mindepth 1 | head -3)"
  git commit -qm gc
  assert_no_changes
}
case_ "gc deletes and unstages 30,001 blobs and leaves no emptied folder" gc_deletes_and_unstages_all
pass
