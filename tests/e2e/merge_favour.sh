#!/usr/bin/env bash
# `git merge -X ours|theirs` on a conversation both sides edited: git tells
# an external merge driver nothing of -X (no variable, no file under .git
# while the driver runs), so the driver stops with its conflict in JP's form
# and says how to take one side: `git checkout --theirs -- <file>` (or
# --ours), then `git add`. That recipe gives the side's conversation byte
# for byte, with its blobs committed, in both work-tree modes.
. "$(dirname "$0")/lib.sh"

conv=.jp/conversations/1-edited/events.json

# A repository where main and "theirs" each edited the same tool output.
# $1: the repository's name, $2: install's lean option.
setup() {
  new_installed_repo "$1"
  git jpblob install "$2" > /dev/null
  commit_conversation 1-edited "the output both will edit"
  git checkout -q -b theirs
  commit_conversation 1-edited "their edit of the output"
  cp "$conv" "$TEST_ROOT/$1-theirs.json"
  git checkout -q main
  commit_conversation 1-edited "our edit of the output"
  cp "$conv" "$TEST_ROOT/$1-ours.json"
  git tag ours-point
}
setup keep --no-lean
setup lean --lean

take_side() {
  local repo=$1 side=$2
  cd "$TEST_ROOT/$repo"
  git reset -q --hard ours-point
  if git merge -q -X "$side" --no-edit theirs > /dev/null 2> "$TEST_ROOT/err"; then
    fail "the merge went through: the driver learnt of -X after all, update this test and docs/USING.md"
  fi
  grep -q "git checkout --ours -- $conv" "$TEST_ROOT/err" && grep -q "git checkout --theirs -- $conv" "$TEST_ROOT/err" ||
    fail "the conflict message does not give the recipe: $(cat "$TEST_ROOT/err")"
  git checkout "--$side" -- "$conv"
  git add "$conv"
  git commit -q --no-edit
  cmp -s "$conv" "$TEST_ROOT/$repo-$side.json" || fail "the conversation is not $side's, byte for byte"
  ! grep -q '"\$blob"' "$conv" || fail "the work tree holds references"
  assert_clean_status
  assert_blobs_committed
  git jpblob verify > /dev/null || fail "verify fails after the recipe"
  # A fresh checkout gives the same bytes back.
  rm "$conv"
  git checkout -- "$conv"
  cmp -s "$conv" "$TEST_ROOT/$repo-$side.json" || fail "checked out again, the conversation differs"
}
for repo in keep lean; do
  case_ "$repo: git merge -X theirs stops, naming the recipe; git checkout --theirs, git add and commit give theirs" \
    take_side "$repo" theirs
  case_ "$repo: the same with -X ours and git checkout --ours" take_side "$repo" ours
done
pass
