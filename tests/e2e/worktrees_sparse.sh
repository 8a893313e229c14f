#!/usr/bin/env bash
# Linked worktrees, and a sparse checkout that leaves .jp/blobs out: smudge
# reads the blobs from git's objects.
. "$(dirname "$0")/lib.sh"

new_installed_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
cp "$conv" "$TEST_ROOT/original.json"
git add .jp/conversations
git commit -qm conversation
git worktree add -q "$TEST_ROOT/wt" -b side

worktree_checkout() {
  cd "$TEST_ROOT/wt"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "worktree checkout"
}
case_ "a linked worktree's checkout restores the conversation" worktree_checkout

install_from_worktree() {
  cd "$TEST_ROOT/wt"
  install_jpblob  # from a linked worktree: must go to the main repository
  [ ! -e "$(git rev-parse --git-dir)/hooks/pre-commit" ] || [ "$(git rev-parse --git-dir)" = "$(git rev-parse --git-common-dir)" ] ||
    fail "hook installed into the worktree's private folder"
}
case_ "install from a linked worktree puts the hook in the main repository" install_from_worktree

commit_in_worktree() {
  cd "$TEST_ROOT/wt"
  grow_conversation "$conv" "worktree output"
  git commit -qam "from the worktree"
  assert_no_changes
  assert_blobs_committed
}
case_ "a commit in the worktree stages blobs through the main repository's hook" commit_in_worktree

verify_in_both_worktrees() {
  cd "$TEST_ROOT/wt"
  write_conversation 2-only-here "added in the linked worktree only"
  git add .jp/conversations/2-only-here
  cd "$TEST_ROOT/repo"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the main worktree: $(cat "$TEST_ROOT/verify.out")"
  cd "$TEST_ROOT/wt"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the linked worktree: $(cat "$TEST_ROOT/verify.out")"
  git reset -q && rm -rf .jp/conversations/2-only-here
}
case_ "verify in either of two linked worktrees reports nothing missing" verify_in_both_worktrees

sparse_without_blobs() {
  git clone -q --no-checkout "$TEST_ROOT/repo" "$TEST_ROOT/sparse"
  cd "$TEST_ROOT/sparse"
  git sparse-checkout set --no-cone '/*' '!/.jp/blobs/'
  git checkout -q main
  [ ! -e .jp/blobs ] || fail ".jp/blobs was checked out"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "sparse checkout did not restore from git's objects"
  assert_no_changes
}
case_ "a sparse checkout without .jp/blobs restores from git's objects" sparse_without_blobs
pass
