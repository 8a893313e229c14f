#!/usr/bin/env bash
# New blobs written once (core/lean/pending_packs, docs/lean.md): in a lean
# tree, and in one becoming lean at its first commit, `git add` writes the
# new blobs as one pack in the git folder, beside a record; the pre-commit
# hook moves it into git's objects with a `.keep` and stages by id, in every
# commit mode; git's stash, clean and gc never touch it before; `git jpblob
# gc` hands it to git's rules, or deletes one nothing needs; a filter
# killed mid-add leaves nothing referenced. With the store checked out the
# blobs are files, as before.
. "$(dirname "$0")/lib.sh"

digest_of() { printf '%s' "$1" | sha256sum | cut -c1-64; }
pending_dir() { echo "$(git rev-parse --git-common-dir)/jpblob/pending"; }
pending_packs() { find "$(pending_dir)" -name 'pack-*.pack' 2> /dev/null | wc -l; }
our_keeps() { grep -l "git-jpblob" "$(git rev-parse --git-path objects/pack)"/*.keep 2> /dev/null | wc -l; }
loose_blobs() {
  find "$(git rev-parse --git-path objects)" -path '*/objects/??/*' -type f | sed -E 's|.*/(..)/|\1|' |
    git cat-file --batch-check='%(objecttype)' | grep -c '^blob$' || true
}

# The adopting repository's add and commit: one pack for the whole add, no
# blob file, no kept copy; the commit stages the pack's objects and writes
# no blob again. With the store checked out: blob files, no pack.
adopt_writes_each_blob_once() {
  new_installed_repo adopt
  local n
  for n in 1 2 3 4 5; do write_conversation "$n-adopt" "adopted tool output $n"; done
  git add .jp
  if lean_mode; then
    [ "$(pending_packs)" -eq 1 ] || fail "the add wrote $(pending_packs) packs, not one"
    [ "$(pending_records | wc -l)" -ge 5 ] || fail "the record lists $(pending_records | wc -l) blobs, not 5 or more"
    [ -z "$(find .jp/blobs "$(git rev-parse --git-common-dir)/jpblob/kept" -type f 2> /dev/null)" ] ||
      fail "the add wrote blob files"
    [ "$(our_keeps)" -eq 0 ] || fail "the add put a pack into git's objects"
  else
    [ "$(pending_packs)" -eq 0 ] || fail "the store checked out got a pending pack"
    [ -f "$(blob_of "adopted tool output 1")" ] || fail "the store checked out has no blob file"
  fi
  local before
  before=$(loose_blobs)
  git commit -qm adopt 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
  if lean_mode; then
    [ "$(loose_blobs)" -eq "$before" ] || fail "the commit wrote $(($(loose_blobs) - before)) blobs again"
    [ -z "$(pending_records)" ] && [ "$(pending_packs)" -eq 0 ] && [ "$(our_keeps)" -eq 0 ] ||
      fail "the commit did not hand the pack to git: $(ls -A "$(pending_dir)") $(our_keeps) .keep"
  fi
  git jpblob verify > /dev/null || fail "verify fails"
  [ -z "$(git fsck --no-dangling 2>&1)" ] || fail "fsck: $(git fsck --no-dangling 2>&1 | head -3)"
}
case_ "adopting: one pack for the whole add, the commit stages it by id and writes no blob again" adopt_writes_each_blob_once

# git's own commands between add and commit: gc --prune=now, clean -x,
# stash -a. The pack is in the git folder, where git never looks.
git_between_add_and_commit() {
  cd "$TEST_ROOT/adopt"
  write_conversation 6-between "tool output git's gc, clean and stash pass by"
  cp .jp/conversations/6-between/events.json "$TEST_ROOT/between.json"
  git add .jp
  sleep 1.1 && git status > /dev/null  # past the racy window: the stash cleans nothing again
  git gc -q --prune=now
  git clean -fdxq
  git stash -a -q
  [ ! -e .jp/conversations/6-between ] || fail "the stash left the conversation"
  git jpblob gc --prune=now > /dev/null
  git gc -q --prune=now
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/6-between/events.json "$TEST_ROOT/between.json" || fail "the tool output was lost"
  git add .jp
  git commit -qm between 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
}
case_ "git gc --prune=now, clean -x and stash -a between add and commit lose nothing" git_between_add_and_commit

# `git commit -a` and `git commit <paths>` run the hook while their filter
# process lives: it writes its pack once git falls quiet, and the hook waits
# for it. What `-a` staged into an index git may still drop stays kept
# until HEAD holds it; the next commit hands it over.
three_commit_modes() {
  cd "$TEST_ROOT/adopt"
  local i
  for i in 1 2 3; do
    grow_conversation .jp/conversations/1-adopt/events.json "grown with commit -a, round $i"
    git commit -qam "all $i" 2> "$TEST_ROOT/err" || fail "commit -a $i failed: $(cat "$TEST_ROOT/err")"
    assert_blobs_committed
    grow_conversation .jp/conversations/2-adopt/events.json "grown with commit <paths>, round $i"
    git commit -qm "paths $i" .jp/conversations/2-adopt 2> "$TEST_ROOT/err" ||
      fail "commit <paths> $i failed: $(cat "$TEST_ROOT/err")"
    assert_blobs_committed
  done
  assert_clean_status
  write_conversation 7-plain "the plain commit after"
  git add .jp && git commit -qm plain
  if lean_mode; then
    [ -z "$(pending_records)" ] && [ "$(our_keeps)" -eq 0 ] ||
      fail "packs stayed kept once HEAD held their blobs: $(pending_records | wc -l) blobs, $(our_keeps) .keep"
  fi
  git jpblob verify --history > /dev/null || fail "verify --history fails"
}
case_ "git commit -a and git commit <paths> find the blobs their own filter process wrote" three_commit_modes

# A stash made before a commit, kept as a backup: the pack its blobs are in
# is not handed to git while the stash needs it, even once HEAD holds them,
# for HEAD may move away and its commits expire (found by the red team).
stash_outlives_head() {
  cd "$TEST_ROOT/adopt"
  write_conversation 13-backup "tool output a stash keeps as a backup"
  cp .jp/conversations/13-backup/events.json "$TEST_ROOT/backup.json"
  git add .jp && git stash -q && git stash apply -q && git add .jp
  git commit -qm "backed up" 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  write_conversation 14-after "the commit after the backup"
  git add .jp && git commit -qm after
  git reset -q --hard HEAD~2
  git -c gc.reflogExpire=now -c gc.reflogExpireUnreachable=now -c gc.pruneExpire=now gc -q
  git jpblob gc --prune=now > /dev/null
  git stash pop -q 2> "$TEST_ROOT/err" || fail "the stash lost its blob: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/13-backup/events.json "$TEST_ROOT/backup.json" || fail "the stash's tool output differs"
  git add .jp && git commit -qm "popped" 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
}
case_ "a stash outlives the commits that held its blobs: its pack stays until the stash goes" stash_outlives_head

# A stash older than the add (the one a team forgets for months) holds none
# of the add's new blobs: the commit hands the pack to git as without it.
old_stash_keeps_nothing() {
  cd "$TEST_ROOT/adopt"
  git jpblob gc > /dev/null
  write_conversation 16-stashed-long-ago "tool output stashed and forgotten"
  git add .jp && git stash -q
  sleep 1.1
  write_conversation 17-today "tool output committed beside an old stash"
  git add .jp && git commit -qm today 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  if lean_mode; then
    ! pending_records | grep -q "^$(digest_of "tool output committed beside an old stash") " ||
      fail "the commit kept the pack of a blob no stash can reference"
  fi
  git stash pop -q 2> "$TEST_ROOT/err" || fail "the old stash lost its blob: $(cat "$TEST_ROOT/err")"
  git add .jp && git commit -qm "popped at last" && assert_blobs_committed
}
case_ "a stash older than the add keeps none of its packs" old_stash_keeps_nothing

# A pending folder that cannot be written (a file in its place): the add
# keeps its new blobs as kept copies, or fails; it never reports success
# with a blob nowhere.
unwritable_pending_folder() {
  cd "$TEST_ROOT/adopt"
  local dir
  dir=$(pending_dir)
  rm -rf "$dir" && echo planted > "$dir"
  write_conversation 15-planted "tool output beside a planted pending file"
  if git add .jp 2> "$TEST_ROOT/err"; then
    new_blob_held "$(digest_of "tool output beside a planted pending file")" || fail "the add succeeded with the blob nowhere"
  fi
  git stash -q 2> /dev/null || true
  rm -f "$dir"
  git stash pop -q 2> /dev/null || true
  grep -q "$(printf 'tool output beside a planted pending file' | base64 -w0)" .jp/conversations/15-planted/events.json ||
    fail "the tool output was lost"
  git add .jp && git commit -qm planted 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
}
case_ "a file planted where the pending packs go: the add never reports a blob it did not store" unwritable_pending_folder

# An add whose conversation is dropped: gc keeps its pack for the grace
# period, then deletes it whole (git never saw it).
abandoned_add() {
  cd "$TEST_ROOT/adopt"
  write_conversation 8-dropped "tool output nobody commits"
  git add .jp/conversations/8-dropped
  git reset -q && rm -r .jp/conversations/8-dropped
  local d
  d=$(digest_of "tool output nobody commits")
  new_blob_held "$d" || fail "set-up: the add held no blob"
  git jpblob gc > /dev/null
  new_blob_held "$d" || fail "gc took a young blob"
  git jpblob gc --prune=now > "$TEST_ROOT/out"
  if new_blob_held "$d"; then fail "gc --prune=now kept a blob nothing references"; fi
  if lean_mode; then
    [ -z "$(ls -A "$(pending_dir)" 2> /dev/null)" ] || fail "gc left the pack: $(ls -A "$(pending_dir)")"
    grep -q "pack(s) of new blobs back to git's gc" "$TEST_ROOT/out" || fail "gc did not say: $(cat "$TEST_ROOT/out")"
  fi
  git jpblob verify > /dev/null || fail "verify fails"
}
case_ "an abandoned add: gc keeps its new blobs while young, then lets them go" abandoned_add

# The filter killed in the middle of an add: git's add fails and its index
# names no blob that is nowhere; the next add and commit go through, and a
# hook never waits for the dead writer.
killed_filter() {
  cd "$TEST_ROOT/adopt"
  local n pid i marker=""
  for n in $(seq 1 200); do write_conversation "9-kill-$n" "$(head -c 30000 /dev/urandom | base64 -w0) $n"; done
  git add .jp > /dev/null 2>&1 &
  pid=$!
  # The filter's marker names it while it holds blobs no pack has yet.
  for i in $(seq 1000); do
    marker=$(ls "$(pending_dir)"/writing-* 2> /dev/null | head -1 || true)
    [ -n "$marker" ] && break
    sleep 0.005
  done
  [ -n "$marker" ] || fail "set-up: the filter never gathered a blob"
  kill -9 "${marker##*writing-}" 2> /dev/null || true
  if wait "$pid"; then fail "set-up: the add finished before the kill"; fi
  git diff --cached --quiet -- .jp/conversations || fail "the failed add staged conversations"
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || {
    # What verify names missing must be what a repair can write again.
    git jpblob repair > /dev/null 2>&1 || fail "repair after the kill failed: $(cat "$TEST_ROOT/out")"
  }
  git add .jp
  git commit -qm "after the kill" 2> "$TEST_ROOT/err" || fail "the commit after the kill failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
  git jpblob verify > /dev/null || fail "verify fails"
}
case_in_mode lean "with the store checked out no blob waits in memory for a pack (a kill at random moments: e2e maintenance_races)" \
  "a filter killed holding blobs no pack has leaves nothing a later add and commit cannot mend" killed_filter

# A linked worktree shares the git folder: its add writes there, its
# commit takes it, and the main worktree's commit is not confused.
in_a_worktree() {
  cd "$TEST_ROOT/adopt"
  git worktree add -q "$TEST_ROOT/adopt-wt" -b side
  cd "$TEST_ROOT/adopt-wt"
  write_conversation 10-side "tool output from a linked worktree"
  git add .jp && git commit -qm side 2> "$TEST_ROOT/err" || fail "the worktree's commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  cd "$TEST_ROOT/adopt"
  write_conversation 11-main "tool output from the main worktree"
  git add .jp && git commit -qm main 2> "$TEST_ROOT/err" || fail "the main commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  git jpblob gc > /dev/null
  git worktree remove --force "$TEST_ROOT/adopt-wt"
  git jpblob verify --history > /dev/null || fail "verify --history fails"
}
case_ "a linked worktree's add and commit beside the main one's" in_a_worktree

# A teammate's clone, made by plain `git clone` after `git jpblob install`
# (lean from its checkout): its add writes a pending pack, and each commit
# mode stages from it.
in_a_teammates_clone() {
  git clone -q "$TEST_ROOT/adopt" "$TEST_ROOT/mate" 2> "$TEST_ROOT/err" || fail "clone failed: $(cat "$TEST_ROOT/err")"
  cd "$TEST_ROOT/mate"
  if lean_mode; then
    [ "$(git config core.sparseCheckout)" = true ] || fail "the clone is not lean"
  fi
  write_conversation 18-mate "tool output from a teammate's clone"
  git add .jp
  if lean_mode; then [ "$(pending_packs)" -eq 1 ] || fail "the clone's add wrote $(pending_packs) packs"; fi
  git commit -qm mate 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  grow_conversation .jp/conversations/18-mate/events.json "and a turn committed with -a"
  git commit -qam "mate -a" 2> "$TEST_ROOT/err" || fail "commit -a failed: $(cat "$TEST_ROOT/err")"
  grow_conversation .jp/conversations/18-mate/events.json "and one committed by path"
  git commit -qm "mate paths" .jp/conversations/18-mate 2> "$TEST_ROOT/err" || fail "commit <paths> failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
  [ -z "$(find .jp/blobs -type f 2> /dev/null)" ] || ! lean_mode || fail "the lean clone holds blob files"
  git jpblob verify --history > /dev/null || fail "verify --history fails in the clone"
}
case_ "a teammate's lean clone: its add writes one pending pack, and every commit mode stages from it" in_a_teammates_clone

# Where git-jpblob writes no pack itself (a repository shared by a group:
# git's own index-pack sets the permissions), new blobs stay kept copies.
shared_repository() {
  git init -q --shared=group "$TEST_ROOT/shared"
  cd "$TEST_ROOT/shared"
  install_jpblob
  lean_mode || git config jpblob.lean false
  write_conversation 12-shared "tool output in a shared repository"
  git add .jp
  [ "$(pending_packs)" -eq 0 ] || fail "a shared repository got a pending pack"
  new_blob_held "$(digest_of "tool output in a shared repository")" || fail "the new blob is nowhere"
  git commit -qm shared 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
}
case_ "a shared repository keeps its new blobs as kept copies" shared_repository

pass
