#!/usr/bin/env bash
# A fresh clone gets the pre-commit hook from the filter itself (as git-lfs
# installs its hooks), so a teammate who only ran the global install once
# cannot commit conversations without their blobs.
. "$(dirname "$0")/lib.sh"

new_installed_repo origin
write_conversation 1-first "first output"
git add .jp && git commit -qm first

# A teammate: global install once, then clones. Nothing else.
clone_gets_the_hook() {
  cd "$TEST_ROOT/origin"
  GIT_TRACE="$TEST_ROOT/clone.trace" git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone" 2> clone.err
  cd "$TEST_ROOT/clone"
  # Nothing to act on, so nothing on the terminal; the trace says it.
  [ ! -s "$TEST_ROOT/origin/clone.err" ] || fail "the clone printed: $(cat "$TEST_ROOT/origin/clone.err")"
  grep -q "trace: git-jpblob: installed the pre-commit, pre-push and post-checkout hooks" "$TEST_ROOT/clone.trace" ||
    fail "the trace does not say the hooks were installed: $(cat "$TEST_ROOT/clone.trace")"
  grep -q "git-jpblob pre-commit hook" .git/hooks/pre-commit || fail "no git-jpblob hook in the clone"
  [ -x .git/hooks/pre-commit ] || fail "the hook is not executable"
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "no git-jpblob pre-push hook in the clone"
  [ -x .git/hooks/pre-push ] || fail "the pre-push hook is not executable"
  write_conversation 2-second "second output, new in the clone"
  git add .jp/conversations && git commit -qm second
  assert_blobs_committed
  assert_no_changes
}
case_ "a fresh clone installs the hooks, says so in the trace only, and commits with the blobs" clone_gets_the_hook

installed_once() {
  cd "$TEST_ROOT/clone"
  write_conversation 3-third "third"
  git add .jp/conversations 2> add.err
  [ ! -s add.err ] || fail "a second install message: $(cat add.err)"
}
case_ "the hook is installed once: later filter runs say nothing" installed_once

hooks_path_honoured() {
  git clone -q --no-checkout "$TEST_ROOT/origin" "$TEST_ROOT/hookspath"
  cd "$TEST_ROOT/hookspath"
  git config core.hooksPath .githooks
  git checkout -q main
  grep -q "git-jpblob pre-commit hook" .githooks/pre-commit || fail "no hook in core.hooksPath"
  [ ! -e .git/hooks/pre-commit ] || fail "the hook went to .git/hooks despite core.hooksPath"
}
case_ "core.hooksPath is honoured" hooks_path_honoured

shared_hooks_folder_left_alone() {
  git clone -q --no-checkout "$TEST_ROOT/origin" "$TEST_ROOT/shared"
  cd "$TEST_ROOT/shared"
  mkdir -p "$TEST_ROOT/company-hooks"
  git config core.hooksPath "$TEST_ROOT/company-hooks"
  git checkout -q main 2> checkout.err
  grep -q "outside this repository" checkout.err || fail "no warning about the shared hooks folder: $(cat checkout.err)"
  [ ! -e "$TEST_ROOT/company-hooks/pre-commit" ] || fail "the filter wrote into a shared hooks folder"
}
case_ "a hooks folder shared by many repositories is not the filter's to change" shared_hooks_folder_left_alone

foreign_hook_left_alone() {
  mkdir -p "$TEST_ROOT/template/hooks"
  printf '#!/bin/sh\nexit 0\n' > "$TEST_ROOT/template/hooks/pre-commit"
  chmod +x "$TEST_ROOT/template/hooks/pre-commit"
  git clone -q --template="$TEST_ROOT/template" "$TEST_ROOT/origin" "$TEST_ROOT/foreign" 2> "$TEST_ROOT/foreign.err"
  grep -q "is not git-jpblob's" "$TEST_ROOT/foreign.err" || fail "no warning about the foreign hook: $(cat "$TEST_ROOT/foreign.err")"
  cmp -s "$TEST_ROOT/foreign/.git/hooks/pre-commit" "$TEST_ROOT/template/hooks/pre-commit" || fail "the foreign hook was changed"
}
case_ "a hook of the user's own is left alone, with a warning" foreign_hook_left_alone

# Last: it turns the feature off in the global config every case shares.
turned_off() {
  git config --global jpblob.autoInstallHook false
  git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/off" 2> "$TEST_ROOT/off.err"
  [ ! -e "$TEST_ROOT/off/.git/hooks/pre-commit" ] || fail "a hook was installed with jpblob.autoInstallHook=false"
  [ ! -s "$TEST_ROOT/off.err" ] || fail "unexpected output: $(cat "$TEST_ROOT/off.err")"
}
case_ "jpblob.autoInstallHook=false: no hook, and nothing said" turned_off
pass
