#!/usr/bin/env bash
# Hooks that are not git-jpblob's (issue 46), and a remote-tracking ref the
# server no longer stands by. Each time a commit lacking its blob is either refused with the reason
# or caught by git-jpblob's check at push, beside the other hooks, which
# keep running.
# The servers run no hook of git-jpblob's (a team's first days, or a host
# that runs none): what they take, every clone gets.
. "$(dirname "$0")/lib.sh"
command -v pre-commit > /dev/null || fail "pre-commit (the framework) is not installed: install/deps.sh installs it"
command -v git-lfs > /dev/null || fail "git-lfs is not installed: install/deps.sh installs it"
HM="${JPBLOB_HOOK_MANAGERS:-}"
[ -x "$HM/husky" ] || fail "husky is not installed: run install/hook-managers.sh"
export PRE_COMMIT_HOME="$TEST_ROOT/pre-commit-cache"
cd "$TEST_ROOT" && git jpblob install --global > /dev/null

# Alice's repository, adopted, with one conversation, on a server.
git init -q --bare "$TEST_ROOT/server.git"
new_installed_repo alice
git remote add origin "$TEST_ROOT/server.git"
commit_conversation 1-alice "alice's tool output"
git push -q origin main
cd "$TEST_ROOT"

# A teammate of her own: her own HOME, with git-jpblob installed for her
# user as the README says, and whatever `extra` global config follows.
teammate() {
  export HOME="$TEST_ROOT/home-$1"
  mkdir -p "$HOME"
  cp "$TEST_ROOT/home/.gitconfig" "$HOME/.gitconfig"
}

# A force push on the server drops a commit lacking its blob; Bob's
# origin/feature still names it (he has not fetched since). Pushing it on
# must be checked: what the server has is the server's own answer.
stale_tracking_ref() {
  local remote="$TEST_ROOT/stale.git"
  git init -q --bare "$remote"
  new_installed_repo stale-alice
  git remote add origin "$remote"
  git push -q origin main
  git clone -q "$remote" "$TEST_ROOT/stale-bob"
  (cd "$TEST_ROOT/stale-bob" && install_jpblob)   # his hooks on
  git checkout -qb feature
  write_conversation 3-dropped "tool output the server dropped"
  git add .jp/conversations/3-dropped
  git commit -q --no-verify -m dropped
  git push -q --no-verify origin feature
  (cd "$TEST_ROOT/stale-bob" && git fetch -q && git rev-parse -q --verify origin/feature > /dev/null) ||
    fail "bob has no origin/feature"
  git push -q --force origin main:feature
  cd "$TEST_ROOT/stale-bob"
  [ "$(git rev-parse origin/feature)" != "$(git -C "$remote" rev-parse feature)" ] || fail "bob's origin/feature is not stale"
  # Bob takes origin/feature into main (fast-forward) and pushes it.
  if git push -q origin refs/remotes/origin/feature:refs/heads/main 2> "$TEST_ROOT/err"; then
    fail "a commit the server had dropped went through unchecked"
  fi
  grep -q "3-dropped/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
}
case_ "a stale origin/feature after a force push on the server: the dropped commit is checked when Bob pushes it" \
  stale_tracking_ref

pass
