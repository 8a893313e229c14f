#!/usr/bin/env bash
# Replays the real 28-commit history of JP's conversations into a repository
# with git-jpblob installed, clones it, and checks every conversation at
# every commit byte for byte, with git status clean throughout. Prints the
# .git sizes after git gc, with git-jpblob and without.
. "$(dirname "$0")/lib.sh"
bundle="${FIXTURES:+$(dirname "$FIXTURES")/jp-conversations-history.bundle}"
if [ -z "$bundle" ] || [ ! -f "$bundle" ]; then
  echo "SKIP: ../shared/fixtures is absent"
  exit 0
fi

git clone -q "$bundle" "$TEST_ROOT/source"
src="$TEST_ROOT/source"
mapfile -t commits < <(git -C "$src" rev-list --reverse HEAD)

history_has_28_commits() {
  [ "${#commits[@]}" -eq 28 ] || fail "expected 28 commits, got ${#commits[@]}"
}
case_ "the recorded history has 28 commits" history_has_28_commits

replay_keeps_status_clean() {
  new_installed_repo replay
  git init -q "$TEST_ROOT/plain"
  local c dest
  for c in "${commits[@]}"; do
    git -C "$src" checkout -q "$c"
    for dest in "$TEST_ROOT/replay" "$TEST_ROOT/plain"; do
      rm -rf "$dest/.jp/conversations"
      mkdir -p "$dest/.jp"
      cp -r "$src/.jp/conversations" "$dest/.jp/"
      git -C "$dest" add -A .jp/conversations
      git -C "$dest" commit -q --allow-empty -m "$(git -C "$src" log -1 --format=%s "$c")" \
        --date="$(git -C "$src" log -1 --format=%aI "$c")"
    done
    [ -z "$(git status --porcelain --untracked-files=no)" ] || fail "status not clean after replaying $c"
  done
  assert_blobs_committed
}
case_ "replaying every commit keeps git status clean and commits every blob" replay_keeps_status_clean

clone_restores_every_commit() {
  git clone -q "$TEST_ROOT/replay" "$TEST_ROOT/clone"
  cd "$TEST_ROOT/clone"
  local replayed i
  mapfile -t replayed < <(git rev-list --reverse HEAD)
  for i in "${!commits[@]}"; do
    git checkout -q "${replayed[$((i + 1))]}"
    git -C "$src" checkout -q "${commits[$i]}"
    diff -r "$src/.jp/conversations" .jp/conversations > /dev/null ||
      fail "commit $i (${commits[$i]}) differs after clone and checkout"
    [ -z "$(git status --porcelain)" ] || fail "status not clean at commit $i: $(git status --porcelain | head -3)"
  done
}
case_ "a clone gives back every conversation at every commit, byte for byte" clone_restores_every_commit

print_git_sizes() {
  local repo
  for repo in replay plain; do
    git -C "$TEST_ROOT/$repo" gc -q --aggressive
    echo "$repo: .git is $(du -sk "$TEST_ROOT/$repo/.git" | cut -f1) KiB after git gc --aggressive"
  done
}
case_ ".git sizes after git gc --aggressive, with git-jpblob and without" print_git_sizes
pass
