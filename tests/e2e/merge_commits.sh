#!/usr/bin/env bash
# Issue 24: no commit without its blobs, whatever makes it. git merge,
# rebase, cherry-pick and revert make their commits without the pre-commit
# hook; when the merge driver merges a conversation line by line, its
# result references only blobs the three sides reference (their commits
# hold them) and new content stays inline until the next `git add`. Tried
# as docs/USING.md's adoption steps go: a branch made before adoption edits a
# conversation that the adopting commit moved to references.
. "$(dirname "$0")/lib.sh"

# Before adoption: plain git, conversations inline.
git init -q "$TEST_ROOT/team" && cd "$TEST_ROOT/team"
write_conversation 1-shared "tool output before adoption"
git add .jp && git commit -qm "conversation, inline"
git branch feature
git branch to-rebase
git branch to-pick
git branch to-revert
# The feature edits an event's output (not an append): a line merge.
edit_output() {
  python3 - "$1" "$2" <<'PY'
import base64, json, sys
path, text = sys.argv[1], sys.argv[2]
events = json.load(open(path))
events[2]["content"] = base64.b64encode(text.encode()).decode()
json.dump(events, open(path, "w"), indent=2)
PY
}
for b in feature to-rebase to-pick; do
  git checkout -q "$b"
  edit_output .jp/conversations/1-shared/events.json "edited on $b"
  git commit -qam "edit on $b"
done
git checkout -q to-revert
edit_output .jp/conversations/1-shared/events.json "an edit to revert"
git commit -qam "edit to revert"
# Adoption on every branch that will receive the others' work.
adopt() {
  git checkout -q "$1"
  install_jpblob
  git add .gitattributes
  git add --renormalize .jp
  git commit -qm "adopt git-jpblob"
  git jpblob verify --history > /dev/null || fail "the adoption commit on $1 lacks a blob"
}
adopt main
git tag adopted
adopt to-revert
git checkout -q main
# Each case starts from the adopted main, with nothing in progress.
from_adopted() {
  git checkout -q -f main
  git reset -q --hard adopted
}
expected_of() { printf '%s' "$1" | base64 -w0; }

# Every commit reachable from HEAD holds every blob its conversations
# reference, and the conversation holds `text` byte for byte. Content the
# merge kept inline (a pre-adoption side's, new to the adopted history) is
# named by verify --history while the branch holds it (issue 46), and no
# more once the commit after stores it.
check_branch() {
  local text=$1
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || true
  if grep '^problem:' "$TEST_ROOT/out" | grep -qv ' was committed without the jpblob filter: '; then
    fail "a commit lacks its blobs: $(grep problem "$TEST_ROOT/out" | head -2)"
  fi
  grep -q "$(expected_of "$text")" .jp/conversations/1-shared/events.json || fail "the merge lost '$text'"
  # The next commit through the hook takes the inline content out. git
  # re-reads the file only when its stat data says so (or it is racily
  # clean, which a loaded machine makes it not), so as docs/USING.md says:
  git add --renormalize .jp/conversations
  git commit -qm "after" > /dev/null 2>&1 || true
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "the commit after lacks its blobs"
  ! git show HEAD:.jp/conversations/1-shared/events.json | grep -q "$(expected_of "$text")" ||
    fail "the commit after the merge kept the new content inline"
  assert_clean_status
}

merge_commit() {
  from_adopted
  git merge -q --no-edit feature > /dev/null 2>&1 || fail "the merge stopped: $(git status --short)"
  check_branch "edited on feature"
}
case_ "git merge of a branch made before adoption: the merge commit holds every blob it references" merge_commit

cherry_pick_commit() {
  from_adopted
  git cherry-pick to-pick > /dev/null 2>&1 || fail "the cherry-pick stopped: $(git status --short)"
  check_branch "edited on to-pick"
}
case_ "git cherry-pick: the picked commit holds every blob it references" cherry_pick_commit

rebase_commits() {
  from_adopted
  git checkout -q to-rebase
  git rebase -q main > /dev/null 2>&1 || fail "the rebase stopped: $(git status --short)"
  check_branch "edited on to-rebase"
}
case_ "git rebase onto the adopted branch: every rewritten commit holds its blobs" rebase_commits

revert_commit() {
  from_adopted
  git checkout -q to-revert
  git revert --no-edit HEAD~1 > /dev/null 2>&1 || fail "the revert stopped: $(git status --short)"
  check_branch "tool output before adoption"
  git checkout -q main
}
case_ "git revert of a pre-adoption edit: the revert commit holds every blob it references" revert_commit

# git am of a patch a teammate mailed from an adopted branch: the patch
# carries the new blob file (format-patch writes binary diffs) and am
# commits without the pre-commit hook.
am_commit() {
  from_adopted
  git checkout -q -b mailer
  edit_output .jp/conversations/1-shared/events.json "edited after adoption, then mailed"
  git add .jp && git commit -qm "mailed edit"
  git format-patch -q -1 HEAD --stdout > "$TEST_ROOT/mail.patch"
  git checkout -q main
  git am -q "$TEST_ROOT/mail.patch" > "$TEST_ROOT/am.out" 2>&1 || fail "git am stopped: $(tail -3 "$TEST_ROOT/am.out")"
  [ "$(git log -1 --format=%s)" = "mailed edit" ] || fail "git am made no commit"
  check_branch "edited after adoption, then mailed"
  git branch -q -D mailer
}
case_ "git am of a patch mailed from an adopted branch: the applied commit holds every blob it references" am_commit

# git am -3 of a patch made before adoption: git's recursive merge refreshes
# the merged file against clean's form, which the driver's inline new
# content is not, so am stops with no commit made (nothing broken). The
# docs/USING.md's recipe: apply the patch where it was made, then rebase (which
# merges through the driver like git merge).
am_pre_adoption_patch() {
  from_adopted
  git format-patch -q -1 feature --stdout > "$TEST_ROOT/old.patch"
  local before
  before=$(git rev-parse HEAD)
  if git am -3 -q "$TEST_ROOT/old.patch" > "$TEST_ROOT/am.out" 2>&1; then
    # Should git (or the driver) learn to apply it, the commit must hold its blobs.
    check_branch "edited on feature"
    return
  fi
  [ "$(git rev-parse HEAD)" = "$before" ] || fail "a stopped am made a commit"
  # am --abort keeps the file git's merge wrote: the patched conversation.
  git am --abort
  git restore .jp
  git jpblob verify --history > /dev/null || fail "the stopped am left a commit lacking a blob"
  git switch -q -c from-patch adopted~1 2> "$TEST_ROOT/switch.err" || fail "switch: $(cat "$TEST_ROOT/switch.err")"
  git am -3 -q "$TEST_ROOT/old.patch" > "$TEST_ROOT/am.out" 2>&1 || fail "am where the patch was made: $(tail -3 "$TEST_ROOT/am.out")"
  git rebase -q main > /dev/null 2>&1 || fail "the rebase stopped: $(git status --short)"
  # check_branch commits the inline new content through the hook, as the
  # docs/USING.md says to after a rebase; then main takes the branch.
  check_branch "edited on feature"
  git switch -q main 2> "$TEST_ROOT/switch.err" || fail "back to main: $(cat "$TEST_ROOT/switch.err")"
  git merge -q --ff-only from-patch
  git jpblob verify --history > /dev/null || fail "main lacks a blob after the fast-forward"
  git branch -q -D from-patch
}
case_ "git am -3 of a patch made before adoption: no commit lacks a blob; applied where it was made and rebased, it lands with its blobs" am_pre_adoption_patch

# commit --amend of a merge commit the driver made, adding a conversation:
# the amended commit keeps both parents and holds every blob it references.
amend_commit() {
  from_adopted
  git merge -q --no-edit feature > /dev/null 2>&1 || fail "the merge stopped: $(git status --short)"
  write_conversation 2-amended "added by the amend"
  git add .jp/conversations/2-amended
  git commit -q --amend --no-edit 2> "$TEST_ROOT/err" || fail "the amend failed: $(cat "$TEST_ROOT/err")"
  [ -n "$(git rev-parse -q --verify HEAD^2)" ] || fail "the amend lost the merge's second parent"
  git cat-file -e "HEAD:$(blob_of "added by the amend")" 2> /dev/null || fail "the amended commit lacks the new blob"
  check_branch "edited on feature"
}
case_ "git commit --amend of a merge commit: the amended commit holds every blob it references" amend_commit

# Both sides edited the same output after adoption: the driver stops with
# a conflict, the user writes a third text by hand, adds and commits.
hand_resolved() {
  from_adopted
  git checkout -q -b conflict-theirs
  edit_output .jp/conversations/1-shared/events.json "their edit after adoption"
  git commit -qam "their edit"
  git checkout -q main
  edit_output .jp/conversations/1-shared/events.json "our edit after adoption"
  git commit -qam "our edit"
  if git merge -q --no-edit conflict-theirs > /dev/null 2>&1; then fail "expected a conflict"; fi
  git checkout -q --ours -- .jp/conversations/1-shared/events.json
  edit_output .jp/conversations/1-shared/events.json "resolved by hand"
  git add .jp/conversations/1-shared/events.json
  git commit -q --no-edit 2> "$TEST_ROOT/err" || fail "the commit of the resolution failed: $(cat "$TEST_ROOT/err")"
  [ -n "$(git rev-parse -q --verify HEAD^2)" ] || fail "the resolution is no merge commit"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "the resolution lacks its blobs: $(grep problem "$TEST_ROOT/out" | head -2)"
  ! git show HEAD:.jp/conversations/1-shared/events.json | grep -q "$(expected_of "resolved by hand")" ||
    fail "the resolution was committed inline"
  check_branch "resolved by hand"
  git branch -q -D conflict-theirs
}
case_ "a conflict resolved by hand and committed: the merge commit holds every blob it references" hand_resolved
pass
