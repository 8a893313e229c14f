#!/usr/bin/env bash
# install, reinstall and uninstall: beside an existing hook, and with
# core.hooksPath. Nothing is ever overwritten, and uninstall puts back
# exactly what was there.
. "$(dirname "$0")/lib.sh"
git init -q "$TEST_ROOT/repo"
cd "$TEST_ROOT/repo"
snapshot() { { git config --global --list 2>/dev/null; cat .gitattributes 2>/dev/null; ls -la "$1" 2>/dev/null | awk '{print $1, $NF}'; cat "$1"/* 2>/dev/null; } | sha256sum; }

# A user's own hook, which fails commits whose message says "bad".
mkdir -p .git/hooks
cat > .git/hooks/pre-commit <<'HOOK'
#!/bin/sh
echo "user hook ran" >> "$(git rev-parse --git-dir)/user-hook.log"
[ -z "$(git diff --cached --name-only | grep forbidden)" ]
HOOK
chmod +x .git/hooks/pre-commit
cp .git/hooks/pre-commit "$TEST_ROOT/user-hook"
before=$(snapshot .git/hooks)

refused_without_force() {
  local rc
  set +e
  git jpblob install > "$TEST_ROOT/out" 2> "$TEST_ROOT/err"
  rc=$?
  set -e
  [ "$rc" -eq 128 ] || fail "install over a foreign hook exited $rc"
  grep -q "refusing to replace .*pre-commit" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  grep -q "pre-commit || exit 1" "$TEST_ROOT/err" || fail "no hint how to chain by hand"
  [ "$(snapshot .git/hooks)" = "$before" ] || fail "a refused install changed something"
}
case_ "without --force: refused, with how to chain by hand, and nothing changed" refused_without_force

chained_with_force() {
  git jpblob install --force > /dev/null
  cmp .git/hooks/pre-commit.jpblob-chained "$TEST_ROOT/user-hook" || fail "the user hook was not kept intact"
}
case_ "with --force: the user's hook is kept, chained" chained_with_force

reinstall_changes_nothing() {
  local after_install
  after_install=$(snapshot .git/hooks)
  git jpblob install > "$TEST_ROOT/out"
  grep -qx "Nothing to change." "$TEST_ROOT/out" || fail "reinstall: $(cat "$TEST_ROOT/out")"
  [ "$(snapshot .git/hooks)" = "$after_install" ] || fail "reinstall changed something"
}
case_ "install again changes nothing" reinstall_changes_nothing

both_hooks_run() {
  git add .gitattributes && git commit -qm attributes
  write_conversation
  git add .jp/conversations
  git commit -qm conversation
  grep -q "user hook ran" .git/user-hook.log || fail "the chained user hook did not run"
  assert_blobs_committed
  touch forbidden && git add forbidden
  if git commit -qm "bad" 2>/dev/null; then fail "the chained user hook could not fail the commit"; fi
  git rm -q --cached forbidden && rm forbidden
}
case_ "both hooks run, and the user's can still fail a commit" both_hooks_run

uninstall_restores() {
  git jpblob uninstall > /dev/null
  cmp .git/hooks/pre-commit "$TEST_ROOT/user-hook" || fail "uninstall did not restore the user hook"
  [ ! -e .git/hooks/pre-commit.jpblob-chained ] || fail "chained copy left behind"
  [ -z "$(git config --global --get-regexp '^(filter|diff)\.jpblob\.' || true)" ] || fail "config left behind"
  # The repository commits its attributes: they are the team's, and stay.
  git diff --quiet HEAD -- .gitattributes || fail "uninstall edited the committed .gitattributes: $(git diff HEAD -- .gitattributes)"
  git jpblob uninstall | grep -qx "Nothing to change." || fail "second uninstall changed something"
}
case_ "uninstall: our hook gone, the user's back in place, byte for byte, the committed attributes kept" uninstall_restores


hooks_path() {
  git init -q "$TEST_ROOT/hookspath"
  cd "$TEST_ROOT/hookspath"
  git config core.hooksPath tools/hooks
  git jpblob install > /dev/null
  [ -x tools/hooks/pre-commit ] || fail "hook not installed in core.hooksPath"
  [ ! -e .git/hooks/pre-commit ] || fail "hook installed in .git/hooks despite core.hooksPath"
  git add .gitattributes && git commit -qm attributes
  write_conversation
  git add .jp/conversations
  git commit -qm conversation
  assert_blobs_committed
  git jpblob uninstall > /dev/null
  [ ! -e tools/hooks/pre-commit ] || fail "uninstall left the hook in core.hooksPath"
}
case_ "core.hooksPath: the hook goes there, not into .git/hooks, and uninstall takes it away" hooks_path

local_scope() {
  cd "$TEST_ROOT/hookspath"
  git jpblob install --local > /dev/null
  [ -n "$(git config --local filter.jpblob.process)" ] || fail "--local did not write local config"
  [ -z "$(git config --global filter.jpblob.process || true)" ] || fail "--local wrote global config"
  git jpblob uninstall --local > /dev/null
  [ -z "$(git config --local filter.jpblob.process || true)" ] || fail "uninstall --local"
}
case_ "--local writes the repository's config only" local_scope

# .gitattributes: uninstall gives back the exact bytes, and an older form of
# the store's line is brought up to date.
store_line='.jp/blobs/** -text diff=jpblob merge=jpblob linguist-generated'
attributes_repo() {
  git init -q "$TEST_ROOT/$1"
  cd "$TEST_ROOT/$1"
}

no_final_newline_given_back() {
  attributes_repo attrs-nonl
  printf 'x.bin binary' > .gitattributes
  cp .gitattributes "$TEST_ROOT/attrs-original"
  git jpblob install --local > /dev/null
  [ "$(sed -n 1p .gitattributes)" = "x.bin binary" ] || fail "the user's line changed: $(cat .gitattributes)"
  grep -qxF "$store_line" .gitattributes || fail "no store line: $(cat .gitattributes)"
  git jpblob install --local | grep -qx "Nothing to change." || fail "a second install changed something"
  git jpblob uninstall --local > /dev/null
  cmp .gitattributes "$TEST_ROOT/attrs-original" || fail "uninstall gave back $(od -c .gitattributes | head -3)"
  [ -z "$(git config --local --get-regexp '^jpblob\.' || true)" ] || fail "a record left in .git/config"
  ! grep -q '^\[jpblob\]' .git/config || fail "an empty [jpblob] section left in .git/config"
}
case_ "uninstall gives back a .gitattributes that lacked its final newline, byte for byte" no_final_newline_given_back

final_newline_kept() {
  attributes_repo attrs-nl
  printf '*.png binary\n' > .gitattributes
  cp .gitattributes "$TEST_ROOT/attrs-original"
  git jpblob install --local > /dev/null
  git jpblob uninstall --local > /dev/null
  cmp .gitattributes "$TEST_ROOT/attrs-original" || fail "uninstall gave back $(od -c .gitattributes | head -3)"
}
case_ "uninstall gives back a .gitattributes that had its final newline" final_newline_kept

linguist_generated() {
  attributes_repo attrs-linguist
  git jpblob install --local > /dev/null
  [ "$(tail -1 .gitattributes)" = "$store_line" ] || fail "store line: $(cat .gitattributes)"
  git check-attr linguist-generated -- .jp/blobs/ab/cd/x.blob.gz | grep -q ': linguist-generated: set$' ||
    fail "blobs are not linguist-generated: $(git check-attr -a -- .jp/blobs/ab/cd/x.blob.gz)"
}
case_ "install marks the store linguist-generated" linguist_generated

old_store_line_upgraded() {
  local old
  for old in '.jp/blobs/** -text diff=jpblob' '.jp/blobs/** -text -diff' '.jp/blobs/** -text diff=jpblob linguist-generated'; do
    attributes_repo "attrs-old-$(printf '%s' "$old" | md5sum | cut -c1-8)"
    printf '%s\n' '.jp/conversations/**/events.json filter=jpblob diff=jpblob -text' \
      '.jp/sessions/**/*.jsonl filter=jpblob -text' "$old" '*.png binary' > .gitattributes
    git jpblob install --local > "$TEST_ROOT/out"
    grep -qx "Updated 3 line(s) of .gitattributes." "$TEST_ROOT/out" || fail "install: $(cat "$TEST_ROOT/out")"
    [ "$(sed -n 1p .gitattributes)" = '.jp/conversations/**/events.json filter=jpblob diff=jpblob merge=jpblob -text' ] ||
      fail "the conversations line was not upgraded: $(cat .gitattributes)"
    [ "$(sed -n 3p .gitattributes)" = "$store_line" ] || fail "'$old' not upgraded in place: $(cat .gitattributes)"
    # The one line added is the Claude Code transcripts' row, which no old
    # version wrote.
    [ "$(wc -l < .gitattributes)" -eq 5 ] || fail "lines added beside the upgrade: $(cat .gitattributes)"
    [ "$(tail -n 1 .gitattributes)" = '.claude/projects/**/*.jsonl filter=jpblob merge=jpblob -text' ] ||
      fail "the transcripts' line is not the one added: $(cat .gitattributes)"
    git jpblob install --local | grep -qx "Nothing to change." || fail "a second install changed something"
    git jpblob uninstall --local > /dev/null
    [ "$(cat .gitattributes)" = '*.png binary' ] || fail "uninstall left: $(cat .gitattributes)"
    # A repository that still has the old line: uninstall removes it too.
    printf '%s\n' "$old" 'x.bin binary' > .gitattributes
    git jpblob uninstall --local > /dev/null
    [ "$(cat .gitattributes)" = 'x.bin binary' ] || fail "uninstall kept '$old': $(cat .gitattributes)"
  done
}
case_ "install upgrades the store's old line in place; uninstall removes either form" old_store_line_upgraded
# Lines install added that nobody committed leave; committed ones stay,
# and an older committed line install upgraded gets its old form back.
uncommitted_lines_leave() {
  attributes_repo attrs-committed
  local conversations='.jp/conversations/**/events.json filter=jpblob diff=jpblob merge=jpblob -text'
  printf '%s\n' '*.png binary' "$conversations" '.jp/blobs/** -text -diff' > .gitattributes
  git add .gitattributes && git commit -qm "the team's attributes"
  git jpblob install --local > /dev/null
  git jpblob uninstall --local > "$TEST_ROOT/out"
  git diff --quiet HEAD -- .gitattributes || fail "uninstall did not give back the committed file: $(git diff HEAD -- .gitattributes)"
  grep -q "Left the 2 jpblob line(s) of .gitattributes" "$TEST_ROOT/out" || fail "uninstall said: $(cat "$TEST_ROOT/out")"
}
case_ "uninstall keeps the committed lines and takes out only those install added" uncommitted_lines_leave
pass
