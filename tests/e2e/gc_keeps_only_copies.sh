#!/usr/bin/env bash
# gc never deletes the only copy of a blob that git can still give back a
# reference to: a stash entry (its index, its work tree, its untracked
# files), a merge in progress, a commit only a reflog remembers. A gc killed
# between unstaging and deleting leaves nothing a second gc cannot finish.
. "$(dirname "$0")/lib.sh"
new_installed_repo
age_blobs() {
  age_all_blobs "3 hours ago"
  git update-index -q --refresh > /dev/null || true
}
conv=.jp/conversations/1-stashed/events.json

stash_keeps_blob() {
  write_conversation 1-stashed "stashed tool output"
  git add "$conv"
  cp "$conv" "$TEST_ROOT/before.json"
  git stash -q
  [ ! -e "$conv" ] || fail "stash left the conversation"
  age_blobs
  git jpblob gc > /dev/null
  blob_held "$(blob_of "stashed tool output")" || fail "gc at the default grace deleted the stashed blob"
  git jpblob gc --prune=now > /dev/null
  blob_held "$(blob_of "stashed tool output")" || fail "gc --prune=now deleted the stashed blob"
  git stash pop -q || fail "stash pop failed"
  cmp -s "$conv" "$TEST_ROOT/before.json" || fail "the conversation did not come back byte for byte"
  git reset -q
  rm -rf .jp/conversations/1-stashed
}
case_ "stash: an added conversation's only blob survives gc, and stash pop gives it back byte for byte" stash_keeps_blob

stash_untracked_keeps_blob() {
  write_conversation 2-untracked "untracked tool output"
  cp .jp/conversations/2-untracked/events.json "$TEST_ROOT/untracked.json"
  git add .jp/conversations/2-untracked && git reset -q  # clean wrote its blob, now untracked too
  git stash -q -u
  [ ! -e .jp/conversations/2-untracked ] || fail "stash -u left the conversation"
  git jpblob gc --prune=now > /dev/null
  git stash pop -q || fail "stash pop failed"
  cmp -s .jp/conversations/2-untracked/events.json "$TEST_ROOT/untracked.json" || fail "not byte for byte after stash -u"
  rm -rf .jp/conversations/2-untracked
  git jpblob gc --prune=now > /dev/null
}
case_ "stash -u: an untracked conversation and its blob come back after gc --prune=now" stash_untracked_keeps_blob

merge_in_progress() {
  git checkout -q -b side
  write_conversation 3-merge "side tool output"
  git add .jp/conversations/3-merge
  git commit -qm side
  git checkout -q main
  write_conversation 3-merge "main tool output"
  git add .jp/conversations/3-merge
  git commit -qm main
  if git merge -q side > /dev/null 2>&1; then fail "expected a conflict"; fi
  # Resolved to our side but not committed: only MERGE_HEAD still names the
  # other side's conversation, and a merge --abort or a new resolution may
  # want its blob back.
  git checkout -q --ours .jp/conversations/3-merge/events.json
  git add .jp/conversations/3-merge/events.json
  age_blobs
  git jpblob gc --prune=now > /dev/null
  blob_held "$(blob_of "side tool output")" || fail "gc deleted a blob the merge in progress names"
  git ls-files --error-unmatch "$(blob_of "side tool output")" > /dev/null 2>&1 || fail "gc unstaged it"
  git merge --abort
}
case_ "a merge in progress keeps the blobs of both sides" merge_in_progress

reflog_commit() {
  write_conversation 4-reflog "reflog-only tool output"
  git add .jp/conversations/4-reflog
  git commit -q --no-verify -m "no blob committed"
  git reset -q --hard HEAD~1
  local digest
  digest=$(printf '%s' "reflog-only tool output" | sha256sum | cut -c1-64)
  new_blob_held "$digest" || fail "the set-up lost the blob"
  age_new_blob "$digest" '3 hours ago'
  git jpblob gc --prune=now > /dev/null
  git -c gc.cruftPacks=false gc -q --prune=now  # git's own, which leaves a pending pack alone
  new_blob_held "$digest" || fail "gc deleted the only copy a reflog commit references"
  git checkout -q HEAD@{1} -- .jp/conversations/4-reflog || fail "the reflog commit cannot be checked out"
  grep -q "$(printf 'reflog-only tool output' | base64 -w0)" .jp/conversations/4-reflog/events.json ||
    fail "the reflog commit's conversation is not readable"
  git reset -q --hard
}
case_ "a commit only a reflog remembers keeps a blob no git object holds" reflog_commit

reflog_commit_many() {
  local n
  for n in 1 2 3 4; do write_conversation "6-reflog-$n" "reflog-only output $n"; done
  git add .jp/conversations
  git commit -q --no-verify -m "four blobs, none committed"
  git reset -q --hard HEAD~1
  git update-ref -d ORIG_HEAD  # the live set reads ORIG_HEAD's documents: only the reflog is left
  local orphan
  orphan=$(blob_of "nobody's output")
  mkdir -p "$(dirname "$orphan")"
  printf '%s' "nobody's output" | gzip -n > "$orphan"
  touch -d '3 hours ago' "$orphan"
  for n in 1 2 3 4; do age_new_blob "$(printf '%s' "reflog-only output $n" | sha256sum | cut -c1-64)" '3 hours ago'; done
  git jpblob gc --prune=now > /dev/null
  # Whichever of them gc meets first builds the reflog set; the others are
  # judged by it.
  for n in 1 2 3 4; do
    blob_held "$(blob_of "reflog-only output $n")" || fail "gc deleted reflog-only copy $n"
  done
  [ ! -e "$orphan" ] || fail "gc kept a blob that nothing references"
  git reset -q --hard
}
case_ "several blobs only a reflog commit references all stay, whatever order gc meets them in" reflog_commit_many

second_gc_finishes() {
  commit_conversation 5-dropped "dropped tool output"
  local blob
  blob=$(blob_of "dropped tool output")
  git rm -q -r .jp/conversations/5-dropped
  git commit -qm "drop it"
  [ ! -e "$blob" ] || rm "$blob"  # as a gc killed between its deletion and its unstaging left it
  git ls-files --error-unmatch "$blob" > /dev/null 2>&1 || fail "the set-up did not leave the blob tracked"
  git jpblob gc --prune=now > /dev/null
  if git ls-files --error-unmatch "$blob" > /dev/null 2>&1; then fail "the second gc left a deleted blob in the index"; fi
  git commit -qm gc
  assert_no_changes
}
case_ "a gc killed after deleting leaves index entries a second gc unstages" second_gc_finishes
# gc leaves out a work-tree conversation git's index holds with the stat
# data the file still has: its clean is the staged version, read anyway
# (core/maintenance/live_set, for_each_document's skip_unchanged). A file
# edited since must still be read, even when neither its size nor its
# modification time moved: here the edit names another stored blob, and
# that blob's only copy is in the store.
gc_reads_a_file_edited_behind_the_index() {
  new_installed_repo statclean
  printf 'first stored output, 40 bytes long.....' > "$TEST_ROOT/one"
  printf 'other stored output, 40 bytes long.....' > "$TEST_ROOT/two"
  local one two size f=.jp/conversations/7-edited/events.json
  one=$(git jpblob store "$TEST_ROOT/one" | sed "s/^blob:sha256://; s/ .*//")
  two=$(git jpblob store "$TEST_ROOT/two" | sed "s/^blob:sha256://; s/ .*//")
  size=$(wc -c < "$TEST_ROOT/one")
  mkdir -p "$(dirname "$f")"
  printf '[{"timestamp": "2026-04-10 17:04:24.923537", "type": "tool_call_response", "id": "t1", "content": {"$blob": "%s", "size": %s, "encoding": "utf8"}, "is_error": false}]\n' \
    "$one" "$size" > "$f"
  # Older than the index, so the index's stat data is trusted.
  touch -d '1 minute ago' "$f"
  git add "$f" && git commit -qm staged
  cp -p "$f" "$TEST_ROOT/staged.json"
  local inode
  inode=$(stat -c %i "$f")
  # In place, as an editor that writes into the file does: the same inode.
  python3 -c 'import sys; f = open(sys.argv[1], "r+"); t = f.read().replace(sys.argv[2], sys.argv[3]); f.seek(0); f.write(t)' \
    "$f" "$one" "$two"
  touch -r "$TEST_ROOT/staged.json" "$f"
  [ "$(stat -c %s.%y.%i "$f")" = "$(stat -c %s.%y "$TEST_ROOT/staged.json").$inode" ] ||
    fail "set-up: size, time or inode moved"
  new_blob_held "$two" || fail "set-up: the edited conversation's blob is not held"
  age_new_blob "$two" '2 days ago'
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/err" || fail "gc failed: $(cat "$TEST_ROOT/err")"
  git -c gc.cruftPacks=false gc -q --prune=now
  new_blob_held "$two" || fail "gc deleted the blob only the edited work-tree file names"
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify: $(cat "$TEST_ROOT/out")"
}
case_ "gc reads a work-tree conversation edited after it was staged, though its size and time did not move" \
  gc_reads_a_file_edited_behind_the_index

# A conversation's object file that holds another conversation's bytes (a
# copy over it, a disk's wrong sector): read as it stands, its blobs would
# look unreferenced. gc and verify check each object read against its id,
# and stop naming the file; nothing is removed or unstaged.
corrupt_object_stops_gc() {
  commit_conversation 5-real "the real conversation's only output"
  commit_conversation 6-other "another conversation"
  local a b file
  a=$(git rev-parse :.jp/conversations/5-real/events.json)
  b=$(git rev-parse :.jp/conversations/6-other/events.json)
  file="$(git rev-parse --git-path objects)/${a:0:2}/${a:2}"
  [ -f "$file" ] || fail "the conversation is not a loose object"
  chmod u+w "$file"
  cp "$(git rev-parse --git-path objects)/${b:0:2}/${b:2}" "$file"
  age_blobs
  git ls-files -s > "$TEST_ROOT/index.before"
  if git jpblob gc --prune=now > "$TEST_ROOT/out" 2>&1; then fail "gc ran on a corrupt object: $(cat "$TEST_ROOT/out")"; fi
  grep -q "cannot read object $a from git: its file .* is corrupt (it holds other bytes than its name says" \
    "$TEST_ROOT/out" || fail "gc's message: $(cat "$TEST_ROOT/out")"
  git ls-files -s | cmp -s - "$TEST_ROOT/index.before" || fail "gc changed the index"
  blob_held "$(blob_of "the real conversation's only output")" || fail "gc removed the real conversation's blob"
  if git jpblob verify > "$TEST_ROOT/out" 2>&1; then fail "verify passed a corrupt object"; fi
  grep -q "cannot read object $a" "$TEST_ROOT/out" || fail "verify's message: $(cat "$TEST_ROOT/out")"
  # Mended from the work tree's bytes, all is as before.
  rm -f "$file"
  git hash-object -w --path .jp/conversations/5-real/events.json .jp/conversations/5-real/events.json > /dev/null
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify after the mend: $(cat "$TEST_ROOT/out")"
}
case_ "an object file holding another conversation's bytes stops gc and verify, naming it; nothing is removed" corrupt_object_stops_gc
# A repository whose upstream has moved on: `git pull --rebase` with
# rebase.autoStash stashes an uncommitted new turn aside (the autostash,
# kept outside refs/stash until the rebase ends), and a conflict stops the
# rebase. gc meanwhile must keep the turn's blob, whatever --prune says:
# `rebase --continue` applies the autostash, and its conversation needs it.
autostash_of_a_rebase() {
  new_installed_repo autostash
  commit_conversation 8-turns "the first turn"
  echo base > notes.txt && git add notes.txt && git commit -qm notes
  git init -q --bare "$TEST_ROOT/upstream.git"
  git push -q "$TEST_ROOT/upstream.git" HEAD:refs/heads/main
  git branch -q -u origin/main 2> /dev/null || true
  git remote add origin "$TEST_ROOT/upstream.git" && git fetch -q origin && git branch -q -u origin/main
  git clone -q "$TEST_ROOT/upstream.git" "$TEST_ROOT/upstream-work"
  (cd "$TEST_ROOT/upstream-work" && echo theirs > notes.txt && git commit -qam theirs && git push -q origin HEAD:main)
  echo ours > notes.txt && git commit -qam ours
  write_conversation 8-turns "a new turn nobody committed yet"
  cp .jp/conversations/8-turns/events.json "$TEST_ROOT/new-turn.json"
  if git -c rebase.autoStash=true pull -q --rebase > /dev/null 2>&1; then fail "expected a conflict"; fi
  [ -f "$(git rev-parse --git-path rebase-merge/autostash)" ] || fail "set-up: no autostash"
  age_blobs
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/err" || fail "gc: $(cat "$TEST_ROOT/err")"
  echo resolved > notes.txt && git add notes.txt
  GIT_EDITOR=true git rebase --continue > "$TEST_ROOT/out" 2>&1 || fail "rebase --continue: $(cat "$TEST_ROOT/out")"
  grep -q "conflict" "$TEST_ROOT/out" && fail "the autostash did not apply: $(cat "$TEST_ROOT/out")"
  cmp -s .jp/conversations/8-turns/events.json "$TEST_ROOT/new-turn.json" || fail "the new turn is not back byte for byte"
}
case_ "a rebase's autostash keeps its new turn's blob through gc --prune=now" autostash_of_a_rebase

# The same for `git merge --autostash` (MERGE_AUTOSTASH), stopped by a
# conflict, then committed.
autostash_of_a_merge() {
  new_installed_repo merge-autostash
  commit_conversation 9-turns "the first turn"
  echo base > notes.txt && git add notes.txt && git commit -qm notes
  git checkout -q -b other && echo theirs > notes.txt && git commit -qam theirs && git checkout -q -
  echo ours > notes.txt && git commit -qam ours
  write_conversation 9-turns "a turn the merge stashes aside"
  cp .jp/conversations/9-turns/events.json "$TEST_ROOT/merge-turn.json"
  if git merge -q --autostash other > /dev/null 2>&1; then fail "expected a conflict"; fi
  [ -f "$(git rev-parse --git-path MERGE_AUTOSTASH)" ] || fail "set-up: no MERGE_AUTOSTASH"
  age_blobs
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/err" || fail "gc: $(cat "$TEST_ROOT/err")"
  echo resolved > notes.txt && git add notes.txt
  git commit -q --no-edit > "$TEST_ROOT/out" 2>&1 || fail "the merge commit: $(cat "$TEST_ROOT/out")"
  # git applies the autostash as the merge is committed.
  cmp -s .jp/conversations/9-turns/events.json "$TEST_ROOT/merge-turn.json" || fail "the turn is not back byte for byte"
}
case_ "a merge's autostash keeps its turn's blob through gc --prune=now" autostash_of_a_merge

# git keeps an unreachable object for gc.pruneExpire (two weeks): a
# conversation added, then lost to `reset --hard`, comes back from `git
# fsck --lost-found` for that long, and so must its blob, whatever gc runs
# meanwhile without --prune.
lost_found_within_git_lifetime() {
  new_installed_repo lost-found
  write_conversation 10-lost "tool output lost to a reset"
  git add .jp/conversations/10-lost
  git reset -q --hard
  age_blobs
  git jpblob gc > /dev/null
  git fsck --lost-found > /dev/null 2>&1 || true
  local found
  found=$(grep -l "toolu_1" "$(git rev-parse --git-dir)"/lost-found/other/* 2> /dev/null | head -1 || true)
  [ -n "$found" ] || fail "set-up: fsck found no conversation"
  git jpblob smudge .jp/conversations/10-lost/events.json < "$found" > "$TEST_ROOT/back.json" 2> "$TEST_ROOT/err" ||
    fail "the lost conversation cannot be restored: $(cat "$TEST_ROOT/err")"
  grep -q "$(printf 'tool output lost to a reset' | base64 -w0)" "$TEST_ROOT/back.json" || fail "its tool output is gone"
}
case_ "a conversation lost to reset --hard comes back whole from fsck --lost-found after gc" lost_found_within_git_lifetime

# A stash entry dropped today: git keeps its commit, and all it reaches,
# for gc.pruneExpire from the day it was made, and `git stash apply` of
# the id fsck names gives it back. The blob its conversation needs was
# written weeks before (the stash reused what `git add` had cleaned).
dropped_stash_within_git_lifetime() {
  new_installed_repo dropped-stash
  write_conversation 11-dropped "tool output of a dropped stash"
  cp .jp/conversations/11-dropped/events.json "$TEST_ROOT/dropped.json"
  # Added a second after it was written, and the index refreshed a second
  # later: no entry is racy, so the stash cleans nothing again (and
  # freshens no blob).
  sleep 1.1 && git add .jp/conversations/11-dropped && sleep 1.1 && git status --short > /dev/null
  age_all_blobs "3 weeks ago"
  git stash -q && git stash drop -q
  git jpblob gc > /dev/null 2> "$TEST_ROOT/err" || fail "gc: $(cat "$TEST_ROOT/err")"
  local dropped
  dropped=$(git fsck --no-reflogs 2> /dev/null | awk '/dangling commit/ {print $3}' | head -1)
  [ -n "$dropped" ] || fail "set-up: fsck names no dropped stash"
  git stash apply -q "$dropped" 2> "$TEST_ROOT/err" || fail "the dropped stash cannot be applied: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/11-dropped/events.json "$TEST_ROOT/dropped.json" || fail "the conversation is not back byte for byte"
}
case_ "a stash dropped today comes back whole, though its blob was written weeks before" dropped_stash_within_git_lifetime

pass
