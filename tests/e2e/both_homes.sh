#!/usr/bin/env bash
# SPEC §2, "Every command knows both homes": on the same history, a lean
# clone (committed blobs in git's objects only) and a clone that checks its
# store out give the same answers from stats, verify, cat, gc and repair
# (`files` lists no blob in a lean tree, where `git add` refuses them), and gc removes the same blobs from both (it unstages a lean
# tree's, which have no file).
. "$(dirname "$0")/lib.sh"
only_in_mode lean "it makes a lean clone and a checked-out clone itself, whatever the mode"

new_installed_repo team
write_conversation 1-old "first tool output"
write_conversation 2-kept "output that stays"
git add .jp && git commit -qm one
write_conversation 1-old "second tool output"
git add .jp && git commit -qm two
git rm -q -r .jp/conversations/1-old
git commit -qm "drop the old conversation"

git clone -q -c jpblob.lean=true "$TEST_ROOT/team" "$TEST_ROOT/lean" 2> /dev/null
git clone -q -c jpblob.lean=false "$TEST_ROOT/team" "$TEST_ROOT/full" 2> /dev/null
[ -z "$(find "$TEST_ROOT/lean/.jp/blobs" -type f 2> /dev/null)" ] || fail "the lean clone has blob files"
[ -n "$(find "$TEST_ROOT/full/.jp/blobs" -type f 2> /dev/null)" ] || fail "the full clone has no blob file"
kept=$(printf 'output that stays' | sha256sum | cut -c1-64)

# Runs one command in both clones; its output (standard output, then the
# exit status) must be the same.
same_in_both() {
  local mode
  for mode in lean full; do
    (cd "$TEST_ROOT/$mode" && { "$@"; echo "exit $?"; }) > "$TEST_ROOT/out.$mode" 2>&1 || true
  done
  diff "$TEST_ROOT/out.full" "$TEST_ROOT/out.lean" > "$TEST_ROOT/diff" ||
    fail "'$*' differs, full vs lean: $(cat "$TEST_ROOT/diff")"
}

counts_agree() {
  same_in_both git jpblob stats --json
  grep -q '"unique_blobs": *[1-9]' "$TEST_ROOT/out.lean" || fail "stats counts no blob: $(cat "$TEST_ROOT/out.lean")"
  same_in_both git jpblob verify --json
  grep -q '"blobs": *[1-9]' "$TEST_ROOT/out.lean" || fail "verify checks no blob: $(cat "$TEST_ROOT/out.lean")"
  grep -q 'blob.gz' "$TEST_ROOT/out.lean" || fail "verify lists no unreferenced blob: $(cat "$TEST_ROOT/out.lean")"
  same_in_both git jpblob verify --history
  same_in_both git jpblob cat "$kept"
  grep -q "output that stays" "$TEST_ROOT/out.lean" || fail "cat did not give the blob back"
}
case_ "stats, verify, verify --history and cat agree in a lean and a checked-out clone" counts_agree

gc_agrees() {
  same_in_both git jpblob gc --dry-run --prune=now --json
  grep -q '"removed": *\[ *{' "$TEST_ROOT/out.lean" || grep -q '"path"' "$TEST_ROOT/out.lean" ||
    fail "gc finds nothing to remove: $(cat "$TEST_ROOT/out.lean")"
  same_in_both git jpblob gc --prune=now
  same_in_both git ls-files .jp/blobs
  same_in_both git jpblob verify
  for mode in lean full; do
    cd "$TEST_ROOT/$mode"
    git commit -qm gc
    git jpblob verify --history > /dev/null || fail "the $mode clone's gc commit lacks a blob"
    [ "$(git ls-files .jp/blobs | wc -l)" -eq 2 ] || fail "the $mode clone kept $(git ls-files .jp/blobs | wc -l) blobs, not 2"
    [ -z "$(git status --porcelain)" ] || fail "status is not clean in the $mode clone: $(git status --porcelain)"
  done
}
case_ "gc removes the same blobs from both: files in one, skip-worktree entries in the other" gc_agrees

repair_agrees() {
  same_in_both git jpblob repair
}
case_ "repair says the same in both" repair_agrees
pass
