#!/usr/bin/env bash
# The pre-commit hook in every way git runs it: commit, commit -a,
# commit <paths>, the first commit, amend, a merge commit, git -C, a
# repository with extensions.worktreeConfig, a conversation added with the
# filter uninstalled, and a repository with no .jp at all. Then the refusals:
# a deleted blob, a flipped byte, a modified tracked blob; and an orphan
# blob that must stay out of the commit.
. "$(dirname "$0")/lib.sh"
subcase "The pre-commit hook in every way git runs it: commit, commit -a, commit <paths>, the first…"
git init -q "$TEST_ROOT/repo"
cd "$TEST_ROOT/repo"
install_jpblob

subcase "The first commit (no HEAD), conversation and attributes together"
# The first commit (no HEAD), conversation and attributes together.
write_conversation 1-first "first output"
git add .gitattributes .jp/conversations
git commit -qm first
assert_no_changes
assert_blobs_committed
conv=.jp/conversations/1-first/events.json

subcase "git commit -a (the index is .git/index.lock)"
# git commit -a (the index is .git/index.lock).
grow_conversation "$conv" "commit -a output"
git commit -qam "commit -a"
assert_no_changes
assert_blobs_committed

subcase "git commit <paths> (a next-index-<pid>.lock, then the real index)"
# git commit <paths> (a next-index-<pid>.lock, then the real index).
grow_conversation "$conv" "commit paths output"
write_conversation 2-untouched "not part of this commit"
git add .jp/conversations/2-untouched/events.json
grow_conversation .jp/conversations/2-untouched/events.json "still not part of it"
git commit -qm "commit paths" -- "$conv"
assert_blobs_committed
s=$(git status --porcelain --untracked-files=no)
[ "$s" = "AM .jp/conversations/2-untouched/events.json" ] || fail "phantom changes after commit <paths>: $s"
git reset -q -- .jp/conversations/2-untouched
rm -rf .jp/conversations/2-untouched
assert_no_changes

subcase "amend, and git -C from another folder"
# amend, and git -C from another folder.
grow_conversation "$conv" "amend output"
git add "$conv"
git commit -q --amend -m "commit paths, amended"
assert_no_changes
assert_blobs_committed
mkdir -p "$TEST_ROOT/elsewhere"
grow_conversation "$conv" "git -C output"
(cd "$TEST_ROOT/elsewhere" && git -C "$TEST_ROOT/repo" commit -qam "from elsewhere")
assert_no_changes
assert_blobs_committed

subcase "A merge commit concluded by git commit after a conflict"
# A merge commit concluded by git commit after a conflict.
git checkout -q -b side
grow_conversation "$conv" "side output"
git commit -qam side
git checkout -q main 2>/dev/null || git checkout -q master
grow_conversation "$conv" "main output"
git commit -qam main
git merge -q side > /dev/null 2>&1 || true
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

subcase "extensions.worktreeConfig, which libgit2 1.5 refuses unless declared"
# extensions.worktreeConfig, which libgit2 1.5 refuses unless declared.
git config core.repositoryformatversion 1
git config extensions.worktreeConfig true
grow_conversation "$conv" "worktreeConfig output"
git commit -qam "with worktreeConfig"
assert_blobs_committed

subcase "A conversation added with the filter uninstalled: the hook cleans it"
# A conversation added with the filter uninstalled: the hook cleans it.
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

subcase "Refusals: a blob deleted after git add, and one flipped by a byte"
# Refusals: a blob deleted after git add, and one flipped by a byte.
write_conversation 4-deleted "blob deleted after add"
# Backdated, so the index entry is not racy: otherwise git re-cleans the
# file while committing, and clean rightly writes the blob again.
touch -d '2 hours ago' .jp/conversations/4-deleted/events.json
git add .jp/conversations/4-deleted
digest=$(printf 'blob deleted after add' | sha256sum | cut -c1-64)
rm ".jp/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz"
if git commit -qm deleted 2> "$TEST_ROOT/err"; then fail "committed a conversation whose blob is missing"; fi
grep -q "blob $digest referenced by .jp/conversations/4-deleted/events.json is missing" "$TEST_ROOT/err" ||
  fail "message: $(cat "$TEST_ROOT/err")"
grep -q "commit refused" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
git reset -q -- .jp/conversations/4-deleted && rm -rf .jp/conversations/4-deleted

write_conversation 5-flipped "blob flipped after add"
git add .jp/conversations/5-flipped
digest=$(printf 'blob flipped after add' | sha256sum | cut -c1-64)
blob=".jp/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz"
python3 - "$blob" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[12] ^= 0x01
open(p, "wb").write(bytes(b))
PY
if git commit -qm flipped 2> "$TEST_ROOT/err"; then fail "committed a corrupt blob"; fi
grep -q "corrupt" "$TEST_ROOT/err" && grep -q "5-flipped" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
git cat-file -e "HEAD:$blob" 2>/dev/null && fail "the corrupt blob reached a commit"
git reset -q -- .jp/conversations/5-flipped && rm -rf .jp/conversations/5-flipped "$blob"

subcase "A tracked blob modified in the work tree is refused"
# A tracked blob modified in the work tree is refused.
tracked=$(git ls-files .jp/blobs | head -1)
cp "$tracked" "$TEST_ROOT/tracked"
printf 'x' >> "$tracked"
grow_conversation "$conv" "output beside a modified blob"
if git commit -qam modified 2> "$TEST_ROOT/err"; then
  git show --stat HEAD
  fail "committed over a modified tracked blob"
fi
grep -q "a blob never changes" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
cp "$TEST_ROOT/tracked" "$tracked"
git commit -qam "modified blob restored"

subcase "An orphan blob beside a real one stays out of the commit"
# An orphan blob beside a real one stays out of the commit.
write_conversation 6-abandoned "abandoned edit"
git add .jp/conversations/6-abandoned
git reset -q -- .jp/conversations/6-abandoned && rm -rf .jp/conversations/6-abandoned
orphan=$(printf 'abandoned edit' | sha256sum | cut -c1-64)
[ -f ".jp/blobs/${orphan:0:2}/${orphan:2:2}/$orphan.blob.gz" ] || fail "setup: no orphan"
write_conversation 7-real "real output"
git add .jp/conversations/7-real
git commit -qm real
assert_blobs_committed
git cat-file -e "HEAD:.jp/blobs/${orphan:0:2}/${orphan:2:2}/$orphan.blob.gz" 2>/dev/null &&
  fail "the orphan blob was committed"

subcase "No .jp at all: the hook does nothing"
# No .jp at all: the hook does nothing.
git init -q "$TEST_ROOT/plain"
cd "$TEST_ROOT/plain"
install_jpblob
echo hello > README
git add README .gitattributes
git commit -qm plain
[ "$(git ls-files | wc -l)" -eq 2 ] || fail "the hook added files to a repository without .jp"
pass
