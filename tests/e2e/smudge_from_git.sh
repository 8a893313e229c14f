#!/usr/bin/env bash
# Smudge takes a blob from git's objects wherever one is: the commit being
# checked out, the index, HEAD, any commit, a partial clone's promisor
# remote, git-lfs. Nothing depends on the blob file being written before
# the conversation, and a display (log -p, show, diff) never aborts.
. "$(dirname "$0")/lib.sh"
new_installed_repo
write_conversation 1-old "old tool output"
git add .jp/conversations/1-old
git commit -qm old
cp .jp/conversations/1-old/events.json "$TEST_ROOT/old.json"
old_commit=$(git rev-parse HEAD)
git rm -q -r .jp/conversations/1-old
git commit -qm "drop the conversation"
git jpblob gc --prune=now > /dev/null
git commit -qm "gc"
[ -z "$(find .jp/blobs -name '*.blob.gz' 2>/dev/null)" ] || fail "the set-up kept blob files"

old_history_displays() {
  git log -p > "$TEST_ROOT/log" 2> "$TEST_ROOT/log.err" || fail "git log -p failed: $(tail -2 "$TEST_ROOT/log.err")"
  grep -q "old tool output" "$TEST_ROOT/log" || fail "log -p does not show the old tool output"
  git show "$old_commit" > /dev/null 2>&1 || fail "git show of the old commit failed"
  git diff "$old_commit" HEAD > /dev/null 2>&1 || fail "git diff across history failed"
  git log --textconv -S "old tool output" --oneline > "$TEST_ROOT/pickaxe" || fail "log --textconv -S failed"
  grep -q . "$TEST_ROOT/pickaxe" || fail "log --textconv -S does not find it"
}
case_ "git log -p, show and diff across history exit 0 and show the old tool output" old_history_displays

restore_from_old_commit() {
  git restore --source="$old_commit" .jp/conversations || fail "restore --source failed"
  cmp -s .jp/conversations/1-old/events.json "$TEST_ROOT/old.json" || fail "restore --source is not byte for byte"
  rm -rf .jp/conversations/1-old
}
case_ "git restore --source=<old> restores the conversation byte for byte" restore_from_old_commit

# Leaves the branch many-branch at the commit of eight conversations, and
# their bytes in $TEST_ROOT/many, for the partial clone below.
parallel_checkout() {
  local i many
  for i in 1 2 3 4 5 6 7 8; do write_conversation "2-many-$i" "parallel output $i"; done
  git add .jp/conversations
  git commit -qm many
  many=$(git rev-parse HEAD)
  git branch -q -f many-branch "$many"
  mkdir -p "$TEST_ROOT/many" && cp -r .jp/conversations "$TEST_ROOT/many/"
  git rm -q -r .jp/conversations && git commit -qm "drop many"
  git jpblob gc --prune=now > /dev/null && git commit -qm gc2
  git -c checkout.workers=4 -c checkout.thresholdForParallelism=1 checkout -q "$many" || fail "parallel checkout failed"
  diff -r "$TEST_ROOT/many/conversations" .jp/conversations > /dev/null || fail "parallel checkout is not byte for byte"
  git checkout -q main
}
case_ "checkout.workers=4 of an old commit restores every conversation byte for byte" parallel_checkout

stash_untracked_pop() {
  write_conversation 3-stash-u "stashed with -u"
  cp .jp/conversations/3-stash-u/events.json "$TEST_ROOT/stash-u.json"
  git add .jp/conversations/3-stash-u && git reset -q
  git stash -q -u
  git stash pop -q || fail "stash pop failed"
  cmp -s .jp/conversations/3-stash-u/events.json "$TEST_ROOT/stash-u.json" || fail "not byte for byte"
  rm -rf .jp/conversations/3-stash-u .jp/blobs/*/*/"$(printf 'stashed with -u' | sha256sum | cut -c1-64)".blob.gz
}
case_ "stash -u then pop restores a conversation whose blob file git writes after it" stash_untracked_pop

partial_clone() {
  git init -q --bare "$TEST_ROOT/server.git"
  git -C "$TEST_ROOT/server.git" config uploadpack.allowFilter true
  git -C "$TEST_ROOT/server.git" config uploadpack.allowAnySHA1InWant true
  git push -q "$TEST_ROOT/server.git" main many-branch
  git clone -q -c jpblob.lean=true --filter=blob:none --branch many-branch "file://$TEST_ROOT/server.git" "$TEST_ROOT/partial" ||
    fail "the partial clone failed"
  diff -r "$TEST_ROOT/many/conversations" "$TEST_ROOT/partial/.jp/conversations" > /dev/null ||
    fail "the partial clone is not byte for byte"
  [ "$(git -C "$TEST_ROOT/partial" config core.sparseCheckout)" = true ] || fail "set-up: the clone is not lean"
  # The clone's pack, git's prefetch of the conversations, and one fetch of
  # the blobs the lean work tree leaves out: not one fetch a blob.
  local packs
  packs=$(find "$TEST_ROOT/partial/.git/objects/pack" -name '*.pack' | wc -l)
  [ "$packs" -le 3 ] || fail "the lean partial clone fetched its blobs one at a time ($packs packs)"
  (cd "$TEST_ROOT/partial" && assert_clean_status)
  git clone -q --filter=blob:none --no-checkout --branch many-branch "file://$TEST_ROOT/server.git" "$TEST_ROOT/sparse"
  git -C "$TEST_ROOT/sparse" sparse-checkout set --no-cone '/*' '!/.jp/blobs/'
  git -C "$TEST_ROOT/sparse" checkout -q many-branch || fail "the sparse partial checkout failed"
  [ ! -d "$TEST_ROOT/sparse/.jp/blobs" ] || fail "the sparse checkout wrote the blobs"
  diff -r "$TEST_ROOT/many/conversations" "$TEST_ROOT/sparse/.jp/conversations" > /dev/null ||
    fail "the sparse partial clone is not byte for byte"
}
case_ "a partial clone (--filter=blob:none) fetches what it lacks, with and without the blobs in its sparse checkout" partial_clone

# The remote a lean partial clone fetches its blobs from is gone: the
# checkout fails naming the remote, not as if no commit held the blob.
partial_clone_remote_gone() {
  git checkout -q -b gone-side main
  write_conversation 5-gone "output the partial clone never fetched"
  git add .jp/conversations/5-gone && git commit -qm gone
  git push -q "$TEST_ROOT/server.git" gone-side
  git checkout -q main
  cd "$TEST_ROOT/partial"
  git fetch -q origin gone-side
  # git's own part of the checkout (the conversation files) is here
  git cat-file -p FETCH_HEAD:.jp/conversations/5-gone/events.json > /dev/null
  git cat-file -p FETCH_HEAD:.jp/conversations/5-gone/metadata.json > /dev/null
  mv "$TEST_ROOT/server.git" "$TEST_ROOT/server-gone.git"
  if git checkout -q FETCH_HEAD 2> "$TEST_ROOT/gone.err"; then
    mv "$TEST_ROOT/server-gone.git" "$TEST_ROOT/server.git"
    fail "the checkout succeeded without its blob"
  fi
  mv "$TEST_ROOT/server-gone.git" "$TEST_ROOT/server.git"
  grep -q "remote 'origin'" "$TEST_ROOT/gone.err" || fail "the message does not name the remote: $(cat "$TEST_ROOT/gone.err")"
  ! grep -q "is missing" "$TEST_ROOT/gone.err" || fail "a blob the commit holds is called missing: $(cat "$TEST_ROOT/gone.err")"
  git checkout -q FETCH_HEAD 2> "$TEST_ROOT/gone2.err" || fail "the checkout failed with the remote back: $(cat "$TEST_ROOT/gone2.err")"
  grep -q "$(printf 'output the partial clone never fetched' | base64 -w0)" .jp/conversations/5-gone/events.json ||
    fail "the conversation is not restored"
}
case_ "a lean partial clone whose remote is gone fails its checkout naming the remote" partial_clone_remote_gone

blobs_in_git_lfs() {
  command -v git-lfs > /dev/null || fail "git-lfs is not installed (install/deps.sh installs it)"
  git lfs install --skip-repo > /dev/null
  git init -q "$TEST_ROOT/lfs" && cd "$TEST_ROOT/lfs"
  git lfs install --local > /dev/null  # git-lfs's own hooks first, as a team has them
  install_jpblob --force               # chains git-lfs's pre-push hook
  git lfs track '.jp/blobs/**' > /dev/null
  git add .gitattributes && git commit -qm "blobs in lfs"
  write_conversation 4-lfs "kept in git-lfs"
  git add .jp/conversations/4-lfs
  git commit -qm lfs
  cp .jp/conversations/4-lfs/events.json "$TEST_ROOT/lfs.json"
  git lfs ls-files > "$TEST_ROOT/lfs-files"
  grep -q blob.gz "$TEST_ROOT/lfs-files" || fail "git-lfs does not hold the blob"
  git init -q --bare "$TEST_ROOT/lfs-remote.git"
  GIT_TRACE="$TEST_ROOT/lfs-push.trace" git push -q "file://$TEST_ROOT/lfs-remote.git" main 2> "$TEST_ROOT/lfs-push.err" ||
    fail "push to the lfs remote failed: $(tail -3 "$TEST_ROOT/lfs-push.err")"
  # git-lfs's chained hook sent the objects: git-jpblob's does not run its
  # pre-push a second time.
  [ "$(grep -c "exec: git-lfs pre-push" "$TEST_ROOT/lfs-push.trace")" = 1 ] ||
    fail "git-lfs's pre-push ran $(grep -c "exec: git-lfs pre-push" "$TEST_ROOT/lfs-push.trace") times"
  git clone -q "file://$TEST_ROOT/lfs-remote.git" "$TEST_ROOT/lfs-clone" 2> "$TEST_ROOT/lfs.err" ||
    fail "the lfs clone failed: $(tail -3 "$TEST_ROOT/lfs.err")"
  cmp -s "$TEST_ROOT/lfs-clone/.jp/conversations/4-lfs/events.json" "$TEST_ROOT/lfs.json" ||
    fail "the lfs clone is not byte for byte"
  # A branch the clone never checked out: its blobs are in neither the work
  # tree nor git-lfs's local store, so smudge asks git-lfs, which fetches.
  git checkout -q -b lfs-other
  write_conversation 5-lfs "only on the other branch, in git-lfs"
  git add .jp/conversations/5-lfs && git commit -qm other 2> "$TEST_ROOT/other.err" || fail "$(cat "$TEST_ROOT/other.err")"
  cp .jp/conversations/5-lfs/events.json "$TEST_ROOT/lfs-other.json"
  git push -q "file://$TEST_ROOT/lfs-remote.git" lfs-other 2> /dev/null
  cd "$TEST_ROOT/lfs-clone"
  if lean_mode; then
    [ -z "$(find .jp/blobs -type f 2> /dev/null)" ] || fail "the lean lfs clone kept blob files: $(find .jp/blobs -type f)"
  fi
  git fetch -q origin lfs-other 2> /dev/null
  git checkout -q lfs-other 2> "$TEST_ROOT/lfs.err" || fail "checkout of the other branch failed: $(tail -3 "$TEST_ROOT/lfs.err")"
  cmp -s .jp/conversations/5-lfs/events.json "$TEST_ROOT/lfs-other.json" ||
    fail "the other branch's conversation is not byte for byte"
  assert_clean_status
  # verify reads a blob the index holds as a git-lfs pointer through
  # git-lfs, as smudge does, rather than take the pointer for gzip.
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify fails where git-lfs holds the blobs: $(head -3 "$TEST_ROOT/verify.out")"
}
case_ "a clone of a repository whose .jp/blobs is in git-lfs, through a local bare remote" blobs_in_git_lfs
pass
