#!/usr/bin/env bash
# add -> commit -> rm -> checkout restores byte-identical files through the
# one-shot filter, and the repository holds references.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"

new_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
cp "$conv" "$TEST_ROOT/original.json"

add_and_commit() {
  git add .gitattributes "$conv" .jp/conversations/17758406187-demo/metadata.json
  git add .jp/blobs
  git commit -qm "conversation"
  assert_clean_status
}
case_ "add and commit leave git status clean" add_and_commit

repository_holds_references() {
  local staged
  staged=$(git cat-file -p ":$conv")
  grep -q '"\$blob":"' <<<"$staged" || fail "the index does not hold references"
  grep -q '"encoding":"base64"' <<<"$staged" || fail "no encoded reference"
  ! grep -q "$(printf 'cargo check finished without errors' | base64 -w0)" <<<"$staged" ||
    fail "the payload is still inline in the repository"
  [ "$(git ls-files .jp/blobs | wc -l)" -eq 2 ] || fail "expected 2 blob files"
  verify_blobs
}
case_ "the repository holds references and two sound blob files, not the payload" repository_holds_references

checkout_restores() {
  rm "$conv"
  git checkout -- "$conv"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "checkout did not restore the file byte for byte"
  assert_clean_status
}
case_ "rm and checkout restore the file byte for byte" checkout_restores

clone_restores() {
  git clone -q "$PWD" "$TEST_ROOT/clone"
  cd "$TEST_ROOT/clone"
  use_oneshot_filter
  git checkout -q -- .gitattributes
  rm "$conv"
  git checkout -- "$conv"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "clone did not restore the file byte for byte"
}
case_ "a fresh clone restores it too" clone_restores
pass
