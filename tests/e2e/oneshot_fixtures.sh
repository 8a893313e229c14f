#!/usr/bin/env bash
# Every real conversation goes through git add / commit / checkout unchanged.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"
if [ -z "$FIXTURES" ] || [ ! -d "$FIXTURES/.jp/conversations" ]; then
  echo "SKIP: ../shared/fixtures is absent"
  exit 0
fi

new_repo
cp -r "$FIXTURES/.jp" .
chmod -R u+w .jp

commit_fixtures() {
  git add .gitattributes .jp/.id .jp/conversations
  git add .jp/blobs
  git commit -qm fixtures
  assert_clean_status
  verify_blobs
}
case_ "every real conversation commits, status clean, every blob sound" commit_fixtures

committed_smaller() {
  local before after
  before=$(cd "$FIXTURES" && find .jp/conversations -name events.json -exec cat {} + | wc -c)
  after=$(git ls-files -s -- '*events.json' | awk '{print $2}' | xargs -n1 git cat-file -s | paste -sd+ | bc)
  [ "$after" -lt "$before" ] || fail "committed conversations are not smaller"
  echo "committed events.json: $before -> $after bytes"
}
case_ "the committed conversations are smaller" committed_smaller

checkout_unchanged() {
  rm -rf .jp/conversations
  git checkout -- .jp/conversations
  diff -r "$FIXTURES/.jp/conversations" .jp/conversations || fail "checkout changed a conversation"
  assert_clean_status
}
case_ "checkout gives every conversation back unchanged" checkout_unchanged
pass
