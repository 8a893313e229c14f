#!/usr/bin/env bash
# The second line: a commit made with --no-verify (or through a hook
# manager that dropped the pre-commit hook) that lacks a blob, or holds a
# corrupt one, is refused by git push, naming commit, conversation and
# digest; verify --history finds the same, in a bare repository too.
. "$(dirname "$0")/lib.sh"
git init -q --bare "$TEST_ROOT/remote.git"
new_installed_repo
git remote add origin "$TEST_ROOT/remote.git"
digest=$(printf 'never committed blob' | sha256sum | cut -c1-64)

first_push() {
  git push -q origin main || fail "the first push was refused"
}
case_ "the first push goes through" first_push

hook_installed() {
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "no pre-push hook"
  [ -x .git/hooks/pre-push ] || fail "the pre-push hook is not executable"
}
case_ "install puts a pre-push hook beside the pre-commit hook" hook_installed

missing_blob_refused() {
  write_conversation 1-unverified "never committed blob"
  git add .jp/conversations/1-unverified
  git commit -q --no-verify -m "no blob"
  local commit rc
  commit=$(git rev-parse --short=12 HEAD)
  if git push -q origin main 2> "$TEST_ROOT/err"; then fail "the push went through"; fi
  grep -q "commit $commit: .jp/conversations/1-unverified/events.json references blob $digest, which that commit does not contain" \
    "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  grep -q "push refused" "$TEST_ROOT/err" || fail "no refusal line: $(cat "$TEST_ROOT/err")"
  [ "$(git rev-parse origin/main)" != "$(git rev-parse HEAD)" ] || fail "the remote got the commit"
  set +e; git jpblob verify --history > "$TEST_ROOT/out"; rc=$?; set -e
  [ "$rc" -eq 1 ] || fail "verify --history exited $rc"
}
case_ "a --no-verify commit lacking its blob is refused by git push, naming commit, conversation and digest" missing_blob_refused

push_after_blob_committed() {
  # The blob clean wrote: a file to add with the store checked out; in a
  # tree that becomes lean at its first commit of blobs, in the git folder,
  # staged as `git jpblob repair` mends a commit made without the hook.
  if lean_mode; then git jpblob repair > /dev/null; else git add "$(blob_of "never committed blob")"; fi
  git commit -q -m "the blob"
  git push -q origin main 2> "$TEST_ROOT/err" && true
  # The commit without its blob is still in the history: it stays refused.
  grep -q "which that commit does not contain" "$TEST_ROOT/err" || fail "the broken commit was not named again"
  git reset -q --hard HEAD~2
  write_conversation 1-unverified "never committed blob"
  git add .jp/conversations/1-unverified
  git commit -q -m "with its blob"
  git push -q origin main || fail "a good commit was refused: $(git push origin main 2>&1 | tail -2)"
}
case_ "once the blob is committed the push goes through" push_after_blob_committed

corrupt_blob_refused() {
  write_conversation 2-corrupt "soon corrupt"
  git add .jp/conversations/2-corrupt
  local blob id rc
  blob=$(blob_of "soon corrupt")
  printf 'not gzip at all' > "$TEST_ROOT/bad"
  id=$(git hash-object -w "$TEST_ROOT/bad")
  git update-index --add --cacheinfo "100644,$id,$blob"
  git commit -q --no-verify -m "corrupt blob"
  if git push -q origin main 2> "$TEST_ROOT/err"; then fail "a corrupt blob was pushed"; fi
  grep -q "references blob .*, which that commit holds corrupt" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  set +e; git jpblob verify --history > "$TEST_ROOT/out"; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "holds corrupt" "$TEST_ROOT/out" || fail "verify --history: $rc $(cat "$TEST_ROOT/out")"
  git push -q --no-verify origin main  # as a careless teammate would
  git clone -q --bare "$TEST_ROOT/remote.git" "$TEST_ROOT/bare.git"
  cd "$TEST_ROOT/bare.git"
  set +e; git jpblob verify --history > "$TEST_ROOT/out" 2>&1; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "2-corrupt/events.json references blob .*holds corrupt" "$TEST_ROOT/out" ||
    fail "verify --history in a bare repository: $rc $(cat "$TEST_ROOT/out")"
}
case_ "a commit holding a corrupt blob is refused, and verify --history names it, in a bare clone too" corrupt_blob_refused

user_hook_chained() {
  cd "$TEST_ROOT/repo"
  git reset -q --hard HEAD~1
  git jpblob uninstall --local > /dev/null
  printf '#!/bin/sh\nread line\necho "user hook saw: $line" >> "%s/user-hook.log"\n' "$TEST_ROOT" > .git/hooks/pre-push
  chmod +x .git/hooks/pre-push
  git jpblob install --local > "$TEST_ROOT/out"
  grep -q "Left the pre-push hook" "$TEST_ROOT/out" || fail "install did not say it left the user's hook: $(cat "$TEST_ROOT/out")"
  git jpblob install --local --force > /dev/null
  [ -x .git/hooks/pre-push.jpblob-chained ] || fail "the user's hook was not chained"
  write_conversation 3-chained "pushed through both hooks"
  git add .jp/conversations/3-chained
  git commit -qm chained
  git push -q -f origin main || fail "push through both hooks failed"
  grep -q "user hook saw: refs/heads/main" "$TEST_ROOT/user-hook.log" || fail "the user's hook did not get git's input"
}
case_ "a user's pre-push hook is kept and chained with --force, and still runs" user_hook_chained
# A push by URL (git push ../srv.git branch) checks only what the server
# lacks, as a push by remote name does: asked, the URL says what it holds.
by_url() {
  git init -q --bare "$TEST_ROOT/srv.git"
  new_installed_repo by-url
  git remote add origin "$TEST_ROOT/srv.git"
  write_conversation 1-held "held by the server without its blob"
  git add .jp/conversations/1-held
  git commit -q --no-verify -m "a broken commit the server took"
  git push -q --no-verify origin main
  git checkout -q -b by-url
  commit_conversation 2-url "pushed by URL"
  git push -q ../srv.git by-url 2> "$TEST_ROOT/err" || fail "the push by URL was refused: $(cat "$TEST_ROOT/err")"
  git checkout -q -b by-name main
  commit_conversation 3-name "pushed by name"
  git push -q origin by-name 2> "$TEST_ROOT/err" || fail "the push by name was refused: $(cat "$TEST_ROOT/err")"
  git checkout -q -b broken main
  write_conversation 4-broken "a new commit without its blob"
  git add .jp/conversations/4-broken
  git commit -q --no-verify -m "no blob"
  if git push -q ../srv.git broken 2> "$TEST_ROOT/err"; then fail "a new broken commit went through by URL"; fi
  grep -q "4-broken/events.json references blob" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  if grep -q "1-held" "$TEST_ROOT/err"; then fail "the commit the server holds was named: $(cat "$TEST_ROOT/err")"; fi
  if git push -q origin broken 2> "$TEST_ROOT/err"; then fail "a new broken commit went through by name"; fi
  grep -q "4-broken/events.json references blob" "$TEST_ROOT/err" || fail "message by name: $(cat "$TEST_ROOT/err")"
}
case_ "a push by URL excludes what the server holds, as a push by name does, and still refuses a new broken commit" by_url
# git-lfs writes its hooks only where none is: a repository that takes up
# git-lfs after git-jpblob (`git lfs install` then only prints "Hook
# already exists") still sends its LFS objects, because git-jpblob's hook
# runs git-lfs's pre-push in its place; without git-lfs on PATH the push is
# refused, as git-lfs's own hook refuses it.
lfs_taken_up_later() {
  command -v git-lfs > /dev/null || fail "git-lfs is not installed (install/deps.sh installs it)"
  git lfs install --skip-repo > /dev/null
  git init -q --bare "$TEST_ROOT/lfs-remote.git"
  new_installed_repo lfs-later
  git remote add origin "$TEST_ROOT/lfs-remote.git"
  commit_conversation 1-before-lfs "a conversation before git-lfs"
  git lfs install > "$TEST_ROOT/out" 2>&1 || true
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "git-lfs replaced git-jpblob's hook"
  git lfs track '*.bin' > /dev/null
  head -c 200000 /dev/urandom > data.bin
  git add .gitattributes data.bin
  commit_conversation 2-with-lfs "a conversation beside an LFS file"
  local oid
  oid=$(git lfs ls-files -l | awk '{print $1}')
  [ -n "$oid" ] || fail "data.bin is not in git-lfs"
  # git-lfs missing: refused, and nothing pushed.
  mkdir -p "$TEST_ROOT/no-lfs-bin"
  local tool
  for tool in git git-jpblob sh cat dirname printf; do
    ln -sf "$(command -v "$tool")" "$TEST_ROOT/no-lfs-bin/$tool"
  done
  if PATH="$TEST_ROOT/no-lfs-bin" git push -q origin main 2> "$TEST_ROOT/err"; then
    fail "the push went through without git-lfs"
  fi
  grep -q "git-lfs is not on PATH" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  git -C "$TEST_ROOT/lfs-remote.git" rev-parse -q --verify refs/heads/main > /dev/null &&
    fail "the remote got the commit"
  git push -q origin main 2> "$TEST_ROOT/err" || fail "the push was refused: $(cat "$TEST_ROOT/err")"
  find "$TEST_ROOT/lfs-remote.git/lfs/objects" -name "$oid" | grep -q . ||
    fail "the LFS object never reached the remote"
  # A teammate's clone gets the file's bytes, and the conversations'.
  git clone -q "$TEST_ROOT/lfs-remote.git" "$TEST_ROOT/lfs-clone"
  cmp -s data.bin "$TEST_ROOT/lfs-clone/data.bin" || fail "the clone's data.bin differs"
  cmp -s .jp/conversations/2-with-lfs/events.json "$TEST_ROOT/lfs-clone/.jp/conversations/2-with-lfs/events.json" ||
    fail "the clone's conversation differs"
  # git-lfs uninstalled (its filter gone, its key left in the config): a
  # push without git-lfs on PATH goes through, as it would with no hook.
  git lfs uninstall > /dev/null 2>&1
  git config --local lfs.repositoryformatversion > /dev/null || fail "git-lfs took its key away: the case tests nothing"
  commit_conversation 3-after-lfs "a conversation after git-lfs left"
  PATH="$TEST_ROOT/no-lfs-bin" git push -q origin main 2> "$TEST_ROOT/err" ||
    fail "a push after git lfs uninstall was refused: $(cat "$TEST_ROOT/err")"
}
case_ "a repository that takes up git-lfs after git-jpblob still pushes its LFS objects, and refuses without git-lfs" lfs_taken_up_later

# Issue 44: a refusal prints the first problems and counts the rest, never
# a line a blob. One push of 200,000 references to missing blobs gave the
# pusher 40 MB of `remote:` output (37 MB from its own pre-push). 5,000
# here: the pre-commit hook, the client's pre-push, the server's
# pre-receive and verify each print under 10 KB, naming the count.
flood_is_summarised() {
  git init -q --bare "$TEST_ROOT/flood.git"
  printf '#!/bin/sh\nexec git jpblob pre-receive\n' > "$TEST_ROOT/flood.git/hooks/pre-receive"
  chmod +x "$TEST_ROOT/flood.git/hooks/pre-receive"
  new_installed_repo flood
  git remote add origin "$TEST_ROOT/flood.git"
  git push -q origin main
  python3 - <<'PY'
import hashlib, os
os.makedirs(".jp/conversations/1-flood")
with open(".jp/conversations/1-flood/events.json", "w") as f:
    f.write("[\n" + ",\n".join(
        '{"type":"tool_call_response","id":"t%d","content":{"$blob":"%s","size":10},"is_error":false}'
        % (i, hashlib.sha256(b"missing %d" % i).hexdigest()) for i in range(5000)) + "\n]\n")
PY
  git add .jp/conversations/1-flood
  local what out
  within_bound() {  # what, output file: under 10 KB, names the 5,000
    local bytes
    bytes=$(wc -c < "$2")
    echo "$1: $bytes bytes"
    [ "$bytes" -lt 10240 ] || fail "$1 printed $bytes bytes: $(head -c 300 "$2")"
    grep -Eq '^(git-jpblob: |remote: git-jpblob: )?\.\.\. and [0-9]+ more problems \([0-9]+ missing blobs\)' "$2" ||
      fail "$1 does not count the rest: $(tail -c 600 "$2")"
  }
  git commit -qm flood > "$TEST_ROOT/out" 2>&1 && fail "the commit went through"
  within_bound "the pre-commit hook" "$TEST_ROOT/out"
  grep -q "5000 in all; commit refused" "$TEST_ROOT/out" || fail "the refusal does not name the count: $(tail -c 300 "$TEST_ROOT/out")"
  git commit -q --no-verify -m flood
  git push origin main > "$TEST_ROOT/out" 2>&1 && fail "the push went through"
  within_bound "the pre-push hook" "$TEST_ROOT/out"
  grep -q "5000 in all; push refused" "$TEST_ROOT/out" || fail "the pre-push refusal does not name the count"
  [ "$(grep -c "To mend it" "$TEST_ROOT/out")" -eq 1 ] || fail "the mend is not said once: $(tail -c 600 "$TEST_ROOT/out")"
  git push --no-verify origin main > "$TEST_ROOT/out" 2>&1 && fail "the server took the push"
  within_bound "the server's pre-receive" "$TEST_ROOT/out"
  grep -q "^remote: git-jpblob: .*5000 in all; push refused" "$TEST_ROOT/out" || fail "the server does not name the count: $(tail -c 600 "$TEST_ROOT/out")"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 && fail "verify found nothing"
  within_bound "verify --history" "$TEST_ROOT/out"
  # The index's 5,000 and the commit's.
  grep -q ": 10000 problem(s)" "$TEST_ROOT/out" || fail "verify does not name the count: $(tail -c 300 "$TEST_ROOT/out")"
  [ "$(git jpblob verify --history --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["problems"]))')" -ge 5000 ] ||
    fail "verify --json does not list every problem"
}
case_ "5,000 missing blobs: the pre-commit, pre-push and pre-receive refusals and verify print the first 20 and count the rest" flood_is_summarised
pass
