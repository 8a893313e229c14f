#!/usr/bin/env bash
# Issue 46: a branch made before adoption appended a turn to a conversation
# (its payloads inline, JP's own form), and main appended another after
# adoption (its payloads references). The merge driver brings the sides to
# one form and merges them as two adopted sides: git merge, rebase, pull
# and cherry-pick go through by themselves, and the work tree holds both
# turns in time order, byte for byte. The branch's new payload has no blob
# in any commit yet, so it stays inline until the next `git add`
# (merge_commits.sh says why); a rebase or a cherry-pick of several such
# commits goes through all of them (core/merge/sequence_record).
. "$(dirname "$0")/lib.sh"

conv=.jp/conversations/1-shared
ev=$conv/events.json
old_text="the old branch's turn, made before adoption: long enough to be stored as a blob of its own"
main_text="main's turn, made after adoption: long enough to be stored as a blob of its own too"
old_stamp="2026-05-01 10:00:01.000001"
main_stamp="2026-05-01 10:00:02.000002"
later_text="the old branch's second turn, also before adoption, long enough to be stored as a blob"
later_stamp="2026-05-01 10:00:03.000003"

# Before adoption: plain git, the conversation inline, pushed to the team's
# server; Carol clones it then.
git init -q --bare "$TEST_ROOT/hub.git"
git init -q "$TEST_ROOT/team" && cd "$TEST_ROOT/team"
write_conversation 1-shared "tool output before adoption"
git add .jp && git commit -qm "conversation, inline"
git remote add origin "$TEST_ROOT/hub.git"
git push -q origin main
git clone -q "$TEST_ROOT/hub.git" "$TEST_ROOT/carol"
cp "$ev" "$TEST_ROOT/expected.json"
append_turn "$TEST_ROOT/expected.json" "$old_stamp" "$old_text"
append_turn "$TEST_ROOT/expected.json" "$main_stamp" "$main_text"
# The branch made before adoption appends its turn.
git checkout -q -b old
append_turn "$ev" "$old_stamp" "$old_text"
git commit -qam "old: a turn before adoption"
git push -q origin old
# A branch of two such commits, a turn each, before and after main's.
git checkout -q -b two-turns main
append_turn "$ev" "$old_stamp" "$old_text"
git commit -qam "two-turns: the first"
append_turn "$ev" "$later_stamp" "$later_text"
git commit -qam "two-turns: the second"
cp "$TEST_ROOT/expected.json" "$TEST_ROOT/expected-two.json"
append_turn "$TEST_ROOT/expected-two.json" "$later_stamp" "$later_text"
# Carol's own turn, the same, on her main.
(cd "$TEST_ROOT/carol" && append_turn "$ev" "$old_stamp" "$old_text" && git commit -qam "carol: a turn before adoption")
# Adoption on main (docs/USING.md), then main's turn.
git checkout -q main
install_jpblob
git add .gitattributes
git add --renormalize .jp
git commit -qm "adopt git-jpblob"
append_turn "$ev" "$main_stamp" "$main_text"
git add .jp && git commit -qm "main: a turn after adoption"
git push -q origin main
git show HEAD:"$ev" | grep -q '"\$blob"' || fail "main's adopted conversation holds no reference"
git tag adopted
git clone -q "$TEST_ROOT/hub.git" "$TEST_ROOT/bob"

# The merged conversation is base + both turns in time order, in JP's form,
# every commit holds the blobs it references, and the next commit through
# the hook takes the branch's inline payload out.
check_merged() {
  local expected=${2:-$TEST_ROOT/expected.json}
  cmp -s "$ev" "$expected" || fail "$1: the conversation is not base + the turns in time order: $(
    diff "$expected" "$ev" | head -8)"
  # Content kept inline may be named as committed without the filter
  # while the branch holds it (a rebase's); a missing blob never may.
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || true
  if grep '^problem:' "$TEST_ROOT/out" | grep -qv ' was committed without the jpblob filter: '; then
    fail "$1: a commit lacks its blobs: $(grep -m2 '^problem:' "$TEST_ROOT/out")"
  fi
  assert_blobs_committed
  git add --renormalize .jp
  git commit -qm "after the $1" > /dev/null 2>&1 || true
  ! git show HEAD:"$ev" | grep -q "$(printf '%s' "$old_text" | base64 -w0)" ||
    fail "$1: the commit after kept the old turn's payload inline"
  assert_blobs_committed
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "$1: verify --history after the commit: $(grep -m2 . "$TEST_ROOT/out")"
  cmp -s "$ev" "$expected" || fail "$1: the commit after changed the conversation"
  assert_clean_status
}

# Each case starts from the adopted main, with nothing in progress.
from_adopted() {
  cd "$TEST_ROOT/team"
  git rebase --quit > /dev/null 2>&1 || true
  git cherry-pick --quit > /dev/null 2>&1 || true
  git merge --abort > /dev/null 2>&1 || true
  git checkout -q -f main
  git reset -q --hard adopted
}

merge_old() {
  from_adopted
  git merge -q --no-edit old > "$TEST_ROOT/err" 2>&1 || fail "git merge stopped: $(cat "$TEST_ROOT/err")"
  check_merged merge
}
case_ "git merge of a branch made before adoption: both appended turns, no conflict" merge_old

rebase_old() {
  from_adopted
  git checkout -q -b rebased old
  git rebase -q main > "$TEST_ROOT/err" 2>&1 || fail "git rebase stopped: $(cat "$TEST_ROOT/err")"
  check_merged rebase
  git checkout -q main
}
case_ "git rebase of a branch made before adoption onto the adopted main: no conflict" rebase_old

# Each pick leaves the old turns inline in the committed form; the next
# pick that changes the conversation finds the work tree as git left it.
rebase_two() {
  from_adopted
  git checkout -q -b rebased-two two-turns
  git rebase -q main > "$TEST_ROOT/err" 2>&1 || fail "git rebase stopped: $(cat "$TEST_ROOT/err")"
  check_merged "rebase of two commits" "$TEST_ROOT/expected-two.json"
  git checkout -q main
}
case_ "git rebase of two commits made before adoption, each a turn: no stop between them" rebase_two

cherry_pick_range() {
  from_adopted
  git cherry-pick main..two-turns > "$TEST_ROOT/err" 2>&1 || fail "git cherry-pick stopped: $(cat "$TEST_ROOT/err")"
  check_merged "cherry-pick of two commits" "$TEST_ROOT/expected-two.json"
}
case_ "git cherry-pick of two commits made before adoption: no stop between them" cherry_pick_range

cherry_pick_old() {
  from_adopted
  git cherry-pick old > "$TEST_ROOT/err" 2>&1 || fail "git cherry-pick stopped: $(cat "$TEST_ROOT/err")"
  check_merged cherry-pick
}
case_ "git cherry-pick of a commit made before adoption: no conflict" cherry_pick_old

# A side that references a blob no copy anywhere holds (a tool wrote it
# into the index): no side can be restored to JP's form, so the driver
# merges the sides as committed, by git's line merge, with a warning; no
# byte is lost. Called as git calls it (merge.jpblob.driver).
blob_nowhere() {
  from_adopted
  local missing main_digest status=0
  missing=$(printf 'a payload no copy anywhere holds' | sha256sum | cut -c1-64)
  main_digest=$(printf '%s' "$main_text" | sha256sum | cut -c1-64)
  git show HEAD:"$ev" | sed "s/$main_digest\",\"size\":[0-9]*/$missing\",\"size\":32/" > "$TEST_ROOT/ours.json"
  grep -q "$missing" "$TEST_ROOT/ours.json" || fail "the test did not plant the reference"
  git show "$(git merge-base HEAD old)":"$ev" > "$TEST_ROOT/base.json"
  git show old:"$ev" > "$TEST_ROOT/theirs.json"
  git jpblob merge "$TEST_ROOT/base.json" "$TEST_ROOT/ours.json" "$TEST_ROOT/theirs.json" 7 "$ev" 2> "$TEST_ROOT/err" ||
    status=$?
  [ "$status" -le 1 ] || fail "the driver failed ($status): $(cat "$TEST_ROOT/err")"
  grep -q "warning: .*$missing.*merged as committed" "$TEST_ROOT/err" || fail "no warning: $(cat "$TEST_ROOT/err")"
  grep -q "$missing" "$TEST_ROOT/ours.json" || fail "our side's reference is lost"
  grep -q "$(printf '%s' "$old_text" | base64 -w0)" "$TEST_ROOT/ours.json" || fail "the old branch's turn is lost"
}
case_ "a blob no copy holds: merged as committed by git's line merge, with a warning, nothing lost" blob_nowhere

# Bob cloned after adoption and pulls the old branch from the server.
pull_old() {
  cd "$TEST_ROOT/bob"
  git pull -q --no-rebase --no-edit origin old > "$TEST_ROOT/err" 2>&1 || fail "git pull stopped: $(cat "$TEST_ROOT/err")"
  check_merged pull
}
case_ "git pull of a branch made before adoption, from a bare server: no conflict" pull_old

# Carol cloned before adoption and appended her turn; with git-jpblob on
# her machine she pulls the adopted main, her turn replayed on top.
pull_rebase_from_before() {
  cd "$TEST_ROOT/carol"
  git pull -q --rebase > "$TEST_ROOT/err" 2>&1 || fail "git pull --rebase stopped: $(cat "$TEST_ROOT/err")"
  check_merged "pull --rebase"
}
case_ "git pull --rebase in a clone made before adoption, its own turn on top: no conflict" pull_rebase_from_before

pass
