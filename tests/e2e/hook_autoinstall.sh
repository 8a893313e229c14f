#!/usr/bin/env bash
# A fresh clone gets the pre-commit hook from the filter itself (as git-lfs
# installs its hooks), so a teammate who only ran the global install once
# cannot commit conversations without their blobs.
. "$(dirname "$0")/lib.sh"
subcase "A fresh clone gets the pre-commit hook from the filter itself (as git-lfs installs its hooks),…"

new_installed_repo origin
write_conversation 1-first "first output"
git add .jp && git commit -qm first

subcase "A teammate: global install once, then clones"
# A teammate: global install once, then clones. Nothing else.
git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone" 2> clone.err
cd "$TEST_ROOT/clone"
grep -q "installed the pre-commit and pre-push hooks" "$TEST_ROOT/origin/clone.err" ||
  fail "the clone did not say it installed the hooks: $(cat "$TEST_ROOT/origin/clone.err")"
grep -q "git-jpblob pre-commit hook" .git/hooks/pre-commit || fail "no git-jpblob hook in the clone"
[ -x .git/hooks/pre-commit ] || fail "the hook is not executable"
grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "no git-jpblob pre-push hook in the clone"
[ -x .git/hooks/pre-push ] || fail "the pre-push hook is not executable"
write_conversation 2-second "second output, new in the clone"
git add .jp/conversations && git commit -qm second
assert_blobs_committed
assert_no_changes

subcase "The hook is installed once: later filter runs say nothing"
# The hook is installed once: later filter runs say nothing.
write_conversation 3-third "third"
git add .jp/conversations 2> add.err
[ ! -s add.err ] || fail "a second install message: $(cat add.err)"

subcase "core.hooksPath is honoured"
# core.hooksPath is honoured.
git clone -q --no-checkout "$TEST_ROOT/origin" "$TEST_ROOT/hookspath"
cd "$TEST_ROOT/hookspath"
git config core.hooksPath .githooks
git checkout -q main
grep -q "git-jpblob pre-commit hook" .githooks/pre-commit || fail "no hook in core.hooksPath"
[ ! -e .git/hooks/pre-commit ] || fail "the hook went to .git/hooks despite core.hooksPath"

subcase "A hooks folder shared by many repositories is not the filter's to change"
# A hooks folder shared by many repositories is not the filter's to change.
git clone -q --no-checkout "$TEST_ROOT/origin" "$TEST_ROOT/shared"
cd "$TEST_ROOT/shared"
mkdir -p "$TEST_ROOT/company-hooks"
git config core.hooksPath "$TEST_ROOT/company-hooks"
git checkout -q main 2> checkout.err
grep -q "outside this repository" checkout.err || fail "no warning about the shared hooks folder: $(cat checkout.err)"
[ ! -e "$TEST_ROOT/company-hooks/pre-commit" ] || fail "the filter wrote into a shared hooks folder"

subcase "A hook of the user's own is left alone, with a warning"
# A hook of the user's own is left alone, with a warning.
mkdir -p "$TEST_ROOT/template/hooks"
printf '#!/bin/sh\nexit 0\n' > "$TEST_ROOT/template/hooks/pre-commit"
chmod +x "$TEST_ROOT/template/hooks/pre-commit"
git clone -q --template="$TEST_ROOT/template" "$TEST_ROOT/origin" "$TEST_ROOT/foreign" 2> "$TEST_ROOT/foreign.err"
grep -q "is not git-jpblob's" "$TEST_ROOT/foreign.err" || fail "no warning about the foreign hook: $(cat "$TEST_ROOT/foreign.err")"
cmp -s "$TEST_ROOT/foreign/.git/hooks/pre-commit" "$TEST_ROOT/template/hooks/pre-commit" || fail "the foreign hook was changed"

subcase "Turned off: no hook"
# Turned off: no hook.
git config --global jpblob.autoInstallHook false
git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/off" 2> "$TEST_ROOT/off.err"
[ ! -e "$TEST_ROOT/off/.git/hooks/pre-commit" ] || fail "a hook was installed with jpblob.autoInstallHook=false"
[ ! -s "$TEST_ROOT/off.err" ] || fail "unexpected output: $(cat "$TEST_ROOT/off.err")"
pass
