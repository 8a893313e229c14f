#!/usr/bin/env bash
# `git jpblob checkout [<path>...]`: JP's own form back from the reference
# form (after JPBLOB_SKIP_SMUDGE, migrate or a hand-resolved conflict), as
# `git lfs checkout` does; git status is clean afterwards.
. "$(dirname "$0")/lib.sh"
new_installed_repo
write_conversation 1-first "first tool output"
write_conversation 2-second "second tool output"
cp .jp/conversations/1-first/events.json "$TEST_ROOT/first.json"
cp .jp/conversations/2-second/events.json "$TEST_ROOT/second.json"
git add .jp && git commit -qm two

after_skip_smudge() {
  rm -rf .jp/conversations
  JPBLOB_SKIP_SMUDGE=1 git checkout -- .jp/conversations
  grep -q '"\$blob"' .jp/conversations/1-first/events.json || fail "the skip did not leave references"
  git jpblob checkout > "$TEST_ROOT/out" || fail "checkout failed: $(cat "$TEST_ROOT/out")"
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/first.json" || fail "1-first is not JP's form"
  cmp -s .jp/conversations/2-second/events.json "$TEST_ROOT/second.json" || fail "2-second is not JP's form"
  grep -q "Restored 2 document(s)" "$TEST_ROOT/out" || fail "unexpected report: $(cat "$TEST_ROOT/out")"
  assert_clean_status
  # Run again: nothing to do.
  git jpblob checkout > "$TEST_ROOT/out"
  grep -q "Restored 0 document(s) to JP's form; 2 already were" "$TEST_ROOT/out" || fail "not idempotent: $(cat "$TEST_ROOT/out")"
}
case_ "after JPBLOB_SKIP_SMUDGE, checkout restores JP's form byte for byte and status is clean" after_skip_smudge

after_migrate_with_paths() {
  git jpblob migrate > /dev/null
  grep -q '"\$blob"' .jp/conversations/2-second/events.json || fail "migrate did not write references"
  (cd .jp/conversations && git jpblob checkout 1-first > /dev/null) || fail "checkout of a path failed"
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/first.json" || fail "the path given was not restored"
  grep -q '"\$blob"' .jp/conversations/2-second/events.json || fail "a path not given was restored"
  git jpblob checkout .jp/conversations/2-second/events.json > /dev/null
  cmp -s .jp/conversations/2-second/events.json "$TEST_ROOT/second.json" || fail "2-second was not restored"
  assert_clean_status
}
case_ "after migrate, checkout <path> restores only what it names, from any folder" after_migrate_with_paths

local_edits_kept() {
  grow_conversation .jp/conversations/1-first/events.json "an edit not yet added"
  cp .jp/conversations/1-first/events.json "$TEST_ROOT/edited.json"
  git jpblob checkout > /dev/null
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/edited.json" || fail "checkout changed a file already in JP's form"
  git checkout -q -- .jp/conversations/1-first
}
case_ "a file already in JP's form, edits and all, is left alone" local_edits_kept

missing_blob_reported() {
  write_conversation 3-lost "lost tool output"   # never committed
  git jpblob migrate > /dev/null
  local h
  h=$(printf 'lost tool output' | sha256sum | cut -c1-64)
  remove_blob_files "$h"
  local rc=0
  git jpblob checkout > "$TEST_ROOT/out" 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "checkout exited $rc with a blob missing"
  grep -q "$h.*3-lost/events.json" "$TEST_ROOT/err" || fail "the digest and file are not named: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/first.json" || fail "the other documents were not restored"
  grep -q '"\$blob"' .jp/conversations/3-lost/events.json || fail "the lost one changed"
}
case_ "a document whose blob is nowhere is reported with its digest, and the rest is restored" missing_blob_reported

# A teammate without git-jpblob clones: git has no jpblob filter then, and
# the conversations stay in their committed reference form. Installing
# later gives them JP's form back (tests/e2e/way_in_out.sh for a team).
installed_after_clone() {
  git init -q --bare "$TEST_ROOT/shared.git"
  git push -q "$TEST_ROOT/shared.git" HEAD:main
  GIT_CONFIG_GLOBAL=/dev/null git clone -q "$TEST_ROOT/shared.git" "$TEST_ROOT/without" 2> /dev/null
  cd "$TEST_ROOT/without"
  grep -q '"\$blob"' .jp/conversations/1-first/events.json || fail "the clone without git-jpblob is not in reference form"
  git jpblob install > "$TEST_ROOT/out" || fail "install failed: $(cat "$TEST_ROOT/out")"
  grep -q "JP's form back" "$TEST_ROOT/out" || fail "install did not say it restored JP's form: $(cat "$TEST_ROOT/out")"
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/first.json" || fail "1-first is not JP's form"
  assert_clean_status
  git jpblob install > "$TEST_ROOT/out"
  ! grep -q "JP's form" "$TEST_ROOT/out" || fail "install restored again"
  cd "$TEST_ROOT/repo"
}
case_ "install in a clone made without git-jpblob gives JP's form back, status clean" installed_after_clone

pass
