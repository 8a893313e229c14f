#!/usr/bin/env bash
# Two branches that both grew the same conversation: merge and rebase go
# through by themselves (the merge driver splices both sides' new events),
# and every blob either side referenced is committed. Real conflicts are
# in merge_driver.sh and hook_modes.sh.
. "$(dirname "$0")/lib.sh"

new_installed_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
git add .jp/conversations
git commit -qm base
git checkout -q -b left
grow_conversation "$conv" "left tool output"
git commit -qam left
git checkout -q -b right main
grow_conversation "$conv" "right tool output"
git commit -qam right

# Checks the conversation out afresh: both sides' tool output must be back.
assert_both_sides_restored() {
  rm "$conv"
  git checkout -- "$conv"
  local text
  for text in "left tool output" "right tool output"; do
    grep -q "$(printf '%s' "$text" | base64 -w0)" "$conv" || fail "$1 lost: $text"
  done
}

merge() {
  git checkout -q main
  git merge -q left
  git merge -q --no-edit right 2> "$TEST_ROOT/err" || fail "the merge stopped: $(cat "$TEST_ROOT/err")"
  ! grep -q '"\$blob"' "$conv" || fail "the work tree holds references"
  assert_no_changes
  assert_blobs_committed
  assert_both_sides_restored merge
}
case_ "merge: both sides' appended events merge by themselves, every blob committed" merge

rebase() {
  git checkout -q right
  git rebase -q left 2> "$TEST_ROOT/err" || fail "the rebase stopped: $(cat "$TEST_ROOT/err")"
  assert_no_changes
  assert_blobs_committed
  assert_both_sides_restored rebase
}
case_ "rebase right onto left goes through by itself, every blob committed" rebase
pass
