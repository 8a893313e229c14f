#!/usr/bin/env bash
# core.autocrlf=true, and conversation folders named with spaces, quotes,
# unicode and leading dashes.
. "$(dirname "$0")/lib.sh"

new_installed_repo
git config core.autocrlf true
names=("17000000001-with space" "17000000002-it's \"quoted\"" "17000000003-ünïcödé-会话" "-17000000004-leading-dash" "--17000000005")
saved() { echo "$TEST_ROOT/$(printf '%s' "$1" | sha256sum | cut -c1-16)"; }
for n in "${names[@]}"; do
  write_conversation "$n" "output for $n"
  cp ".jp/conversations/$n/events.json" "$(saved "$n")"
done

commit_names() {
  git add -- .jp/conversations
  git commit -qm names
  assert_no_changes
  assert_blobs_committed
}
case_ "odd folder names commit with their blobs, status clean" commit_names

checkout_names() {
  local n
  for n in "${names[@]}"; do
    rm -- ".jp/conversations/$n/events.json"
  done
  git checkout -- .jp/conversations
  for n in "${names[@]}"; do
    cmp -- ".jp/conversations/$n/events.json" "$(saved "$n")" ||
      fail "not restored: $n"
    git cat-file -p ":.jp/conversations/$n/events.json" | grep -q '"\$blob"' || fail "no references: $n"
  done
}
case_ "checkout restores every odd name, and the index holds references" checkout_names

# Committed bytes equal the files' bytes.
autocrlf_leaves_blobs() {
  local f
  for f in $(git ls-files .jp/blobs); do
    [ "$(git cat-file blob ":$f" | sha256sum)" = "$(sha256sum < "$f")" ] || fail "autocrlf changed $f"
  done
  assert_no_changes
}
case_in_mode full "a lean tree writes no committed blob file for autocrlf to touch" "core.autocrlf does not touch blobs" autocrlf_leaves_blobs
pass
