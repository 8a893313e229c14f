#!/usr/bin/env bash
# The CI job of a hosted server (docs/TEAM.md, "CI on a hosted server"):
# install/ci-verify.sh, the script its GitHub and GitLab snippets run, given
# each push's before and after in a fresh clone of the bare repository (as
# actions/checkout makes one, with no git-jpblob config) and in the bare
# repository itself. A good push passes, a commit lacking its blob fails, a
# new branch (before all zeros) is checked on its own commits, and a force
# push on what it added.
. "$(dirname "$0")/lib.sh"
CI_VERIFY="${JPBLOB_SOURCE_DIR:-$E2E_DIR/../..}/install/ci-verify.sh"
ZEROS=0000000000000000000000000000000000000000
unset GITHUB_REF_NAME CI_COMMIT_REF_NAME
git init -q --bare "$TEST_ROOT/server.git"
new_installed_repo
git remote add origin "$TEST_ROOT/server.git"
: > "$TEST_ROOT/ci.gitconfig"  # the runner's global config: git-jpblob not installed

# ci_verify <before> <after> [<branch>]: the job's run, in a fresh clone
# checked out at <after>; its output in $TEST_ROOT/out, its status in
# $TEST_ROOT/rc.
ci_verify() {
  local after=$2
  rm -rf "$TEST_ROOT/ci"
  GIT_CONFIG_GLOBAL="$TEST_ROOT/ci.gitconfig" git clone -q --no-checkout "$TEST_ROOT/server.git" "$TEST_ROOT/ci"
  if [[ ! $after =~ ^0+$ ]]; then
    GIT_CONFIG_GLOBAL="$TEST_ROOT/ci.gitconfig" git -C "$TEST_ROOT/ci" checkout -q --detach "$after"
  fi
  ci_verify_in "$TEST_ROOT/ci" "$@"
}
# ci_verify_in <folder> <before> <after> [<branch>]: the same in a
# repository that is already there.
ci_verify_in() {
  local dir=$1 rc=0
  shift
  (cd "$dir" && GIT_CONFIG_GLOBAL="$TEST_ROOT/ci.gitconfig" bash "$CI_VERIFY" "$@") > "$TEST_ROOT/out" 2>&1 || rc=$?
  echo "$rc" > "$TEST_ROOT/rc"
}
expect() {
  local want=$1 commits=${2:-}
  [ "$(cat "$TEST_ROOT/rc")" = "$want" ] || fail "ci-verify exited $(cat "$TEST_ROOT/rc"), not $want: $(cat "$TEST_ROOT/out")"
  [ -z "$commits" ] || grep -q "in $commits commit(s)" "$TEST_ROOT/out" ||
    fail "not $commits commit(s) checked: $(cat "$TEST_ROOT/out")"
}
# A commit whose conversation references a blob the commit lacks, as
# --no-verify (or a hook manager without our line) makes one.
commit_without_blob() {
  write_conversation "$1" "$2"
  git add ".jp/conversations/$1"
  git commit -q --no-verify -m "$1 without its blob"
}

first_push() {
  write_conversation 1-first "the first tool output"
  git add .jp/conversations/1-first
  git commit -q -m first
  git push -q origin main
  ci_verify "$ZEROS" "$(git rev-parse HEAD)" main
  expect 0 2  # the first push of main: every commit it has
  grep -q "all good" "$TEST_ROOT/out" || fail "$(cat "$TEST_ROOT/out")"
}
case_ "the first push of a branch (before all zeros) checks every commit" first_push

good_push() {
  local before
  before=$(git rev-parse HEAD)
  write_conversation 2-second "the second tool output"
  git add .jp/conversations/2-second
  git commit -q -m second
  git push -q origin main
  ci_verify "$before" "$(git rev-parse HEAD)" main
  expect 0 1
}
case_ "a good push passes, checking only the commit it added" good_push

bad_push() {
  local before commit
  before=$(git rev-parse HEAD)
  commit_without_blob 3-bad "never committed output"
  commit=$(git rev-parse --short=12 HEAD)
  git push -q --no-verify origin main
  ci_verify "$before" "$(git rev-parse HEAD)" main
  expect 1 1
  grep -q "commit $commit: .jp/conversations/3-bad/events.json references blob .*, which that commit does not contain" \
    "$TEST_ROOT/out" || fail "the commit is not named: $(cat "$TEST_ROOT/out")"
  # The server's own repository, as a job that runs there would check it.
  ci_verify_in "$TEST_ROOT/server.git" "$before" "$(git rev-parse HEAD)" main
  expect 1 1
  # Mended for the cases below: the server's main is good again.
  git reset -q --hard "$before"
  git push -q --force origin main
}
case_ "a push of a commit lacking its blob fails, naming it, in a clone and in the bare repository" bad_push

new_branch() {
  git checkout -q -b feature
  write_conversation 4-feature "the feature's output"
  git add .jp/conversations/4-feature
  git commit -q -m feature
  git push -q origin feature
  ci_verify "$ZEROS" "$(git rev-parse HEAD)" feature
  expect 0 1  # its own commit, not main's history
  ci_verify_in "$TEST_ROOT/server.git" "$ZEROS" "$(git rev-parse HEAD)" refs/heads/feature
  expect 0 1
  GITHUB_REF_NAME=feature ci_verify "$ZEROS" "$(git rev-parse HEAD)"
  expect 0 1
  git checkout -q -b broken
  commit_without_blob 5-broken "the broken branch's output"
  git push -q --no-verify origin broken
  ci_verify "$ZEROS" "$(git rev-parse HEAD)" broken
  expect 1 1
  ci_verify "$ZEROS" "$(git rev-parse HEAD)"
  expect 129
  git checkout -q main
}
case_ "a new branch (before all zeros) is checked on the commits no other branch holds" new_branch

force_push() {
  local old
  git checkout -q broken
  old=$(git rev-parse HEAD)
  git reset -q --hard HEAD~1
  write_conversation 5-broken "the broken branch's output"
  git add .jp/conversations/5-broken
  git commit -q -m "5-broken with its blob"
  git push -q --force origin broken
  # A fresh clone never sees the old tip: the branch's own commits.
  ci_verify "$old" "$(git rev-parse HEAD)" broken
  expect 0 1
  # The server still holds it (not pruned yet): what the push added over it.
  ci_verify_in "$TEST_ROOT/server.git" "$old" "$(git rev-parse HEAD)" broken
  expect 0 1
  old=$(git rev-parse HEAD)
  git reset -q --hard HEAD~1
  commit_without_blob 6-forced "a forced broken output"
  git push -q --no-verify --force origin broken
  ci_verify "$old" "$(git rev-parse HEAD)" broken
  expect 1 1
  ci_verify_in "$TEST_ROOT/server.git" "$old" "$(git rev-parse HEAD)" broken
  expect 1 1
  git checkout -q main
}
case_ "a force push is checked on what it added, whether or not the clone has the old tip" force_push

deleted_branch() {
  local old
  old=$(git rev-parse broken)
  git push -q origin --delete broken
  ci_verify "$old" "$ZEROS" broken
  expect 0
  grep -q "nothing to check" "$TEST_ROOT/out" || fail "$(cat "$TEST_ROOT/out")"
}
case_ "a deleted branch has nothing to check" deleted_branch

pass
