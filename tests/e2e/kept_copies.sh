#!/usr/bin/env bash
# Kept copies (core/lean/kept_copies): every blob file clean writes into the work tree is
# also linked into the git folder (jpblob/kept), which git never checks out,
# stashes or cleans. A conversation not committed yet keeps its tool output
# through `git stash -u` with the store checked out, `git stash -a` and `git
# clean -x` in any mode, and the copy goes once git's index holds the blob.
#
# A lean tree's new blobs are kept copies only where git-jpblob writes no
# pack itself: a repository shared by a group (core.sharedRepository). In
# any other they are written once into git's objects as a pending pack, and
# e2e pending_packs walks the same scenarios there. Every repository of
# this suite is shared, so that the kept folder is what is tested.
. "$(dirname "$0")/lib.sh"
new_installed_repo() {
  local dir="$TEST_ROOT/${1:-repo}"
  git init -q --shared=group "$dir"
  cd "$dir"
  install_jpblob
  git add .gitattributes
  git commit -qm "git-jpblob attributes"
}
kept_dir() { echo "$(git rev-parse --git-common-dir)/jpblob/kept"; }
kept_of() { echo "$(kept_dir)/$(printf '%s' "$1" | sha256sum | cut -c1-64).blob.gz"; }
kept_count() { find "$(kept_dir)" -type f -name '*.blob.gz' 2> /dev/null | wc -l; }
store_files() { find .jp/blobs -type f 2> /dev/null | wc -l; }

# The store checked out (`install --no-lean`, JP with RFD 066): jpblob.lean
# is false, so `.jp/blobs` is neither sparse nor ignored, in either mode.
new_installed_repo_checked_out() {
  git init -q --shared=group "$TEST_ROOT/$1"
  cd "$TEST_ROOT/$1"
  git config jpblob.lean false
  install_jpblob
  git add .gitattributes
  git commit -qm "git-jpblob attributes"
}

# A new conversation through `git stash <option>` and pop, with a gc in
# between: the stash's `git clean` takes the blob file clean wrote during
# the stash, and the conversation must come back byte for byte.
stash_round_trip() {
  local option=$1 name=$2 text=$3
  write_conversation "$name" "$text"
  cp ".jp/conversations/$name/events.json" "$TEST_ROOT/$name.json"
  git stash "$option" -q 2> "$TEST_ROOT/err" || fail "stash $option failed: $(cat "$TEST_ROOT/err")"
  [ "$(store_files)" -eq 0 ] || fail "the set-up did not lose the work-tree file: $(find .jp/blobs -type f)"
  [ -f "$(kept_of "$text")" ] || fail "no kept copy of the stashed conversation's blob"
  git jpblob gc --prune=now > /dev/null  # keeps what the stash references
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  cmp -s ".jp/conversations/$name/events.json" "$TEST_ROOT/$name.json" || fail "stash $option lost the tool output"
}

stash_u_store_checked_out() {
  new_installed_repo_checked_out full
  [ "$(git config core.sparseCheckout || echo false)" = false ] || fail "the set-up is a lean tree"
  stash_round_trip -u 1-new "tool output never added"
  git add .jp && git commit -qm new
  assert_blobs_committed
  assert_clean_status
  [ "$(kept_count)" -eq 0 ] || fail "the commit left its kept copy: $(ls "$(kept_dir)")"
}
case_ "stash -u of a new conversation with the store checked out keeps its tool output, through a gc" \
  stash_u_store_checked_out

stash_a_lean() {
  new_lean_repo lean
  [ "$(git config core.sparseCheckout)" = true ] || fail "the set-up is not a lean tree"
  stash_round_trip -a 2-new "tool output stashed with ignored files"
}
case_ "stash -a of a new conversation in a lean tree keeps its tool output" stash_a_lean

clean_x_before_commit() {
  cd "$TEST_ROOT/lean"
  git add .jp && git commit -qm two
  write_conversation 3-added "tool output added, then its blob cleaned away"
  # Past git's racy window: the commit's refresh would otherwise clean the
  # conversation again and write the file itself.
  sleep 1.1
  git add .jp/conversations/3-added
  git clean -fdxq
  [ "$(store_files)" -eq 0 ] || fail "git clean -x left blob files"
  git commit -qm added 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
  [ "$(kept_count)" -eq 0 ] || fail "the commit left its kept copy"
}
case_ "git clean -x between add and commit in a lean tree: the blob is in the git folder, and the commit holds it" \
  clean_x_before_commit

# With the store checked out, git clean -x deletes the new blob's work-tree
# file: the hook writes it again from its kept copy and says so.
clean_x_store_checked_out() {
  cd "$TEST_ROOT/full"
  git add .jp && git commit -qm "before clean -x" > /dev/null 2>&1 || true
  write_conversation 6-cleaned "tool output whose blob file git clean took"
  sleep 1.1  # past git's racy window, as above
  git add .jp/conversations/6-cleaned
  git clean -fdxq
  [ ! -e "$(blob_of "tool output whose blob file git clean took")" ] || fail "git clean -x left the blob file"
  git commit -qm cleaned 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  grep -q "written again from the copies kept" "$TEST_ROOT/err" || fail "the hook did not say: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
}
case_ "git clean -x between add and commit with the store checked out: the hook writes the blob again from its kept copy" \
  clean_x_store_checked_out

gc_of_kept_copies() {
  cd "$TEST_ROOT/lean"
  # What the cases before left uncommitted (the one before is full mode only).
  git add .jp && git commit -qm "before gc" > /dev/null 2>&1 || true
  # `git commit -a` hands the hook an index git may throw away: the copy
  # stays until the index that remains holds the blob, then gc takes it.
  write_conversation 4-all "committed with git commit -a"
  git add -N .jp/conversations/4-all && git commit -qam all
  [ "$(kept_count)" -eq 1 ] || fail "expected the commit -a copy to stay, found $(kept_count)"
  # Abandoned: added, then unstaged and deleted; nothing references it.
  write_conversation 5-abandoned "tool output nobody kept"
  git add .jp/conversations/5-abandoned && git reset -q && rm -r .jp/conversations/5-abandoned
  [ "$(kept_count)" -eq 2 ] || fail "expected two kept copies, found $(kept_count)"
  git jpblob gc > /dev/null
  [ "$(kept_count)" -eq 1 ] || fail "gc did not take exactly the copy the index holds: $(kept_count) left"
  git jpblob gc --prune=now > "$TEST_ROOT/out"
  [ "$(kept_count)" -eq 0 ] || fail "gc --prune=now left the abandoned copy"
  grep -q "jpblob/kept" "$TEST_ROOT/out" || fail "gc did not name what it removed: $(cat "$TEST_ROOT/out")"
  assert_blobs_committed
  git jpblob verify > /dev/null || fail "verify fails after gc"
}
case_ "gc takes a kept copy once the index holds its blob, and an unreferenced one after the grace period" \
  gc_of_kept_copies

commit_a_copy_goes_at_the_next_commit() {
  cd "$TEST_ROOT/lean"
  [ "$(kept_count)" -eq 0 ] || fail "the set-up has kept copies already"
  write_conversation 8-all "committed with git commit -a again"
  git add -N .jp/conversations/8-all && git commit -qam all
  [ "$(kept_count)" -eq 1 ] || fail "expected the commit -a copy to stay, found $(kept_count)"
  write_conversation 9-next "the commit after"
  git add .jp/conversations/9-next && git commit -qm next
  [ "$(kept_count)" -eq 0 ] || fail "the next commit in a lean tree left $(kept_count) kept copies"
  assert_blobs_committed
}
case_ "in a lean tree, the next commit takes what git commit -a kept, with its file" \
  commit_a_copy_goes_at_the_next_commit

git_folder_on_another_file_system() {
  # No hard link across file systems: the kept copy is a copy.
  local gitdir=/dev/shm/jpblob-e2e-$$.git
  if [ ! -d /dev/shm ] || [ "$(stat -c %d /dev/shm)" = "$(stat -c %d "$TEST_ROOT")" ]; then
    echo "# skipped: no second file system at /dev/shm"
    return 0
  fi
  trap "rm -rf '$gitdir'" EXIT
  git init -q --shared=group --separate-git-dir "$gitdir" "$TEST_ROOT/split"
  cd "$TEST_ROOT/split"
  git config jpblob.lean false
  install_jpblob
  git add .gitattributes && git commit -qm attributes
  stash_round_trip -u 7-split "tool output with the git folder elsewhere"
  [ "$(stat -c %d "$(kept_of "tool output with the git folder elsewhere")")" = "$(stat -c %d /dev/shm)" ] ||
    fail "the kept copy is not in the git folder on the other file system"
}
case_ "a git folder on another file system gets copies where links cannot be made" git_folder_on_another_file_system

kept_folder_is_a_link() {
  cd "$TEST_ROOT/lean"
  mkdir "$TEST_ROOT/elsewhere"
  rm -rf "$(kept_dir)"
  ln -s "$TEST_ROOT/elsewhere" "$(kept_dir)"
  write_conversation 6-linked "tool output with the kept folder a link"
  cp .jp/conversations/6-linked/events.json "$TEST_ROOT/linked.json"
  if git add .jp/conversations/6-linked 2> "$TEST_ROOT/err"; then fail "add wrote through a linked kept folder"; fi
  grep -q "refusing blob store" "$TEST_ROOT/err" || fail "the refusal does not say why: $(cat "$TEST_ROOT/err")"
  [ -z "$(ls -A "$TEST_ROOT/elsewhere")" ] || fail "a file was written outside the repository"
  cmp -s .jp/conversations/6-linked/events.json "$TEST_ROOT/linked.json" || fail "the conversation changed"
  rm "$(kept_dir)"
  git add .jp/conversations/6-linked || fail "add failed once the link was gone"
}
case_ "a kept folder that is a symbolic link is refused, nothing written outside, the conversation intact" \
  kept_folder_is_a_link

corrupt_kept_copy_replaced() {
  # A kept copy is a link: a write into the work-tree file corrupts both.
  # With the corrupt file deleted, clean writes a good one; its kept copy
  # must follow, or the next stash keeps only the corrupt bytes.
  new_installed_repo_checked_out corrupt
  write_conversation 10-corrupt "tool output written into in place"
  cp .jp/conversations/10-corrupt/events.json "$TEST_ROOT/corrupt.json"
  git add .jp/conversations/10-corrupt && git reset -q
  local f
  f=$(blob_of "tool output written into in place")
  echo garbage > "$f"
  rm "$f"
  git stash -u -q 2> "$TEST_ROOT/err" || fail "stash -u failed: $(cat "$TEST_ROOT/err")"
  [ "$(store_files)" -eq 0 ] || fail "the set-up did not lose the work-tree file"
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/10-corrupt/events.json "$TEST_ROOT/corrupt.json" || fail "stash -u lost the tool output"
}
case_ "a kept copy corrupted through its work-tree link is replaced when clean writes the blob again" \
  corrupt_kept_copy_replaced

gc_keeps_a_copy_a_stash_needs() {
  # A stash's untracked part lacks the blob clean wrote while it was made:
  # its kept copy is the only one. Another conversation staging the same
  # tool output does not make the copy redundant: that index lets go again.
  new_installed_repo_checked_out stash_gc
  write_conversation 11-stashed "tool output read twice"
  cp .jp/conversations/11-stashed/events.json "$TEST_ROOT/stashed.json"
  git stash -u -q
  write_conversation 12-again "tool output read twice"
  git add .jp && git add .jp
  git ls-files --error-unmatch "$(blob_of "tool output read twice")" > /dev/null || fail "the set-up did not stage the blob"
  git jpblob gc > /dev/null
  git reset -q && rm -r .jp/conversations/12-again && git clean -fdxq
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/11-stashed/events.json "$TEST_ROOT/stashed.json" || fail "the stash lost its tool output"
}
case_ "gc keeps a kept copy a stash needs even while the index holds the same blob" gc_keeps_a_copy_a_stash_needs

hook_keeps_a_copy_a_stash_needs() {
  # The same in a lean tree, through the hook: a commit stages the same
  # tool output from another conversation (dropping its file), is refused
  # after the hook, and the user resets. The stash still needs the blob.
  cd "$TEST_ROOT/lean"
  write_conversation 13-stashed "tool output stashed, then committed elsewhere"
  cp .jp/conversations/13-stashed/events.json "$TEST_ROOT/stashed.json"
  git stash -a -q
  write_conversation 14-again "tool output stashed, then committed elsewhere"
  git add .jp/conversations/14-again
  printf '#!/bin/sh\nexit 1\n' > .git/hooks/commit-msg && chmod +x .git/hooks/commit-msg
  if git commit -qm refused 2> /dev/null; then fail "the commit-msg hook did not refuse"; fi
  rm .git/hooks/commit-msg
  git ls-files --error-unmatch "$(blob_of "tool output stashed, then committed elsewhere")" > /dev/null ||
    fail "the set-up did not stage the blob"
  git reset -q && rm -r .jp/conversations/14-again && git clean -fdxq
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  cmp -s .jp/conversations/13-stashed/events.json "$TEST_ROOT/stashed.json" || fail "the stash lost its tool output"
}
case_ "the hook keeps the kept copies while a stash exists, whatever the index holds" hook_keeps_a_copy_a_stash_needs

# verify reads the kept copies: after `git stash -a` one is the only copy
# of a new conversation's tool output.
verify_checks_kept_copies() {
  new_installed_repo verified
  local text="tool output whose only copy is kept" copy
  write_conversation 9-verify "$text"
  git add .jp/conversations/9-verify
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify after the add: $(cat "$TEST_ROOT/out")"
  if lean_mode; then
    # A repository that becomes lean at its first commit: the new blob's
    # only home is its copy in the git folder, which verify checks.
    grep -q "[1-9][0-9]* kept copy" "$TEST_ROOT/out" || fail "verify did not check the new blob: $(cat "$TEST_ROOT/out")"
  else
    # Each kept copy is a link to the blob file verify reads anyway.
    ! grep -q "kept cop" "$TEST_ROOT/out" || fail "verify read linked copies again: $(cat "$TEST_ROOT/out")"
  fi
  git stash -a -q
  copy=$(kept_of "$text")
  [ -f "$copy" ] && [ "$(store_files)" -eq 0 ] || fail "set-up: the kept copy is not the only one"
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify fails with a sound kept copy: $(cat "$TEST_ROOT/out")"
  grep -q "[1-9][0-9]* kept copy" "$TEST_ROOT/out" || fail "verify did not check the kept copy: $(cat "$TEST_ROOT/out")"
  cp "$copy" "$TEST_ROOT/good.gz"
  rm -f "$copy" && printf 'not gzip' > "$copy"
  if git jpblob verify > "$TEST_ROOT/out" 2>&1; then fail "verify passed a corrupt kept copy"; fi
  grep -q "problem: kept copy: .*$(basename "$copy")" "$TEST_ROOT/out" || fail "no problem named: $(cat "$TEST_ROOT/out")"
  rm -f "$copy" && cp "$TEST_ROOT/good.gz" "$copy"
  git stash pop -q
  git jpblob verify > /dev/null || fail "verify fails after the pop"
}
case_ "verify checks kept copies, the only copy after stash -a, and names a corrupt one" verify_checks_kept_copies

corrupt_kept_copy_refuses_the_commit() {
  # The hook reads the kept copies on several threads and judges them in
  # order: a corrupt one (the only copy: the work-tree file is gone, as a
  # lean tree never has one) refuses the commit, naming it and the mend.
  new_installed_repo corrupt_at_commit
  write_conversation 13-first "tool output that stays sound"
  write_conversation 14-bad "tool output whose only copy rots"
  # Past git's racy window: the commit's refresh would otherwise clean the
  # conversations again and write a sound copy itself.
  sleep 1.1
  git add .jp/conversations
  local copy
  copy=$(kept_of "tool output whose only copy rots")
  [ -f "$copy" ] || fail "set-up: no kept copy"
  rm -f "$(blob_of "tool output whose only copy rots")" "$copy" && printf 'not gzip' > "$copy"
  if git commit -qm bad 2> "$TEST_ROOT/err"; then fail "the commit took a corrupt kept copy"; fi
  grep -q "corrupt.*referenced by .jp/conversations/14-bad/events.json.*git jpblob repair" "$TEST_ROOT/err" ||
    fail "the refusal does not name the copy and the mend: $(cat "$TEST_ROOT/err")"
  [ "$(git rev-list --count HEAD)" -eq 1 ] || fail "a commit was made"
}
case_ "a corrupt kept copy refuses the commit and names it, with git jpblob repair" corrupt_kept_copy_refuses_the_commit

# A commit that stages every kept copy (a lean tree committing all it
# added) moves the folder aside whole, and a process of its own deletes
# it: 114,000 deletions kept a commit of 50,000 conversations waiting five
# seconds (core/lean/kept_copies, KeptCopies::retire).
retired_dir() { echo "$(git rev-parse --git-common-dir)/jpblob/retired"; }
wait_for_purge() {
  local i
  for i in $(seq 100); do
    [ -z "$(ls -A "$(retired_dir)" 2> /dev/null)" ] && return 0
    sleep 0.1
  done
  fail "the set-aside copies were not deleted: $(find "$(retired_dir)" | head -5)"
}

commit_sets_the_kept_folder_aside() {
  new_lean_repo retire
  write_conversation 20-a "first output a commit sets aside"
  write_conversation 21-b "second output a commit sets aside"
  git add .jp/conversations
  [ "$(kept_count)" -ge 2 ] || fail "set-up: expected kept copies, found $(kept_count)"
  git commit -qm two 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  [ ! -e "$(kept_dir)" ] || fail "the kept folder was emptied one by one, not set aside: $(ls -A "$(kept_dir)")"
  wait_for_purge
  assert_blobs_committed
  assert_clean_status
  git fsck --no-dangling 2> "$TEST_ROOT/err" || fail "fsck: $(cat "$TEST_ROOT/err")"
  # The next add makes the folder again, and the next commit sets it aside.
  write_conversation 22-c "output after the folder went"
  git add .jp/conversations/22-c
  [ "$(kept_count)" -ge 1 ] || fail "the add after did not keep its copy"
  git commit -qm c
  [ ! -e "$(kept_dir)" ] || fail "the second commit did not set the folder aside"
  wait_for_purge
  assert_blobs_committed
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify: $(cat "$TEST_ROOT/out")"
}
case_in_mode lean "kept copies are a lean tree's new blobs; with the store checked out they are links, each removed" \
  "a lean commit of all it added sets the kept folder aside whole; it is deleted without the commit waiting" \
  commit_sets_the_kept_folder_aside

# Only when every copy is the commit's, and no writer is at work.
kept_folder_stays_when_it_must() {
  new_lean_repo retire_not
  write_conversation 23-staged "output this commit stages"
  write_conversation 24-later "output added, then unstaged"
  git add .jp/conversations && git reset -q -- .jp/conversations/24-later
  git commit -qm staged 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  [ "$(kept_count)" -eq 1 ] && [ -f "$(kept_of "output added, then unstaged")" ] ||
    fail "the copy of the unstaged conversation did not stay alone: $(ls -A "$(kept_dir)")"
  [ -z "$(ls -A "$(retired_dir)" 2> /dev/null)" ] || fail "a folder was set aside: $(ls -A "$(retired_dir)")"
  git add .jp/conversations/24-later
  # A writer (another `git add`) holding the lock: the commit does not
  # wait, and removes the copies one by one.
  flock -s "$(git rev-parse --git-common-dir)/jpblob/kept.lock" sleep 30 &
  local writer=$!
  sleep 0.3
  git commit -qm later 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  kill $writer
  [ -d "$(kept_dir)" ] && [ "$(kept_count)" -eq 0 ] || fail "with a writer at work the folder moved, or copies stayed"
  [ -z "$(ls -A "$(retired_dir)" 2> /dev/null)" ] || fail "a folder was set aside under a writer's lock"
  assert_blobs_committed
}
case_in_mode lean "kept copies are a lean tree's new blobs; with the store checked out they are links, each removed" \
  "the kept folder stays when a copy is not the commit's, or a writer holds its lock" kept_folder_stays_when_it_must

# A `retired` the hook cannot use (a file, a link out of the git folder,
# a git folder it cannot write): the commit goes on, the copies go one by
# one, nothing is written outside.
kept_folder_stays_when_retired_is_unusable() {
  new_lean_repo retire_unusable
  mkdir "$TEST_ROOT/outside"
  local n=30 how
  for how in file link; do
    rm -rf "$(retired_dir)"
    mkdir -p "$(dirname "$(retired_dir)")"
    if [ $how = file ]; then echo "not a folder" > "$(retired_dir)"; else ln -s "$TEST_ROOT/outside" "$(retired_dir)"; fi
    n=$((n + 1))
    write_conversation "$n-$how" "output committed beside a retired $how"
    git add .jp/conversations
    git commit -qm "$how" 2> "$TEST_ROOT/err" || fail "a retired $how refused the commit: $(cat "$TEST_ROOT/err")"
    [ -d "$(kept_dir)" ] && [ "$(kept_count)" -eq 0 ] || fail "with a retired $how the copies did not go one by one"
    assert_blobs_committed
    git jpblob gc > /dev/null 2> "$TEST_ROOT/err" || fail "gc with a retired $how: $(cat "$TEST_ROOT/err")"
  done
  [ -z "$(ls -A "$TEST_ROOT/outside")" ] || fail "copies went outside the git folder: $(ls -A "$TEST_ROOT/outside")"
  rm -f "$(retired_dir)"
}
case_in_mode lean "kept copies are a lean tree's new blobs; with the store checked out they are links, each removed" \
  "a retired that is a file or a link: the commit removes the copies one by one" kept_folder_stays_when_retired_is_unusable

# `git commit <paths>` after a commit refused once the hook had run (a
# commit-msg hook): the hook staged the blobs into the index and dropped
# their copies, and the partial commit's temporary index, made from HEAD,
# lacks them. The hook takes them from the real index.
partial_commit_after_a_refused_one() {
  new_installed_repo refused_then_partial
  write_conversation 40-refused "output of a commit refused after the hook"
  git add .jp/conversations
  printf '#!/bin/sh\nexit 1\n' > "$(git rev-parse --git-path hooks)/commit-msg"
  chmod +x "$(git rev-parse --git-path hooks)/commit-msg"
  if git commit -qm refused 2> /dev/null; then fail "the commit-msg hook did not refuse"; fi
  rm "$(git rev-parse --git-path hooks)/commit-msg"
  git commit -qm partial -- .jp/conversations/40-refused 2> "$TEST_ROOT/err" ||
    fail "the partial commit after a refused one failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_clean_status
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "verify: $(cat "$TEST_ROOT/out")"
}
case_ "git commit <paths> after a commit refused by commit-msg takes the blobs the hook staged into the index" \
  partial_commit_after_a_refused_one

# A purge that never ran (killed, or no process could start): gc does it.
gc_purges_what_a_commit_set_aside() {
  new_installed_repo retire_gc
  write_conversation 25-a "output committed before the purge"
  git add .jp/conversations && git commit -qm a
  wait_for_purge
  local left
  left="$(retired_dir)/kept-1-2-0"
  mkdir -p "$left"
  printf 'not even gzip' > "$left/$(printf x | sha256sum | cut -c1-64).blob.gz"
  printf "a user's" > "$left/notes.txt"
  git jpblob gc --json > "$TEST_ROOT/out" || fail "gc failed"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["retired_purged"] == 1, j' "$TEST_ROOT/out" ||
    fail "gc did not purge the set-aside copy: $(cat "$TEST_ROOT/out")"
  [ "$(ls -A "$left")" = notes.txt ] || fail "gc's purge took the wrong files: $(ls -A "$left")"
  # A link named as a blob stays, and stops neither gc nor the rest.
  mkdir -p "$(retired_dir)/kept-3-4-0" "$TEST_ROOT/elsewhere"
  local name
  name="$(printf y | sha256sum | cut -c1-64).blob.gz"
  printf 'outside' > "$TEST_ROOT/elsewhere/$name"
  ln -s "$TEST_ROOT/elsewhere/$name" "$(retired_dir)/kept-3-4-0/$name"
  printf 'not even gzip' > "$(retired_dir)/kept-3-4-0/$(printf z | sha256sum | cut -c1-64).blob.gz"
  git jpblob gc > "$TEST_ROOT/out" 2>&1 || fail "a link in a retired folder failed gc: $(cat "$TEST_ROOT/out")"
  [ "$(ls -A "$(retired_dir)/kept-3-4-0")" = "$name" ] || fail "the purge took the link or left the copy"
  [ "$(cat "$TEST_ROOT/elsewhere/$name")" = outside ] || fail "the purge followed the link"
  if git jpblob purge-retired "$TEST_ROOT" 2> "$TEST_ROOT/err"; then fail "purge-retired took a folder that is no git folder"; fi
  grep -q "not a git folder" "$TEST_ROOT/err" || fail "no reason given: $(cat "$TEST_ROOT/err")"
}
case_ "gc deletes kept copies a commit set aside and nothing else; purge-retired wants a git folder" \
  gc_purges_what_a_commit_set_aside

# A hook killed while it wrote its pack leaves the unfinished files in
# git's objects/pack: git never reads them (no index names them) and its
# own gc keeps them two weeks, as large as what the commit staged. gc
# deletes those whose writer is gone and that nothing wrote for an hour.
gc_deletes_packs_a_killed_commit_left() {
  new_installed_repo unfinished_packs
  write_conversation 26-a "output committed before the kill"
  git add .jp/conversations && git commit -qm a
  local packs dead live
  packs="$(git rev-parse --git-common-dir)/objects/pack"
  dead="$(sh -c 'echo $$')"  # a process that has ended
  live=$$
  for f in "tmp_pack_jpblob_${dead}_1" "tmp_idx_jpblob_${dead}_1" "tmp_pack_jpblob_${live}_2" \
    "tmp_pack_jpblob_${dead}_3" tmp_pack_Ab12Cd "tmp_pack_jpblob_x${dead}_4"; do
    printf 'PACK unfinished' > "$packs/$f"
  done
  printf 'outside' > "$TEST_ROOT/outside-pack"
  ln -s "$TEST_ROOT/outside-pack" "$packs/tmp_pack_jpblob_${dead}_5"
  touch -h -d '2 hours ago' "$packs"/tmp_pack_* "$packs"/tmp_idx_*
  touch "$packs/tmp_pack_jpblob_${dead}_3"  # written a moment ago
  git jpblob gc --dry-run --json > "$TEST_ROOT/out" || fail "gc --dry-run failed"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["unfinished_packs"] == 2, j' "$TEST_ROOT/out" ||
    fail "gc --dry-run did not count the two unfinished files: $(cat "$TEST_ROOT/out")"
  [ -f "$packs/tmp_pack_jpblob_${dead}_1" ] || fail "gc --dry-run deleted a file"
  git jpblob gc > "$TEST_ROOT/out" 2>&1 || fail "gc failed: $(cat "$TEST_ROOT/out")"
  grep -q "Deleted 2 unfinished pack file(s)" "$TEST_ROOT/out" || fail "gc did not say so: $(cat "$TEST_ROOT/out")"
  local f
  for f in "tmp_pack_jpblob_${dead}_1" "tmp_idx_jpblob_${dead}_1"; do
    [ ! -e "$packs/$f" ] || fail "gc left $f, whose writer is gone"
  done
  for f in "tmp_pack_jpblob_${live}_2" "tmp_pack_jpblob_${dead}_3" tmp_pack_Ab12Cd "tmp_pack_jpblob_x${dead}_4" \
    "tmp_pack_jpblob_${dead}_5"; do
    [ -e "$packs/$f" ] || [ -L "$packs/$f" ] || fail "gc deleted $f (a running writer's, a recent one, git's own, a link)"
  done
  [ "$(cat "$TEST_ROOT/outside-pack")" = outside ] || fail "gc followed the link"
  rm -f "$packs"/tmp_pack_* "$packs"/tmp_idx_*
  git fsck --strict > /dev/null 2>&1 || fail "fsck after gc"
}
case_ "gc deletes the pack files a killed commit left, and not a running writer's, a recent one, git's own or a link" \
  gc_deletes_packs_a_killed_commit_left

pass
