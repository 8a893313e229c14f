#!/usr/bin/env bash
# The way in and the way out of git-jpblob for a team of mixed set-ups
# (issue 46, SPEC §7), with real git and a HOME each: Alice adopted it,
# Carol cloned without it and installs it later, Bob uninstalls it in his
# clone, Dave never has it (no git-jpblob on PATH, no config) and clones
# after `git jpblob export`. Every conversation and session is compared
# byte for byte with what the agent wrote.
. "$(dirname "$0")/lib.sh"

PLAIN_PATH=$(path_without_jpblob)
if PATH="$PLAIN_PATH" command -v git-jpblob > /dev/null; then
  fail "git-jpblob is on PATH outside the build ($(PATH="$PLAIN_PATH" command -v git-jpblob)): no teammate can be without it"
fi

# A HOME of its own for teammate $1: git's identity, and nothing of git-jpblob.
home_of() {
  local h="$TEST_ROOT/home-$1"
  mkdir -p "$h"
  HOME="$h" git config --global user.name "$1"
  HOME="$h" git config --global user.email "$1@example.com"
  HOME="$h" git config --global init.defaultBranch main
  HOME="$h" git config --global advice.detachedHead false
  HOME="$h" git config --global gc.autoDetach false
  lean_mode || HOME="$h" git config --global jpblob.lean false
  echo "$h"
}
CAROL=$(home_of carol)
BOB=$(home_of bob)
DAVE=$(home_of dave)
as_dave() { HOME="$DAVE" PATH="$PLAIN_PATH" "$@"; }

# What the agent wrote: two conversations and an oh-my-pi session.
SESSION=.jp/sessions/omp/2026-11-20T10-00-00_0b7a.jsonl
DOCS=(.jp/conversations/1-a/events.json .jp/conversations/2-b/events.json "$SESSION")
new_installed_repo alice
write_conversation 1-a "cargo check finished without errors, and the tool said so at length"
write_conversation 2-b "the second tool output, which is stored as a blob too"
write_omp_session "$SESSION" > /dev/null
mkdir -p "$TEST_ROOT/written"
for f in "${DOCS[@]}"; do cp "$f" "$TEST_ROOT/written/$(echo "$f" | tr / _)"; done
git add .jp
git commit -qm "conversations"
git init -q --bare "$TEST_ROOT/shared.git"
git push -q "$TEST_ROOT/shared.git" HEAD:main

# Each document of the work tree in $1 is what the agent wrote, byte for byte.
same_as_written() {
  local f
  for f in "${DOCS[@]}"; do
    cmp -s "$1/$f" "$TEST_ROOT/written/$(echo "$f" | tr / _)" || fail "$f in $1 is not what the agent wrote: $(head -c 300 "$1/$f")"
  done
}
no_hooks() {
  local hook
  for hook in pre-commit pre-push post-checkout; do
    [ ! -e ".git/hooks/$hook" ] || fail "$1: the $hook hook is back"
  done
}

install_after_clone() {
  HOME="$CAROL" PATH="$PLAIN_PATH" git clone -q "$TEST_ROOT/shared.git" "$TEST_ROOT/carol" 2> /dev/null
  cd "$TEST_ROOT/carol"
  grep -q '"\$blob"' .jp/conversations/1-a/events.json || fail "the clone without git-jpblob is not in reference form"
  [ -z "$(git ls-files -t .jp/blobs | grep -v '^H ' || true)" ] || fail "a clone without git-jpblob is already sparse"
  HOME="$CAROL" git jpblob install > "$TEST_ROOT/out" 2>&1 || fail "install failed: $(cat "$TEST_ROOT/out")"
  grep -q "JP's form back" "$TEST_ROOT/out" || fail "install does not say what it restored: $(cat "$TEST_ROOT/out")"
  same_as_written .
  [ -z "$(HOME="$CAROL" git status --porcelain)" ] || fail "status after install: $(HOME="$CAROL" git status --porcelain)"
  if lean_mode; then
    [ -z "$(find .jp/blobs -type f 2> /dev/null)" ] || fail "install left the clone's blob files: it is not lean"
    [ -z "$(git ls-files -t .jp/blobs | grep -v '^S ' || true)" ] || fail "blobs not kept out of the work tree"
  else
    [ -n "$(find .jp/blobs -type f)" ] || fail "the blob files left a clone that checks its store out"
  fi
  # A second install finds nothing to restore, and JP's form stays.
  HOME="$CAROL" git jpblob install > "$TEST_ROOT/out"
  ! grep -q "JP's form back" "$TEST_ROOT/out" || fail "a second install restored again"
  same_as_written .
}
case_ "install in a clone made without git-jpblob puts JP's form back, status clean" install_after_clone

adoption_commands() {
  local h
  h=$(home_of erin)
  git init -q "$TEST_ROOT/inline" && cd "$TEST_ROOT/inline"
  write_conversation 1-a "cargo check finished without errors, and the tool said so at length"
  HOME="$h" git add .jp && HOME="$h" git commit -qm "conversations, inline"
  HOME="$h" git jpblob install > "$TEST_ROOT/out" 2>&1 || fail "install failed: $(cat "$TEST_ROOT/out")"
  grep -q '^    git add --renormalize \.jp$' "$TEST_ROOT/out" || fail "install names no renormalize step: $(cat "$TEST_ROOT/out")"
  grep -q '^    git add \.gitattributes$' "$TEST_ROOT/out" || fail "install names no attributes step: $(cat "$TEST_ROOT/out")"
  # The commands, exactly as printed, adopt git-jpblob in one commit.
  grep '^    git ' "$TEST_ROOT/out" | sed 's/^    //' > "$TEST_ROOT/steps"
  [ "$(wc -l < "$TEST_ROOT/steps")" -eq 3 ] || fail "not three steps: $(cat "$TEST_ROOT/steps")"
  HOME="$h" bash -e "$TEST_ROOT/steps" > /dev/null 2>&1 || fail "the printed steps failed: $(cat "$TEST_ROOT/steps")"
  [ "$(git rev-list --count HEAD)" -eq 2 ] || fail "the adoption is not one commit"
  git cat-file -p HEAD:.jp/conversations/1-a/events.json | grep -q '"\$blob"' || fail "the adoption committed no reference"
  assert_blobs_committed
  [ -z "$(HOME="$h" git status --porcelain)" ] || fail "status after the steps: $(HOME="$h" git status --porcelain)"
  cmp -s .jp/conversations/1-a/events.json "$TEST_ROOT/written/.jp_conversations_1-a_events.json" ||
    fail "the work tree changed"
  HOME="$h" git jpblob install > "$TEST_ROOT/out"
  ! grep -q 'renormalize' "$TEST_ROOT/out" || fail "install speaks of adoption in an adopted repository"
}
case_ "install where the committed conversations are inline prints the commands that adopt git-jpblob" adoption_commands

uninstall_in_clone() {
  (cd "$BOB" && HOME="$BOB" git jpblob install > /dev/null)
  HOME="$BOB" git clone -q "$TEST_ROOT/shared.git" "$TEST_ROOT/bob" 2> /dev/null
  cd "$TEST_ROOT/bob"
  ! lean_mode || [ -n "$(git ls-files -t .jp/blobs | grep '^S ' || true)" ] || fail "Bob's clone is not lean"
  cp .gitattributes "$TEST_ROOT/bob-attributes"
  HOME="$BOB" git jpblob uninstall --local > "$TEST_ROOT/out" 2>&1 || fail "uninstall failed: $(cat "$TEST_ROOT/out")"
  cmp -s .gitattributes "$TEST_ROOT/bob-attributes" || fail "uninstall edited the team's .gitattributes: $(cat .gitattributes)"
  no_hooks "after uninstall"
  [ "$(git config --bool core.sparseCheckout || echo false)" = false ] || fail "still a sparse checkout"
  [ -z "$(git ls-files -t | grep -v '^H ' || true)" ] || fail "index entries still skip the work tree: $(git ls-files -t | grep -v '^H ' | head -3)"
  local blob
  for blob in $(git ls-files .jp/blobs); do [ -f "$blob" ] || fail "$blob is not checked out"; done
  [ -z "$(HOME="$BOB" git status --porcelain)" ] || fail "status after uninstall: $(HOME="$BOB" git status --porcelain)"
  same_as_written .
  # Commands that run the filter here (it is still in Bob's global
  # config): a status that must clean, a checkout that must smudge, an add.
  touch "${DOCS[@]}"
  HOME="$BOB" git status --porcelain > /dev/null
  no_hooks "after git status"
  HOME="$BOB" git checkout -q HEAD~1 && HOME="$BOB" git checkout -q main
  no_hooks "after git checkout"
  touch "${DOCS[@]}" && HOME="$BOB" git add -A
  no_hooks "after git add"
  same_as_written .
  [ -z "$(HOME="$BOB" git status --porcelain)" ] || fail "status at the end: $(HOME="$BOB" git status --porcelain)"
}
case_ "uninstall --local in a teammate's clone: the team's .gitattributes kept, a plain checkout, and no hook comes back" \
  uninstall_in_clone

export_leaves() {
  cd "$TEST_ROOT/alice"
  local before count
  before=$(git rev-parse HEAD)
  count=$(git rev-list --count HEAD)
  git jpblob export --dry-run > "$TEST_ROOT/out" || fail "export --dry-run failed"
  grep -q "^Would commit 3 document(s)" "$TEST_ROOT/out" || fail "dry run: $(cat "$TEST_ROOT/out")"
  [ "$(git rev-parse HEAD)" = "$before" ] && [ -z "$(git status --porcelain)" ] || fail "the dry run changed something"
  echo notes > notes.txt && git add notes.txt
  local rc=0
  git jpblob export > "$TEST_ROOT/out" 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "export with a staged change exited $rc"
  grep -q "index holds changes that are not committed" "$TEST_ROOT/err" || fail "refusal: $(cat "$TEST_ROOT/err")"
  [ "$(git rev-parse HEAD)" = "$before" ] || fail "the refused export committed"
  [ "$(git status --porcelain)" = "A  notes.txt" ] || fail "the refused export changed the tree: $(git status --porcelain)"
  git rm -q --cached notes.txt && rm notes.txt
  out=$(git jpblob export -q 2>&1) || fail "export failed: $out"
  [ -z "$out" ] || fail "export -q printed: $out"
  [ "$(git rev-list --count HEAD)" -eq $((count + 1)) ] && [ "$(git rev-parse HEAD~1)" = "$before" ] ||
    fail "export is not one commit on top of HEAD"
  [ -z "$(git ls-tree -r --name-only HEAD -- .jp/blobs)" ] || fail "the export commit still holds .jp/blobs"
  ! git cat-file -p HEAD:.gitattributes 2> /dev/null | grep -q jpblob || fail "the export commit routes to jpblob"
  [ -z "$(git status --porcelain)" ] || fail "status after export: $(git status --porcelain)"
  same_as_written .
  git push -q "$TEST_ROOT/shared.git" HEAD:main
  as_dave git clone -q "$TEST_ROOT/shared.git" "$TEST_ROOT/dave" 2> "$TEST_ROOT/err" || fail "Dave's clone: $(cat "$TEST_ROOT/err")"
  same_as_written "$TEST_ROOT/dave"
  [ -z "$(cd "$TEST_ROOT/dave" && as_dave git status --porcelain)" ] || fail "status in Dave's clone"
}
case_ "export leaves git-jpblob in one commit; a clone without git-jpblob has the agent's exact bytes" export_leaves

after_export() {
  cd "$TEST_ROOT/alice"
  write_conversation 3-c "a conversation after the export, with its tool output inline"
  cp .jp/conversations/3-c/events.json "$TEST_ROOT/3-c.json"
  git add .jp && git commit -qm "after the export"
  git cat-file -p HEAD:.jp/conversations/3-c/events.json | cmp -s - "$TEST_ROOT/3-c.json" ||
    fail "Alice's hook moved payloads out after the export"
  [ -z "$(git ls-tree -r --name-only HEAD -- .jp/blobs)" ] || fail "a commit after the export holds blobs"
  git jpblob export > "$TEST_ROOT/out" && grep -q "^Nothing to export" "$TEST_ROOT/out" || fail "export again: $(cat "$TEST_ROOT/out")"
  # History is as it was: the commit before the export still checks out
  # with git-jpblob.
  git checkout -q HEAD~2 && same_as_written . && git checkout -q main
}
case_ "after the export, commits stay inline and history still checks out" after_export

pass
