#!/usr/bin/env bash
# The pre-commit hook in every way git runs it: commit, commit -a,
# commit <paths>, the first commit, amend, a merge commit, git -C, a
# repository with extensions.worktreeConfig, a conversation added with the
# filter uninstalled, and a repository with no .jp at all. Then the refusals:
# a deleted blob, a flipped byte, a modified tracked blob; and an orphan
# blob that must stay out of the commit.
. "$(dirname "$0")/lib.sh"
git init -q "$TEST_ROOT/repo"
cd "$TEST_ROOT/repo"
install_jpblob
conv=.jp/conversations/1-first/events.json
digest_of() { printf '%s' "$1" | sha256sum | cut -c1-64; }

first_commit() {
  write_conversation 1-first "first output"
  git add .gitattributes .jp/conversations
  git commit -qm first
  assert_no_changes
  assert_blobs_committed
}
case_ "the first commit (no HEAD), conversation and attributes together" first_commit

commit_all() {
  grow_conversation "$conv" "commit -a output"
  git commit -qam "commit -a"
  assert_no_changes
  assert_blobs_committed
}
case_ "git commit -a (the index is .git/index.lock)" commit_all

commit_paths() {
  grow_conversation "$conv" "commit paths output"
  write_conversation 2-untouched "not part of this commit"
  git add .jp/conversations/2-untouched/events.json
  grow_conversation .jp/conversations/2-untouched/events.json "still not part of it"
  git commit -qm "commit paths" -- "$conv"
  assert_blobs_committed
  local s
  s=$(git status --porcelain --untracked-files=no)
  [ "$s" = "AM .jp/conversations/2-untouched/events.json" ] || fail "phantom changes after commit <paths>: $s"
  git reset -q -- .jp/conversations/2-untouched
  rm -rf .jp/conversations/2-untouched
  assert_no_changes
}
case_ "git commit <paths> (a next-index-<pid>.lock, then the real index)" commit_paths

amend() {
  grow_conversation "$conv" "amend output"
  git add "$conv"
  git commit -q --amend -m "commit paths, amended"
  assert_no_changes
  assert_blobs_committed
}
case_ "git commit --amend" amend

commit_from_elsewhere() {
  mkdir -p "$TEST_ROOT/elsewhere"
  grow_conversation "$conv" "git -C output"
  (cd "$TEST_ROOT/elsewhere" && git -C "$TEST_ROOT/repo" commit -qam "from elsewhere")
  assert_no_changes
  assert_blobs_committed
}
case_ "git -C from another folder" commit_from_elsewhere

merge_commit() {
  # Both sides reword the first question (appends alone merge by
  # themselves): a real conflict, concluded by git commit.
  git checkout -q -b side
  sed -i 's/Does it build?/Does it build on side?/' "$conv"
  grow_conversation "$conv" "side output"
  git commit -qam side
  git checkout -q main 2>/dev/null || git checkout -q master
  sed -i 's/Does it build?/Does it build on main?/' "$conv"
  grow_conversation "$conv" "main output"
  git commit -qam main
  if git merge -q side > /dev/null 2>&1; then fail "the two rewordings merged without a conflict"; fi
  python3 - "$conv" <<'PY'
import json, subprocess, sys
p = sys.argv[1]
side = lambda n: json.loads(subprocess.check_output(["git", "show", f":{n}:{p}"]))
ours, theirs = side(2), side(3)
json.dump(ours + [e for e in theirs if e not in ours], open(p, "w"), indent=2)
PY
  git add "$conv"
  git commit -qm merge
  assert_no_changes
  assert_blobs_committed
}
case_ "a merge commit concluded by git commit after a conflict" merge_commit

# The cases after this one run with the extension declared too.
worktree_config() {
  git config core.repositoryformatversion 1
  git config extensions.worktreeConfig true
  grow_conversation "$conv" "worktreeConfig output"
  git commit -qam "with worktreeConfig"
  assert_blobs_committed
}
case_ "extensions.worktreeConfig, which libgit2 1.5 refuses unless declared" worktree_config

hook_cleans_unfiltered() {
  write_conversation 3-unfiltered "added without the filter"
  cp .jp/conversations/3-unfiltered/events.json "$TEST_ROOT/unfiltered.json"
  git -c filter.jpblob.process= -c filter.jpblob.clean= -c filter.jpblob.smudge= -c filter.jpblob.required=false \
    add .jp/conversations/3-unfiltered
  git cat-file -p :.jp/conversations/3-unfiltered/events.json | grep -q "$(printf 'added without the filter' | base64 -w0)" ||
    fail "the setup did not stage inline content"
  git commit -qm unfiltered
  git cat-file -p HEAD:.jp/conversations/3-unfiltered/events.json | grep -q '"\$blob":"' ||
    fail "the hook did not clean the inline conversation"
  cmp .jp/conversations/3-unfiltered/events.json "$TEST_ROOT/unfiltered.json" || fail "the work tree file changed"
  assert_no_changes
  assert_blobs_committed
}
case_ "a conversation added with the filter uninstalled: the hook cleans it" hook_cleans_unfiltered

# The hook reads a staged conversation once when it is clean's output, and
# cleans it again only otherwise: a committed form edited by hand, with a
# reference spelled another way, is written again in clean's spelling.
hook_respells_references() {
  write_conversation 5-respelled "a reference spelled otherwise"
  git add .jp/conversations/5-respelled
  local spaced id
  spaced=$(git cat-file -p :.jp/conversations/5-respelled/events.json | sed 's/"\$blob":"/"$blob": "/g')
  printf '%s' "$spaced" | grep -q '"\$blob": "' || fail "the setup found no reference to respell"
  id=$(printf '%s' "$spaced" | git hash-object -w --no-filters --stdin)
  git update-index --cacheinfo "100644,$id,.jp/conversations/5-respelled/events.json"
  git commit -qm "respelled by hand" 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  ! git cat-file -p HEAD:.jp/conversations/5-respelled/events.json | grep '"\$blob": "' > /dev/null ||
    fail "the hook committed a reference in another spelling"
  git cat-file -p HEAD:.jp/conversations/5-respelled/events.json | grep -q '"\$blob":"' ||
    fail "the reference is gone from the commit"
  git reset -q --hard
  assert_blobs_committed
}
case_ "a staged committed form with a reference spelled otherwise: the hook writes clean's spelling" hook_respells_references

# The filter records what each output references for the hook
# (core/lean/needs_log): the line for the staged id names exactly
# the blobs the staged conversation references; a log cut short or
# garbled costs a read, never a blob; the logs go with the commit.
needs_records() {
  write_conversation 6-recorded "recorded output one"
  grow_conversation .jp/conversations/6-recorded/events.json "recorded output two"
  git add .jp/conversations/6-recorded
  local logs id listed referenced
  logs="$(git rev-parse --git-common-dir)/jpblob/needs"
  id=$(git rev-parse :.jp/conversations/6-recorded/events.json)
  listed=$(cat "$logs"/*.log | grep "^$id " | tr ' ' '\n' | sed -n 's/^\([0-9a-f]\{64\}\):.*/\1/p' | sort)
  referenced=$(git cat-file -p "$id" | grep -o '"\$blob":"[0-9a-f]\{64\}"' | cut -d'"' -f4 | sort -u)
  [ -n "$referenced" ] || fail "the setup references no blob"
  [ "$listed" = "$referenced" ] || fail "the record lists [$listed], the conversation references [$referenced]"
  # Cut mid-line, then a line of nonsense: the hook reads the file instead.
  for f in "$logs"/*.log; do
    head -c 60 "$f" > "$f.cut" && printf 'not a record\n%s' "$(head -c 20 "$f")" >> "$f.cut" && mv "$f.cut" "$f"
  done
  local before
  before=$(ls "$logs")
  git commit -qm recorded 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  assert_no_changes
  # (git's own refresh after the hook may clean again and start a new log.)
  for f in $before; do [ ! -e "$logs/$f" ] || fail "a log the hook read outlived the commit: $f"; done
}
case_ "the filter's record of each output's references: exact, and a log cut short costs nothing" needs_records

refuses_deleted_blob() {
  write_conversation 4-deleted "blob deleted after add"
  # Backdated, so the index entry is not racy: otherwise git re-cleans the
  # file while committing, and clean rightly writes the blob again.
  touch -d '2 hours ago' .jp/conversations/4-deleted/events.json
  git add .jp/conversations/4-deleted
  local digest
  digest=$(digest_of 'blob deleted after add')
  # The work-tree file and its kept copy (with the copy, the hook writes
  # the file again: e2e kept_copies).
  remove_blob_files "$digest"
  if git commit -qm deleted 2> "$TEST_ROOT/err"; then fail "committed a conversation whose blob is missing"; fi
  grep -q "blob $digest referenced by .jp/conversations/4-deleted/events.json is missing" "$TEST_ROOT/err" ||
    fail "message: $(cat "$TEST_ROOT/err")"
  grep -q "commit refused" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  git reset -q -- .jp/conversations/4-deleted && rm -rf .jp/conversations/4-deleted
}
case_ "refused: a blob deleted after git add, its kept copy too" refuses_deleted_blob

refuses_flipped_blob() {
  keep_new_blobs_as_files  # a file to flip: a pending pack's object is git's to check
  write_conversation 5-flipped "blob flipped after add"
  git add .jp/conversations/5-flipped
  local digest blob
  digest=$(digest_of 'blob flipped after add')
  blob=".jp/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz"
  python3 - "$(new_blob_file "$digest")" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[12] ^= 0x01
open(p, "wb").write(bytes(b))
PY
  if git commit -qm flipped 2> "$TEST_ROOT/err"; then fail "committed a corrupt blob"; fi
  grep -q "corrupt" "$TEST_ROOT/err" && grep -q "5-flipped" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  if git cat-file -e "HEAD:$blob" 2>/dev/null; then fail "the corrupt blob reached a commit"; fi
  git reset -q -- .jp/conversations/5-flipped && rm -rf .jp/conversations/5-flipped "$(new_blob_file "$digest")"
  git config --unset core.sharedRepository
}
case_ "refused: a blob flipped by a byte after git add" refuses_flipped_blob

refuses_modified_tracked_blob() {
  local tracked
  tracked=$(git ls-files .jp/blobs | head -1)
  cp "$tracked" "$TEST_ROOT/tracked"
  printf 'x' >> "$tracked"
  grow_conversation "$conv" "output beside a modified blob"
  if git commit -qam modified 2> "$TEST_ROOT/err"; then
    git show --stat HEAD
    fail "committed over a modified tracked blob"
  fi
  # Refused by clean (which will not stand the changed file for the new
  # content) or by the hook (a blob never changes).
  grep -q "a blob never changes\|git jpblob repair" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  cp "$TEST_ROOT/tracked" "$tracked"
  git commit -qam "modified blob restored"
}
case_in_mode full "a lean tree has no tracked blob file to modify" "refused: a tracked blob modified in the work tree" refuses_modified_tracked_blob

orphan_stays_out() {
  write_conversation 6-abandoned "abandoned edit"
  git add .jp/conversations/6-abandoned
  git reset -q -- .jp/conversations/6-abandoned && rm -rf .jp/conversations/6-abandoned
  local orphan
  orphan=$(digest_of 'abandoned edit')
  new_blob_held "$orphan" || fail "setup: no orphan"
  write_conversation 7-real "real output"
  git add .jp/conversations/7-real
  git commit -qm real
  assert_blobs_committed
  if git cat-file -e "HEAD:.jp/blobs/${orphan:0:2}/${orphan:2:2}/$orphan.blob.gz" 2>/dev/null; then
    fail "the orphan blob was committed"
  fi
}
case_ "an orphan blob beside a real one stays out of the commit" orphan_stays_out

# A tree put where a conversation goes (update-index --cacheinfo): there,
# but not a file's content. The refusal says so, and how to unstage it.
tree_as_conversation() {
  local tree
  tree=$(git rev-parse HEAD^{tree})
  git update-index --add --cacheinfo "100644,$tree,.jp/conversations/9-tree/events.json"
  if git commit -qm tree 2> "$TEST_ROOT/err"; then fail "a tree was committed as a conversation"; fi
  grep -q "the staged .jp/conversations/9-tree/events.json is not a file's content (its object $tree is a tree" \
    "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  git rm -q --cached .jp/conversations/9-tree/events.json
}
case_ "refused: a tree staged where a conversation goes, named as not a file's content" tree_as_conversation

# A tree of HEAD cut short on disk (libgit2 1.5's own reader never returns
# from one): a commit that asks HEAD for its blobs is refused naming the
# object's file, not calling the blobs missing and sending the user to
# repair. Put back, the commit goes through.
corrupt_tree_in_head() {
  commit_conversation 10-first "output the second conversation shares"
  local id file
  id=$(git rev-parse HEAD:.jp/blobs)
  file="$(git rev-parse --git-path objects)/${id:0:2}/${id:2}"
  [ -f "$file" ] || fail "the store's tree is not a loose object"
  cp "$file" "$TEST_ROOT/tree.good"
  chmod u+w "$file"
  head -c $(( $(stat -c %s "$file") / 2 )) "$TEST_ROOT/tree.good" > "$file"
  write_conversation 11-second "output the second conversation shares"
  git add .jp/conversations/11-second
  if timeout 60 git commit -qm second 2> "$TEST_ROOT/err"; then fail "the commit went through over a corrupt tree"; fi
  grep -q "cannot read object $id from git: its file .* is corrupt" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  if grep -q "missing" "$TEST_ROOT/err"; then fail "the blobs were called missing: $(cat "$TEST_ROOT/err")"; fi
  cp "$TEST_ROOT/tree.good" "$file"
  git commit -qm second 2> "$TEST_ROOT/err" || fail "the commit after the mend: $(cat "$TEST_ROOT/err")"
}
case_in_mode lean "with the store checked out the hook reads the blob files, not HEAD's trees" \
  "refused: a tree of HEAD cut short on disk, named by its file" corrupt_tree_in_head

no_jp_at_all() {
  git init -q "$TEST_ROOT/plain"
  cd "$TEST_ROOT/plain"
  install_jpblob
  echo hello > README
  git add README .gitattributes
  git commit -qm plain
  [ "$(git ls-files | wc -l)" -eq 2 ] || fail "the hook added files to a repository without .jp"
}
case_ "no .jp at all: the hook does nothing" no_jp_at_all
pass
