#!/usr/bin/env bash
# A repository whose objects are named by SHA-256 (`git init
# --object-format=sha256`): libgit2 1.5, which git-jpblob reads through,
# opens SHA-1 repositories only. `install` refuses such a repository in one
# line and writes nothing; where git-jpblob is installed globally, or a
# teammate committed the attributes, its filter and hooks step aside with a
# warning, so that no git command is blocked and no byte changes.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "a SHA-256 repository is never made lean (install refuses it): one mode says it all"

conversation='[{"type":"tool_call_response","id":"t1","content":"aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=","is_error":false}]'

sha256_repo() {
  git init -q --object-format=sha256 "$TEST_ROOT/$1"
  cd "$TEST_ROOT/$1"
}

install_refuses() {
  sha256_repo refused
  local before
  before=$(git config --global --list 2> /dev/null | sort || true)
  if git jpblob install > "$TEST_ROOT/out" 2>&1; then fail "install succeeded in a SHA-256 repository"; fi
  [ "$(wc -l < "$TEST_ROOT/out")" -eq 1 ] || fail "not one line: $(cat "$TEST_ROOT/out")"
  grep -q "SHA-256.*nothing was installed" "$TEST_ROOT/out" || fail "the refusal does not say why: $(cat "$TEST_ROOT/out")"
  [ ! -e .gitattributes ] || fail "install wrote .gitattributes"
  [ ! -e .git/hooks/pre-commit ] || fail "install wrote a hook"
  [ "$(git config --global --list 2> /dev/null | sort || true)" = "$before" ] || fail "install changed the global config"
  [ -z "$(git config --local --get-regexp '^(filter|jpblob|diff|merge)\.' || true)" ] || fail "install wrote local config"
}
case_ "install refuses a SHA-256 repository in one line and writes nothing" install_refuses

nothing_blocked() {
  # git-jpblob set up for the machine, and a teammate's attributes and
  # hooks folder, as in any adopted repository.
  (cd "$TEST_ROOT" && git jpblob install --global > /dev/null)
  git init -q "$TEST_ROOT/hooks-from" && (cd "$TEST_ROOT/hooks-from" && git jpblob install > /dev/null)
  sha256_repo adopted
  git config core.hooksPath "$TEST_ROOT/hooks-from/.git/hooks"
  cp "$TEST_ROOT/hooks-from/.gitattributes" .gitattributes
  mkdir -p .jp/conversations/1-a
  printf '%s' "$conversation" > .jp/conversations/1-a/events.json
  git add -A 2> "$TEST_ROOT/err" || fail "git add blocked: $(cat "$TEST_ROOT/err")"
  grep -q "SHA-256" "$TEST_ROOT/err" || fail "no warning says why the filter stepped aside"
  git commit -qm "a conversation" 2> "$TEST_ROOT/err" || fail "git commit blocked: $(cat "$TEST_ROOT/err")"
  [ "$(git cat-file blob HEAD:.jp/conversations/1-a/events.json)" = "$conversation" ] ||
    fail "the committed conversation is not the file as written"
  [ -z "$(git status --porcelain 2> /dev/null)" ] || fail "status not clean: $(git status --porcelain 2>&1)"
  printf '%s\n' "$conversation" > .jp/conversations/1-a/events.json
  git diff > /dev/null 2>&1 || fail "git diff failed"
  git log -p > /dev/null 2>&1 || fail "git log -p failed"
  git commit -qam "an edit" 2> /dev/null || fail "git commit -a blocked"
  git init -q --bare --object-format=sha256 "$TEST_ROOT/server.git"
  git push -q "$TEST_ROOT/server.git" HEAD:refs/heads/main 2> "$TEST_ROOT/err" ||
    fail "git push blocked: $(cat "$TEST_ROOT/err")"
  git clone -q "$TEST_ROOT/server.git" "$TEST_ROOT/clone" 2> /dev/null || fail "git clone blocked"
  cmp -s "$TEST_ROOT/clone/.jp/conversations/1-a/events.json" .jp/conversations/1-a/events.json ||
    fail "the clone's conversation differs"
}
case_ "with git-jpblob installed, a SHA-256 repository's add, commit, diff, push and clone all work, bytes unchanged" nothing_blocked

oneshot_passes_through() {
  cd "$TEST_ROOT/adopted"
  [ "$(printf '%s' "$conversation" | git jpblob clean x 2> /dev/null)" = "$conversation" ] ||
    fail "the one-shot clean changed the file"
  [ "$(printf '%s' "$conversation" | git jpblob smudge x 2> /dev/null)" = "$conversation" ] ||
    fail "the one-shot smudge changed the file"
}
case_ "the one-shot filter passes a SHA-256 repository's files through" oneshot_passes_through

# The merge driver the attributes name steps aside too: git's own line
# merge combines two edits of different lines, as with no driver.
merge_steps_aside() {
  cd "$TEST_ROOT/adopted"
  local f=.jp/conversations/2-merge/events.json
  mkdir -p "$(dirname "$f")"
  python3 -c 'import json; print(json.dumps([{"type": "chat_request", "content": "msg %d" % i} for i in range(10)], indent=2))' > "$f"
  git add -A 2> /dev/null && git commit -qm base 2> /dev/null
  git checkout -q -b side 2> /dev/null
  sed -i 's/"msg 0"/"msg 0 edited"/' "$f" && git commit -qam side 2> /dev/null
  git checkout -q - 2> /dev/null
  sed -i 's/"msg 9"/"msg 9 edited"/' "$f" && git commit -qam main 2> /dev/null
  git merge -q --no-edit side > "$TEST_ROOT/out" 2>&1 || fail "the merge conflicted: $(cat "$TEST_ROOT/out")"
  grep -q '"msg 0 edited"' "$f" && grep -q '"msg 9 edited"' "$f" || fail "the merge dropped a side: $(cat "$f")"
}
case_ "the merge driver steps aside in a SHA-256 repository: git's line merge keeps both edits" merge_steps_aside

pass
