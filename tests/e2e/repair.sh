#!/usr/bin/env bash
# Advice that works: the command the errors name, `git jpblob repair`,
# writes a corrupt or missing blob again from any good copy, in git's
# objects or in a conversation that still holds the content inline.
. "$(dirname "$0")/lib.sh"
new_installed_repo
flip() { chmod u+w "$1"; printf 'x' | dd of="$1" bs=1 seek=12 conv=notrunc 2> /dev/null; }

from_git_objects() {
  commit_conversation 1-committed "committed tool output"
  local blob
  blob=$(blob_of "committed tool output")
  cp "$blob" "$TEST_ROOT/good"
  flip "$blob"
  if git jpblob verify > /dev/null 2>&1; then fail "verify missed the flipped byte"; fi
  git jpblob repair > "$TEST_ROOT/out" || fail "repair failed: $(cat "$TEST_ROOT/out")"
  grep -q "repaired $blob" "$TEST_ROOT/out" || fail "repair did not name it: $(cat "$TEST_ROOT/out")"
  cmp -s "$blob" "$TEST_ROOT/good" || fail "the repaired blob differs from the committed one"
  git jpblob verify > /dev/null || fail "verify still fails"
  assert_no_changes
}
case_in_mode full "a lean tree has no committed blob file to flip (e2e hostile_repos corrupts the index's copy instead)" "a committed blob flipped in the work tree comes back from git's objects" from_git_objects

from_inline_conversation() {
  keep_new_blobs_as_files  # a file to flip: a pending pack's object is git's to check
  write_conversation 2-new "new tool output"
  git add .jp/conversations/2-new
  flip "$(new_blob_of "new tool output")"
  if git commit -qm new 2> "$TEST_ROOT/err"; then fail "the hook committed a corrupt blob"; fi
  grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the hook does not name the repair: $(cat "$TEST_ROOT/err")"
  git jpblob repair > /dev/null || fail "repair failed"
  git commit -qm new || fail "the commit after repair failed"
  assert_blobs_committed
  git config --unset core.sharedRepository
}
case_ "an uncommitted blob corrupt in the store comes back from the conversation that holds it inline, as the hook advises" from_inline_conversation

missing_written_again() {
  write_conversation 3-missing "missing tool output"
  git add .jp/conversations/3-missing
  remove_blob_files "$(printf '%s' "missing tool output" | sha256sum | cut -c1-64)"
  new_blob_held "$(printf '%s' "missing tool output" | sha256sum | cut -c1-64)" && fail "set-up: the blob is still held"
  git jpblob repair > "$TEST_ROOT/out" || fail "repair failed: $(cat "$TEST_ROOT/out")"
  blob_held "$(blob_of "missing tool output")" || fail "repair did not write the missing blob"
  git ls-files --error-unmatch "$(blob_of "missing tool output")" > /dev/null || fail "repair did not stage it"
  git commit -qm missing || fail "the commit after repair failed"
}
case_ "a missing blob a staged conversation references is written again" missing_written_again

# A commit made without the hook lacks its blob; in a lean tree `git add`
# of the blob path is refused (outside the sparse patterns). repair stages
# it, and `commit --amend` mends the commit.
amend_after_no_verify() {
  write_conversation 4-no-verify "tool output of a commit made without the hook"
  git add .jp/conversations/4-no-verify
  git commit -q --no-verify -m "no hook"
  local blob
  blob=$(blob_of "tool output of a commit made without the hook")
  if git jpblob verify --history > "$TEST_ROOT/out" 2>&1; then fail "verify missed the commit's missing blob"; fi
  git cat-file -e "HEAD:$blob" 2> /dev/null && fail "the set-up's commit holds its blob"
  git jpblob repair > "$TEST_ROOT/out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/out")"
  git commit -q --amend --no-edit || fail "the amend failed"
  git cat-file -e "HEAD:$blob" || fail "the amended commit still lacks its blob"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "verify --history after the mend: $(cat "$TEST_ROOT/out")"
  assert_clean_status
}
case_ "a commit made with --no-verify is mended by repair and commit --amend, in both modes" amend_after_no_verify

no_good_copy() {
  keep_new_blobs_as_files  # a file to flip, as above
  write_conversation 4-lost "lost tool output"
  git add .jp/conversations/4-lost
  git commit -q --no-verify -m lost
  local blob rc
  blob=$(new_blob_of "lost tool output")
  rm .jp/conversations/4-lost/events.json
  JPBLOB_SKIP_SMUDGE=1 git checkout -- .jp/conversations/4-lost  # the work tree holds references only
  flip "$blob"
  set +e; git jpblob repair > "$TEST_ROOT/out" 2>&1; rc=$?; set -e
  [ "$rc" -eq 1 ] || fail "repair exited $rc"
  grep -q "cannot repair $(blob_of "lost tool output"): no good copy" "$TEST_ROOT/out" || fail "repair did not say why: $(cat "$TEST_ROOT/out")"
  [ -f "$blob" ] || fail "repair deleted what it could not repair"
  git config --unset core.sharedRepository
}
case_ "a blob with no good copy anywhere is reported and left, with exit 1" no_good_copy
# A bare server whose pre-receive hook is the README's line.
server() {
  git init -q --bare "$TEST_ROOT/$1.git"
  printf '#!/bin/sh\nexec git jpblob pre-receive\n' > "$TEST_ROOT/$1.git/hooks/pre-receive"
  chmod +x "$TEST_ROOT/$1.git/hooks/pre-receive"
}
# Stages `bytes` at a blob's tracked path without the hook, as a commit
# made before git-jpblob was installed would hold it.
stage_bytes_at() {
  local id
  id=$(printf '%s' "$2" | git hash-object -w --stdin)
  git update-index --add --cacheinfo "100644,$id,$1"
}

# The server refuses a commit whose blob does not hold what its name says;
# its message names the mend, and following it word for word gets the
# push through: `git jpblob repair`, then `git commit --amend`, then push.
server_refusal_mended() {
  new_installed_repo mend-repo
  server mend
  git push -q "$TEST_ROOT/mend.git" HEAD:refs/heads/main 2> /dev/null || fail "the first push was refused"
  write_conversation 5-server "tool output the server will see corrupt"
  git add .jp/conversations/5-server
  git commit -q --no-verify -m "without its blob"
  local blob
  blob=$(blob_of "tool output the server will see corrupt")
  stage_bytes_at "$blob" "$(printf 'not the blob' | gzip -n)"
  git commit -q --no-verify --amend --no-edit
  [ ! -e "$blob" ] || rm -f "$blob"
  if git push -q "$TEST_ROOT/mend.git" HEAD:refs/heads/main 2> "$TEST_ROOT/err"; then
    fail "the server took a commit whose blob is corrupt"
  fi
  grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the refusal names no repair: $(cat "$TEST_ROOT/err")"
  grep -q "git commit --amend" "$TEST_ROOT/err" || fail "the refusal names no amend: $(cat "$TEST_ROOT/err")"
  git jpblob repair > "$TEST_ROOT/out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/out")"
  grep -q "$blob" "$TEST_ROOT/out" || fail "repair did not name the blob: $(cat "$TEST_ROOT/out")"
  git commit -q --amend --no-edit 2> "$TEST_ROOT/err" || fail "the amend was refused: $(cat "$TEST_ROOT/err")"
  git push -q "$TEST_ROOT/mend.git" HEAD:refs/heads/main 2> "$TEST_ROOT/err" ||
    fail "the mended push was refused: $(cat "$TEST_ROOT/err")"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "verify --history: $(cat "$TEST_ROOT/out")"
}
case_ "the server's refusal of a corrupt blob is mended word for word: repair, amend, push" server_refusal_mended

# A blob committed corrupt before any hook (its bytes are not what its name
# says), then a teammate's conversation produces that very output: add
# names repair, and after repair the commit goes through, holding the
# sound blob.
corrupt_tracked_then_written() {
  new_installed_repo teammate-repo
  local output="output someone committed corrupt" blob
  blob=$(blob_of "$output")
  stage_bytes_at "$blob" "$(printf 'wrong bytes' | gzip -n)"
  git commit -q --no-verify -m "a corrupt blob, pushed before any hook"
  lean_mode || git checkout -q -- "$blob"
  write_conversation 6-teammate "$output"
  if git add .jp/conversations/6-teammate 2> "$TEST_ROOT/err"; then
    : # a tree that leaves the blob to git may store it in the git folder
  else
    grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the refusal names no repair: $(cat "$TEST_ROOT/err")"
    git jpblob repair > "$TEST_ROOT/out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/out")"
    # As a teammate adds after a mend: everything, the mended blob file too.
    git add -A 2> "$TEST_ROOT/err" || fail "add after repair: $(cat "$TEST_ROOT/err")"
  fi
  git commit -qm teammate 2> "$TEST_ROOT/err" || {
    grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the commit was refused with no mend: $(cat "$TEST_ROOT/err")"
    git jpblob repair > "$TEST_ROOT/out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/out")"
    git commit -qm teammate 2> "$TEST_ROOT/err" || fail "the commit after repair was refused: $(cat "$TEST_ROOT/err")"
  }
  [ "$(git cat-file blob "HEAD:$blob" | gzip -dc)" = "$output" ] || fail "the commit does not hold the sound blob"
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify: $(cat "$TEST_ROOT/out")"
}
case_ "a blob committed corrupt is mended when a teammate writes its output: repair, then commit" corrupt_tracked_then_written

# A linked worktree that checks its store out holds its own blob files: one
# corrupted in place there (and with it the kept copy it is a link to) is
# mended by a repair run in the main worktree, and its commit goes through.
linked_worktree_mended() {
  new_installed_repo linked-main
  git worktree add -q "$TEST_ROOT/linked" -b linked
  cd "$TEST_ROOT/linked"
  write_conversation 7-linked "tool output written in the linked worktree"
  git add .jp/conversations/7-linked
  local blob
  blob=$(blob_of "tool output written in the linked worktree")
  flip "$blob"
  cd "$TEST_ROOT/linked-main"
  git jpblob repair > "$TEST_ROOT/out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/out")"
  cd "$TEST_ROOT/linked"
  git commit -qm linked 2> "$TEST_ROOT/err" || fail "the linked worktree's commit was refused: $(cat "$TEST_ROOT/err")"
  [ "$(git cat-file blob "HEAD:$blob" | gzip -dc)" = "tool output written in the linked worktree" ] ||
    fail "the commit does not hold the sound blob"
}
case_in_mode full "a lean worktree holds no blob file to corrupt" "repair in the main worktree mends a linked worktree's corrupt blob file" linked_worktree_mended

pass
