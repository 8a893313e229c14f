#!/usr/bin/env bash
# Hooks that are not git-jpblob's (issue 46): a machine-wide core.hooksPath,
# git-lfs set up first, the pre-commit framework set up first, husky without
# git-jpblob's line; and a remote-tracking ref the server no longer stands
# by. Each time a commit lacking its blob is either refused with the reason
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

# A teammate of Alice's: her own HOME, with git-jpblob installed for her
# user, as the README says.
teammate() {
  export HOME="$TEST_ROOT/home-$1"
  mkdir -p "$HOME"
  cp "$TEST_ROOT/home/.gitconfig" "$HOME/.gitconfig"
}

# Carol's company sets core.hooksPath for every repository of hers, to a
# folder with its own pre-commit hook. git-jpblob cannot put its hook
# there unasked (other repositories and other people share it), so a
# commit of a new conversation is refused, saying why and how to have
# both; once chained, her commits hold their blobs and the company's hook
# still runs.
company_hooks_path() {
  teammate carol
  local company="$TEST_ROOT/company-hooks" before
  mkdir -p "$company"
  printf '#!/bin/sh\necho "company hook ran" >> "%s/company.log"\n' "$TEST_ROOT" > "$company/pre-commit"
  chmod +x "$company/pre-commit"
  cp "$company/pre-commit" "$TEST_ROOT/company-pre-commit"
  git config --global core.hooksPath "$company"
  git clone -q "$TEST_ROOT/server.git" "$TEST_ROOT/carol" 2> "$TEST_ROOT/err" || fail "the clone failed: $(cat "$TEST_ROOT/err")"
  cd "$TEST_ROOT/carol"
  cmp -s "$company/pre-commit" "$TEST_ROOT/company-pre-commit" || fail "the clone changed the company's hook"
  [ "$(ls "$company")" = pre-commit ] || fail "the clone wrote into the company's folder: $(ls "$company")"
  write_conversation 2-carol "carol's tool output"
  before=$(git rev-parse HEAD)
  if git add .jp/conversations 2> "$TEST_ROOT/err" && git commit -qm carol 2>> "$TEST_ROOT/err"; then
    assert_blobs_committed
    fail "a commit was made with no word of git-jpblob's check: $(cat "$TEST_ROOT/err")"
  fi
  [ "$(git rev-parse HEAD)" = "$before" ] || fail "a commit was made"
  grep -q "$company" "$TEST_ROOT/err" || fail "the refusal does not name the hooks folder: $(cat "$TEST_ROOT/err")"
  grep -q "jpblob pre-commit" "$TEST_ROOT/err" || fail "the refusal does not say what to add: $(cat "$TEST_ROOT/err")"
  # The way the refusal gives: git-jpblob's hooks chained beside the company's.
  git jpblob install --force > "$TEST_ROOT/out" 2>&1 || fail "install --force failed: $(cat "$TEST_ROOT/out")"
  rm -f "$TEST_ROOT/company.log"
  git add .jp/conversations 2> "$TEST_ROOT/err" || fail "git add refused once chained: $(cat "$TEST_ROOT/err")"
  git commit -qm carol 2> "$TEST_ROOT/err" || fail "the commit failed once chained: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  grep -q "company hook ran" "$TEST_ROOT/company.log" || fail "the company's hook no longer runs"
  git push -q origin HEAD:carol 2> "$TEST_ROOT/err" || fail "the push failed: $(cat "$TEST_ROOT/err")"
  git clone -q -b carol "$TEST_ROOT/server.git" "$TEST_ROOT/carol-check" 2> "$TEST_ROOT/err" ||
    fail "a teammate's checkout of carol's commit failed: $(cat "$TEST_ROOT/err")"
}
case_ "a machine-wide core.hooksPath: no commit lacking its blob is made silently, and the company's hook still runs" \
  company_hooks_path

# git-lfs set up first: its pre-push stands where git-jpblob's would. install
# chains it as the filter does in a clone, so a commit made past the
# pre-commit hook is refused at push, and git-lfs still sends its objects.
lfs_first() {
  local remote="$TEST_ROOT/lfs-server.git" oid
  git lfs install --skip-repo > /dev/null
  git init -q --bare "$remote"
  git init -q "$TEST_ROOT/lfs-first" && cd "$TEST_ROOT/lfs-first"
  git lfs install > /dev/null
  grep -q "git lfs pre-push" .git/hooks/pre-push || fail "git-lfs wrote no pre-push hook"
  install_jpblob
  git remote add origin "$remote"
  git lfs track '*.bin' > /dev/null
  head -c 100000 /dev/urandom > data.bin
  git add .gitattributes data.bin
  commit_conversation 1-good "a conversation beside an LFS file"
  oid=$(git lfs ls-files -l | awk '/data.bin/ {print $1}')
  git push -q origin main 2> "$TEST_ROOT/err" || fail "a good push failed: $(cat "$TEST_ROOT/err")"
  find "$remote/lfs/objects" -name "$oid" | grep -q . || fail "the LFS object never reached the server"
  write_conversation 2-unchecked "tool output committed past the pre-commit hook"
  git add .jp/conversations/2-unchecked
  git commit -q --no-verify -m unchecked
  if git push -q origin main 2> "$TEST_ROOT/err"; then fail "a commit lacking its blob was pushed unchecked"; fi
  grep -q "2-unchecked/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
  [ "$(git -C "$remote" rev-parse main)" != "$(git rev-parse HEAD)" ] || fail "the server got the commit"
}
case_ "git-lfs set up first: a --no-verify commit lacking its blob is refused at push, and git-lfs still runs" lfs_first

# The pre-commit framework set up first, as the README says, with a hook of
# the team's own beside git-jpblob's. The framework hands its configuration
# one ref of a push: git-jpblob's check sees every one.
framework_first() {
  local remote="$TEST_ROOT/fw-server.git"
  git init -q --bare "$remote"
  git init -q "$TEST_ROOT/fw" && cd "$TEST_ROOT/fw"
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: local
    hooks:
      - id: team-check
        name: the team's own check
        entry: sh -c 'echo ran >> "$TEST_ROOT/team.log"'
        language: system
        pass_filenames: false
        always_run: true
        stages: [commit, push]
      - id: git-jpblob
        name: git-jpblob
        entry: git jpblob pre-commit
        language: system
        pass_filenames: false
        always_run: true
        stages: [commit]
      - id: git-jpblob-pre-push
        name: git-jpblob pre-push
        entry: git jpblob pre-push
        language: system
        pass_filenames: false
        always_run: true
        stages: [push]
YAML
  pre-commit install --hook-type pre-commit --hook-type pre-push > /dev/null
  install_jpblob
  grep -q "pre-commit.com" .git/hooks/pre-commit || fail "install replaced the framework's hook"
  grep -q "pre-commit.com" .git/hooks/pre-push || fail "install replaced the framework's pre-push hook"
  git remote add origin "$remote"
  git add .gitattributes .pre-commit-config.yaml && git commit -qm setup > /dev/null
  git push -q origin main > "$TEST_ROOT/out" 2>&1 || fail "the first push failed: $(cat "$TEST_ROOT/out")"
  git checkout -qb good
  commit_conversation 1-good "a good conversation" > /dev/null
  git checkout -q main && git checkout -qb lacking
  write_conversation 2-lacking "tool output committed without its blob"
  git add .jp/conversations/2-lacking
  git commit -q --no-verify -m lacking
  rm -f "$TEST_ROOT/team.log"
  # Two refs, the good one first: the framework's configuration sees that one alone.
  if git push -q origin good lacking > "$TEST_ROOT/err" 2>&1; then fail "the second ref, lacking its blob, was pushed"; fi
  grep -q "2-lacking/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
  ! git -C "$remote" rev-parse -q --verify refs/heads/lacking > /dev/null || fail "the server got the commit lacking its blob"
  grep -q ran "$TEST_ROOT/team.log" || fail "the team's own hook did not run at the push"
  git push -q origin good > "$TEST_ROOT/err" 2>&1 || fail "the good branch alone was refused: $(cat "$TEST_ROOT/err")"
}
case_ "the pre-commit framework set up first: a push of two branches checks both, and the team's hook still runs" \
  framework_first

# husky owns the hooks folder (core.hooksPath=.husky/_) and the team has not
# added git-jpblob's line to .husky/pre-commit yet: new content is refused,
# naming the line; once it is there, commits hold their blobs and the
# team's own line still runs.
husky_without_the_line() {
  git clone -q "$TEST_ROOT/server.git" "$TEST_ROOT/husky" && cd "$TEST_ROOT/husky"
  "$HM/husky" > /dev/null
  printf 'echo "team hook ran" >> "%s/husky.log"\n' "$TEST_ROOT" > .husky/pre-commit
  write_conversation 2-husky "tool output under husky"
  if git add .jp/conversations 2> "$TEST_ROOT/err" && git commit -qm husky 2>> "$TEST_ROOT/err"; then
    assert_blobs_committed
    fail "a commit was made with no word of git-jpblob's check: $(cat "$TEST_ROOT/err")"
  fi
  grep -q ".husky/pre-commit" "$TEST_ROOT/err" || fail "the refusal does not name the line to add: $(cat "$TEST_ROOT/err")"
  printf 'git jpblob pre-commit\n' >> .husky/pre-commit
  git add .jp/conversations 2> "$TEST_ROOT/err" || fail "git add refused with the line there: $(cat "$TEST_ROOT/err")"
  git commit -qm husky 2> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  grep -q "team hook ran" "$TEST_ROOT/husky.log" || fail "the team's own hook did not run"
}
case_ "husky without git-jpblob's line: new content is refused, naming the line; with it, commits hold their blobs" \
  husky_without_the_line

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
