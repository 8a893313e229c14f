#!/usr/bin/env bash
# Installed git-jpblob (filter-process + hook): add, commit, rm, checkout,
# clone from a bare remote, stash, amend; git status stays clean.
. "$(dirname "$0")/lib.sh"

new_installed_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
cp "$conv" "$TEST_ROOT/original.json"

process_configured() {
  [ "$(git config --global filter.jpblob.process)" = "git-jpblob filter-process" ] || fail "process not configured"
}
case_ "install configures the long-running filter" process_configured

add_and_commit() {
  git add "$conv" .jp/conversations/17758406187-demo/metadata.json
  [ -z "$(git status --porcelain --untracked-files=no | grep -v '^A ')" ] || fail "add left changes: $(git status --porcelain)"
  git commit -qm conversation
  assert_no_changes
  assert_blobs_committed
  git cat-file -p "HEAD:$conv" | grep -q '"\$blob":"' || fail "HEAD does not hold references"
}
case_ "add and commit: HEAD holds references and the blobs, status clean" add_and_commit

log_shows_text() {
  git log -p -1 > "$TEST_ROOT/log"
  grep -q '"content": "cargo check finished without errors"' "$TEST_ROOT/log" || fail "log -p does not show the tool output"
  grep -q '^+cargo check finished without errors$' "$TEST_ROOT/log" || fail "log -p does not show the blob's text"
}
case_ "git log -p shows readable content through textconv, not digests or gzip" log_shows_text

checkout_restores() {
  rm "$conv"
  git checkout -- "$conv"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "checkout changed the file"
  assert_no_changes
  # No perpetual re-clean: a second status after the index is refreshed is
  # still clean, and the index entry is not racy any more.
  sleep 1
  git status > /dev/null
  assert_no_changes
}
case_ "rm and checkout restore the file; no perpetual re-clean" checkout_restores

bare_remote_and_clone() {
  git clone -q --bare . "$TEST_ROOT/remote.git"
  git clone -q "$TEST_ROOT/remote.git" "$TEST_ROOT/clone"
  cd "$TEST_ROOT/clone"
  install_jpblob  # hooks do not travel with a clone
  cmp "$conv" "$TEST_ROOT/original.json" || fail "clone did not restore the conversation"
  assert_no_changes
  [ -z "$(git status --porcelain)" ] || fail "clone has untracked files: $(git status --porcelain)"
}
case_ "a bare remote and a fresh clone" bare_remote_and_clone

stash_and_pop() {
  cd "$TEST_ROOT/clone"
  grow_conversation "$conv" "stashed tool output"
  cp "$conv" "$TEST_ROOT/grown.json"
  git stash -q
  cmp "$conv" "$TEST_ROOT/original.json" || fail "stash did not restore the committed file"
  assert_no_changes
  git stash pop -q
  cmp "$conv" "$TEST_ROOT/grown.json" || fail "stash pop did not bring the change back"
}
case_ "stash and pop" stash_and_pop

amend_and_push() {
  cd "$TEST_ROOT/clone"
  git add "$conv"
  git commit -qm grown
  grow_conversation "$conv" "amended tool output"
  git add "$conv"
  git commit -q --amend -m "grown, amended"
  assert_no_changes
  assert_blobs_committed
  git cat-file -p "HEAD:$conv" | grep -c '"encoding":"base64"' > /dev/null
  git push -q origin HEAD:main
}
case_ "amend, then push to the bare remote" amend_and_push
pass
