#!/usr/bin/env bash
# Linked worktrees, and a sparse checkout that leaves .jp/blobs out: smudge
# reads the blobs from git's objects.
. "$(dirname "$0")/lib.sh"
subcase "Linked worktrees, and a sparse checkout that leaves .jp/blobs out: smudge reads the blobs from…"

new_installed_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
cp "$conv" "$TEST_ROOT/original.json"
git add .jp/conversations
git commit -qm conversation

subcase "A linked worktree: checkout restores, and a commit there stages blobs through the hook installed…"
# A linked worktree: checkout restores, and a commit there stages blobs
# through the hook installed in the main repository.
git worktree add -q "$TEST_ROOT/wt" -b side
cd "$TEST_ROOT/wt"
cmp "$conv" "$TEST_ROOT/original.json" || fail "worktree checkout"
install_jpblob  # from a linked worktree: must go to the main repository
[ ! -e "$(git rev-parse --git-dir)/hooks/pre-commit" ] || [ "$(git rev-parse --git-dir)" = "$(git rev-parse --git-common-dir)" ] ||
  fail "hook installed into the worktree's private folder"
grow_conversation "$conv" "worktree output"
git commit -qam "from the worktree"
assert_no_changes
assert_blobs_committed

subcase "verify in either of two linked worktrees reports nothing missing"
cd "$TEST_ROOT/wt"
write_conversation 2-only-here "added in the linked worktree only"
git add .jp/conversations/2-only-here
cd "$TEST_ROOT/repo"
git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the main worktree: $(cat "$TEST_ROOT/verify.out")"
cd "$TEST_ROOT/wt"
git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the linked worktree: $(cat "$TEST_ROOT/verify.out")"
git reset -q && rm -rf .jp/conversations/2-only-here

subcase "Sparse checkout without the blobs"
# Sparse checkout without the blobs.
git clone -q --no-checkout "$TEST_ROOT/repo" "$TEST_ROOT/sparse"
cd "$TEST_ROOT/sparse"
git sparse-checkout set --no-cone '/*' '!/.jp/blobs/'
git checkout -q main
[ ! -e .jp/blobs ] || fail ".jp/blobs was checked out"
cmp "$conv" "$TEST_ROOT/original.json" || fail "sparse checkout did not restore from git's objects"
assert_no_changes
pass
