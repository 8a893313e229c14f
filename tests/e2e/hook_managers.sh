#!/usr/bin/env bash
# The hook managers, the real ones: the pre-commit framework (Debian),
# husky and lefthook (npm, install/hook-managers.sh). Each keeps the hooks
# folder; git-jpblob never writes into it, its check runs from a line in
# the manager's configuration, in all three commit modes, and the warnings
# name that line instead of advising --force.
. "$(dirname "$0")/lib.sh"
HM="${JPBLOB_HOOK_MANAGERS:-}"
command -v pre-commit > /dev/null || fail "pre-commit (the framework) is not installed: install/deps.sh installs it"
[ -x "$HM/husky" ] && [ -x "$HM/lefthook" ] || fail "husky and lefthook are not installed: run install/hook-managers.sh"
export PRE_COMMIT_HOME="$TEST_ROOT/pre-commit-cache"
cd "$TEST_ROOT" && git jpblob install --global > /dev/null

managed_repo() {
  git init -q "$TEST_ROOT/$1"
  cd "$TEST_ROOT/$1"
  git config jpblob.autoInstallHook false   # as if the manager came first
}

# Commits a new conversation in each of git's three commit modes, checking
# each commit holds every blob it references.
three_commit_modes() {
  write_conversation "1-plain-$1" "tool output for git commit ($1)"
  git add .jp && git commit -qm "plain" 2> "$TEST_ROOT/err" || fail "git commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  write_conversation "2-all-$1" "tool output for git commit -a ($1)"
  git add -N .jp/conversations/"2-all-$1"
  git commit -qam "all" 2> "$TEST_ROOT/err" || fail "git commit -a failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  write_conversation "3-paths-$1" "tool output for git commit <paths> ($1)"
  git add -N .jp/conversations/"3-paths-$1"
  git commit -qm "paths" -- .jp/conversations/"3-paths-$1" 2> "$TEST_ROOT/err" ||
    fail "git commit <paths> failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
}

# git commands print no warning about the hooks.
quiet() {
  git status > /dev/null 2> "$TEST_ROOT/err"
  rm -rf .jp/conversations && git checkout -q -- .jp 2>> "$TEST_ROOT/err"
  if grep -q "warning" "$TEST_ROOT/err"; then fail "a warning remains: $(cat "$TEST_ROOT/err")"; fi
}

# The pre-commit framework's configuration with git-jpblob as a local entry.
local_framework_config() {
  cat > .pre-commit-config.yaml <<'YAML'
repos:
  - repo: local
    hooks:
      - id: git-jpblob
        name: git-jpblob
        entry: git jpblob pre-commit
        language: system
        pass_filenames: false
        always_run: true
YAML
}

pre_commit_framework() {
  managed_repo framework
  local_framework_config
  git add .pre-commit-config.yaml && git commit -qm config --no-verify
  pre-commit install > /dev/null
  git config --unset jpblob.autoInstallHook
  git jpblob install > "$TEST_ROOT/out"
  grep -q "Left the hooks to pre-commit (the framework), whose configuration runs git-jpblob's check" "$TEST_ROOT/out" ||
    fail "install did not recognise the framework: $(cat "$TEST_ROOT/out")"
  grep -q "pre-commit.com" .git/hooks/pre-commit || fail "install replaced the framework's hook"
  git add .gitattributes && git commit -qm attributes
  three_commit_modes framework
  quiet
}
case_ "pre-commit (the framework): git-jpblob runs from .pre-commit-config.yaml in all three commit modes" pre_commit_framework

# Without git-jpblob in the framework's configuration, install puts its
# hooks where the framework runs them first (<hook>.legacy, or the hook
# itself where the framework has none): commits are checked all the same.
# Where that place is taken by a hook of the user's, `git add` of new
# content is refused, and the warning names the configuration, never
# --force (which would break the framework).
pre_commit_framework_warns() {
  managed_repo framework-warn
  printf 'repos: []\n' > .pre-commit-config.yaml
  pre-commit install > /dev/null
  git config --unset jpblob.autoInstallHook
  git jpblob install > "$TEST_ROOT/out"
  grep -q "as pre-commit.legacy, which the framework runs before its configuration" "$TEST_ROOT/out" ||
    fail "install did not put its hook where the framework runs it: $(cat "$TEST_ROOT/out")"
  grep -q "pre-commit.com" .git/hooks/pre-commit || fail "install replaced the framework's hook"
  git add .gitattributes .pre-commit-config.yaml && git commit -qm setup > /dev/null
  write_conversation 1-checked "tool output checked through the legacy hook"
  git add .jp/conversations 2> "$TEST_ROOT/err"
  git commit -qm checked > /dev/null 2>> "$TEST_ROOT/err" || fail "the commit failed: $(cat "$TEST_ROOT/err")"
  assert_blobs_committed
  ! grep -q "warning" "$TEST_ROOT/err" || fail "a warning though the check runs: $(cat "$TEST_ROOT/err")"
  # The legacy place taken by a hook of the user's.
  git jpblob uninstall > /dev/null
  [ ! -e .git/hooks/pre-commit.legacy ] || fail "uninstall left git-jpblob's legacy hook"
  printf '#!/bin/sh\nexit 0\n' > .git/hooks/pre-commit.legacy && chmod +x .git/hooks/pre-commit.legacy
  git jpblob install > "$TEST_ROOT/out"
  grep -q ".pre-commit-config.yaml" "$TEST_ROOT/out" || fail "install gave no advice: $(cat "$TEST_ROOT/out")"
  write_conversation 2-warn "tool output no hook checks"
  if git add .jp/conversations 2> "$TEST_ROOT/err"; then fail "new content was taken though no hook checks it"; fi
  grep -q "warning: commits here are not checked.*\.pre-commit-config\.yaml" "$TEST_ROOT/err" ||
    fail "the warning does not name the framework's config: $(cat "$TEST_ROOT/err")"
  if grep -q -- "--force" "$TEST_ROOT/err" "$TEST_ROOT/out"; then fail "--force advised, which breaks the framework"; fi
}
case_ "pre-commit (the framework) without git-jpblob in its config: its legacy hook checks, else the warning names the config, never --force" \
  pre_commit_framework_warns

manifest() {
  local src="${JPBLOB_SOURCE_DIR:-}" rev
  if [ -z "$src" ] || ! rev=$(git -C "$src" rev-parse -q --verify HEAD 2> /dev/null) ||
    ! git -C "$src" cat-file -e "HEAD:.pre-commit-hooks.yaml" 2> /dev/null; then
    echo "(the source is no git checkout holding .pre-commit-hooks.yaml: nothing to try)"
    return 0
  fi
  managed_repo framework-manifest
  git init -q --bare "$TEST_ROOT/framework-remote.git"
  git remote add origin "$TEST_ROOT/framework-remote.git"
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $src
    rev: $rev
    hooks:
      - id: git-jpblob
      - id: git-jpblob-pre-push
YAML
  pre-commit install --hook-type pre-commit --hook-type pre-push > /dev/null
  git config --unset jpblob.autoInstallHook
  git jpblob install > /dev/null
  git add .gitattributes .pre-commit-config.yaml && git commit -qm setup 2> "$TEST_ROOT/err"
  three_commit_modes manifest
  # The README's configuration names the hooks by id: no warning that
  # commits are not checked, at any commit or checkout.
  ! grep -q "not checked" "$TEST_ROOT/err" || fail "warned under the README's configuration: $(cat "$TEST_ROOT/err")"
  quiet
  git push -q origin HEAD:main 2> "$TEST_ROOT/err" || fail "the push of good commits failed: $(cat "$TEST_ROOT/err")"
  # A commit without its blob, made past the hook: the framework's pre-push
  # runs git-jpblob's and refuses it.
  write_conversation 4-unchecked "tool output committed without its blob"
  git add .jp/conversations/4-unchecked
  git rm -q --cached -r --sparse .jp/blobs   # (--sparse: a lean clone keeps them out of the work tree)
  git commit -q --no-verify -m unchecked
  # (the framework prints its hooks' output on standard output)
  if git push -q origin HEAD:main > "$TEST_ROOT/err" 2>&1; then fail "a commit lacking its blob was pushed"; fi
  grep -q "4-unchecked/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
}
case_ "the .pre-commit-hooks.yaml manifest: both hooks from this repository, the pre-push one refusing a commit lacking its blob" manifest

# `pre-commit install` over git-jpblob's own hook keeps it as
# pre-commit.legacy and runs it before its configuration, which runs
# git-jpblob too: the check runs once.
framework_over_our_hook() {
  git init -q "$TEST_ROOT/over" && cd "$TEST_ROOT/over"
  install_jpblob
  local_framework_config
  pre-commit install > /dev/null
  grep -q "jpblob pre-commit" .git/hooks/pre-commit.legacy || fail "the framework did not keep git-jpblob's hook as legacy"
  write_conversation 1-once "tool output checked once"
  sleep 1.1  # past git's racy window: a refresh would clean the file again and write the blob itself
  git add .jp
  remove_blob_files "$(printf '%s' "tool output checked once" | sha256sum | cut -c1-64)"
  if git commit -qm once > "$TEST_ROOT/err" 2>&1; then fail "committed a conversation whose blob is missing"; fi
  local n
  n=$(grep -c "is missing" "$TEST_ROOT/err")
  [ "$n" -eq 1 ] || fail "the check ran $n times: $(cat "$TEST_ROOT/err")"
  # Without git-jpblob in the configuration, the legacy hook is the check;
  # an entry commented out is none.
  printf 'repos: []\n' > .pre-commit-config.yaml
  if git commit -qm once > "$TEST_ROOT/err" 2>&1; then fail "the legacy hook alone did not check"; fi
  grep -q "is missing" "$TEST_ROOT/err" || fail "no check without the configuration's entry: $(cat "$TEST_ROOT/err")"
  local_framework_config
  sed -i 's/^/# /' .pre-commit-config.yaml
  printf 'repos: []\n' >> .pre-commit-config.yaml
  if git commit -qm once > "$TEST_ROOT/err" 2>&1; then fail "a commented-out entry turned the check off"; fi
  grep -q "is missing" "$TEST_ROOT/err" || fail "no check beside a commented-out entry: $(cat "$TEST_ROOT/err")"
  # Nor is a hook whose name or comment mentions the command (an
  # apostrophe in a plain scalar once hid the comment from the reading).
  cat > .pre-commit-config.yaml <<'YAML'
repos:
  - repo: local
    hooks:
      - id: push-check
        name: git-jpblob's push check, beside git jpblob pre-commit in the legacy hook
        entry: git jpblob pre-push  # the commit check (git jpblob pre-commit) runs from the legacy hook
        language: system
        pass_filenames: false
        always_run: true
        stages: [push]
YAML
  if git commit -qm once > "$TEST_ROOT/err" 2>&1; then fail "a name or comment naming the command turned the check off"; fi
  grep -q "is missing" "$TEST_ROOT/err" || fail "no check beside a hook that only names it: $(cat "$TEST_ROOT/err")"
  # The configuration the framework's hook runs (`pre-commit install -c`),
  # not the default file, says whether git-jpblob's check is in it.
  local_framework_config
  printf 'repos: []\n' > ci-hooks.yaml
  pre-commit install -c ci-hooks.yaml > /dev/null
  grep -q "config=ci-hooks.yaml" .git/hooks/pre-commit || fail "the framework's hook does not name its configuration"
  if git commit -qm once > "$TEST_ROOT/err" 2>&1; then fail "the default configuration's entry turned the check off"; fi
  grep -q "is missing" "$TEST_ROOT/err" || fail "no check under another configuration: $(cat "$TEST_ROOT/err")"
}
case_ "pre-commit install over git-jpblob's own hook: the check runs once, from the framework's configuration" framework_over_our_hook

# A repository that took up git-lfs after git-jpblob, whose pre-push hook
# then runs git-lfs's in its place (tests/e2e/pre_push.sh), and then the
# pre-commit framework for its pushes: `pre-commit install --hook-type
# pre-push` moves git-jpblob's hook to pre-push.legacy, which the framework
# runs with git's arguments and input before its configuration. The LFS
# objects reach the server whether the configuration runs git-jpblob's
# check or not, and the check runs once.
framework_over_lfs_pre_push() {
  command -v git-lfs > /dev/null || fail "git-lfs is not installed (install/deps.sh installs it)"
  git lfs install --skip-repo > /dev/null
  local remote="$TEST_ROOT/lfs-framework.git" oid1 oid2 n
  git init -q --bare "$remote"
  new_installed_repo lfs-framework
  git remote add origin "$remote"
  git lfs install > /dev/null 2>&1 || true
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "git-lfs replaced git-jpblob's hook"
  cat > .pre-commit-config.yaml <<'YAML'
repos:
  - repo: local
    hooks:
      - id: git-jpblob-pre-push
        name: git-jpblob pre-push
        entry: git jpblob pre-push
        language: system
        pass_filenames: false
        always_run: true
        stages: [push]
YAML
  pre-commit install --hook-type pre-push > /dev/null
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push.legacy || fail "the framework did not keep git-jpblob's hook"
  git lfs track '*.bin' > /dev/null
  head -c 100000 /dev/urandom > one.bin
  git add .gitattributes .pre-commit-config.yaml one.bin
  commit_conversation 1-lfs "a conversation beside an LFS file"
  oid1=$(git lfs ls-files -l | awk '/one.bin/ {print $1}')
  [ -n "$oid1" ] || fail "one.bin is not in git-lfs"
  git push -q origin HEAD:main > "$TEST_ROOT/out" 2>&1 || fail "the push failed: $(cat "$TEST_ROOT/out")"
  find "$remote/lfs/objects" -name "$oid1" 2> /dev/null | grep -q . ||
    fail "the LFS object never reached the server under the framework's hook"
  # A commit lacking its blob: refused by the configuration's run, once.
  write_conversation 2-unchecked "tool output committed without its blob"
  git add .jp/conversations/2-unchecked
  git rm -q --cached -r --sparse .jp/blobs   # (--sparse: a lean work tree keeps them out of the work tree)
  git commit -q --no-verify -m unchecked
  if git push -q origin HEAD:main > "$TEST_ROOT/err" 2>&1; then fail "a commit lacking its blob was pushed"; fi
  grep -q "2-unchecked/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
  n=$(grep -c "push refused" "$TEST_ROOT/err" || true)
  [ "$n" -eq 1 ] || fail "the check ran $n times: $(cat "$TEST_ROOT/err")"
  git reset -q --hard HEAD~1
  # Without git-jpblob in the configuration the legacy hook is the check,
  # and it still sends the LFS objects.
  printf 'repos: []\n' > .pre-commit-config.yaml
  head -c 100000 /dev/urandom > two.bin
  git add .pre-commit-config.yaml two.bin
  commit_conversation 3-lfs "a second conversation beside an LFS file"
  oid2=$(git lfs ls-files -l | awk '/two.bin/ {print $1}')
  git push -q origin HEAD:main > "$TEST_ROOT/out" 2>&1 || fail "the second push failed: $(cat "$TEST_ROOT/out")"
  find "$remote/lfs/objects" -name "$oid2" 2> /dev/null | grep -q . ||
    fail "the LFS object never reached the server through the legacy hook alone"
  git clone -q "$remote" "$TEST_ROOT/lfs-framework-clone"
  cmp -s two.bin "$TEST_ROOT/lfs-framework-clone/two.bin" || fail "the clone's two.bin differs"
  cmp -s .jp/conversations/3-lfs/events.json "$TEST_ROOT/lfs-framework-clone/.jp/conversations/3-lfs/events.json" ||
    fail "the clone's conversation differs"
}
case_ "git-lfs taken up after git-jpblob, then the framework's pre-push over git-jpblob's: the LFS objects reach the server, the check runs once" framework_over_lfs_pre_push

# The framework hands its configuration one ref of a push at most, and no
# range at all for a branch new to the remote. git-jpblob's own hook, as
# the framework's legacy hook, sees the whole push (its run has git's
# input): over git-jpblob's hook, which `pre-commit install` moved there,
# and with the framework first, as the README sets it up, where install
# puts it there.
framework_push_sees_every_ref() {
  local first="$1" remote="$TEST_ROOT/every-$1.git"
  git init -q --bare "$remote"
  if [ "$first" = git-jpblob ]; then
    new_installed_repo "every-$first"
    local_framework_config
    sed -i 's/id: git-jpblob$/id: git-jpblob-pre-push/; s/jpblob pre-commit/jpblob pre-push/' .pre-commit-config.yaml
    printf '        stages: [push]\n' >> .pre-commit-config.yaml
    pre-commit install --hook-type pre-push > /dev/null
    grep -q "git-jpblob pre-push hook" .git/hooks/pre-push.legacy || fail "the framework did not keep git-jpblob's hook"
  else
    managed_repo "every-$first"
    local_framework_config
    sed -i 's/id: git-jpblob$/id: git-jpblob-pre-push/; s/jpblob pre-commit/jpblob pre-push/' .pre-commit-config.yaml
    printf '        stages: [push]\n' >> .pre-commit-config.yaml
    pre-commit install --hook-type pre-commit --hook-type pre-push > /dev/null
    git config --unset jpblob.autoInstallHook
    git jpblob install > /dev/null
    grep -q "git-jpblob pre-push hook" .git/hooks/pre-push.legacy || fail "install put no hook where the framework runs it"
    git add .gitattributes && git commit -q --no-verify -m attributes
  fi
  git remote add origin "$remote"
  git add .pre-commit-config.yaml && git commit -q --no-verify -m config
  git branch good
  write_conversation 1-lacking "tool output committed without its blob ($first)"
  git add .jp/conversations/1-lacking
  git rm -q --cached -r --sparse .jp/blobs 2> /dev/null || true
  git commit -q --no-verify -m lacking
  # The first push holds the root commit.
  if git push -q origin HEAD:main > "$TEST_ROOT/err" 2>&1; then fail "the first push, root and all, went through"; fi
  grep -q "1-lacking/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
  git push -q origin good > "$TEST_ROOT/err" 2>&1 || fail "the push of a good branch failed: $(cat "$TEST_ROOT/err")"
  # Two refs, each with commits new to the remote, the good one first: the
  # framework's configuration sees that one alone, so only the legacy run
  # can check the second (where the framework came first, install put
  # git-jpblob's hook there).
  git branch good2 "$(git commit-tree -p good -m more "good^{tree}")"
  git push -q origin good2 HEAD:main > "$TEST_ROOT/err" 2>&1 && fail "a second ref lacking its blob went through"
  grep -q "1-lacking/events.json" "$TEST_ROOT/err" || fail "the refusal names no conversation: $(cat "$TEST_ROOT/err")"
  ! git -C "$remote" rev-parse -q --verify refs/heads/main > /dev/null || fail "the remote got the commit lacking its blob"
}
case_ "the framework's pre-push over git-jpblob's own: a first push and the second of two refs are checked" \
  framework_push_sees_every_ref git-jpblob
case_ "the framework first, as the README sets it up: a first push, root commit and all, and the second of two refs are checked" \
  framework_push_sees_every_ref framework

# The framework's variables alone make no legacy run: a push made inside
# another hook the framework runs as legacy (a post-commit that pushes)
# inherits PRE_COMMIT_RUNNING_LEGACY, and git-jpblob's own pre-push there
# still sends the LFS objects it owes.
inherited_legacy_variable() {
  command -v git-lfs > /dev/null || fail "git-lfs is not installed (install/deps.sh installs it)"
  git lfs install --skip-repo > /dev/null
  local remote="$TEST_ROOT/lfs-inherited.git" oid
  git init -q --bare "$remote"
  new_installed_repo lfs-inherited
  git remote add origin "$remote"
  git lfs install > /dev/null 2>&1 || true
  git lfs track '*.bin' > /dev/null
  head -c 100000 /dev/urandom > one.bin
  git add .gitattributes one.bin
  commit_conversation 1-lfs "a conversation beside an LFS file (inherited)"
  oid=$(git lfs ls-files -l | awk '/one.bin/ {print $1}')
  PRE_COMMIT_RUNNING_LEGACY=1 PRE_COMMIT=1 git push -q origin HEAD:main > "$TEST_ROOT/out" 2>&1 ||
    fail "the push failed: $(cat "$TEST_ROOT/out")"
  find "$remote/lfs/objects" -name "$oid" 2> /dev/null | grep -q . || fail "the LFS object never reached the server"
}
case_ "a push that inherits the framework's variables still sends the LFS objects git-jpblob's hook owes" inherited_legacy_variable

husky() {
  managed_repo husky
  "$HM/husky" > /dev/null
  [ "$(git config core.hooksPath)" = ".husky/_" ] || fail "husky did not take the hooks folder"
  git config --unset jpblob.autoInstallHook
  git jpblob install > "$TEST_ROOT/out"
  grep -q ".husky/pre-commit" "$TEST_ROOT/out" || fail "install gave no advice for husky: $(cat "$TEST_ROOT/out")"
  if grep -rq jpblob .husky/_; then fail "git-jpblob wrote into husky's folder"; fi
  printf 'git jpblob pre-commit\n' > .husky/pre-commit
  git add .gitattributes .husky/pre-commit && git commit -qm husky
  three_commit_modes husky
  if grep -rq jpblob .husky/_; then fail "git-jpblob wrote into husky's folder"; fi
  quiet
  git jpblob install | grep -q "Left the hooks to husky, whose configuration runs git-jpblob's check" ||
    fail "install did not see the line"
}
case_ "husky: git-jpblob runs from .husky/pre-commit in all three commit modes and never writes into .husky/_" husky

lefthook() {
  export PATH="$HM:$PATH"   # as a team has it (npm's node_modules/.bin, or a global install)
  managed_repo lefthook
  cat > lefthook.yml <<'YAML'
pre-commit:
  commands:
    git-jpblob:
      run: git jpblob pre-commit
YAML
  "$HM/lefthook" install > /dev/null
  grep -q lefthook .git/hooks/pre-commit || fail "lefthook did not install its hook"
  git config --unset jpblob.autoInstallHook
  git jpblob install > "$TEST_ROOT/out"
  grep -q "Left the hooks to lefthook, whose configuration runs git-jpblob's check" "$TEST_ROOT/out" ||
    fail "install did not recognise lefthook: $(cat "$TEST_ROOT/out")"
  grep -q lefthook .git/hooks/pre-commit || fail "install replaced lefthook's hook"
  git add .gitattributes lefthook.yml && git commit -qm lefthook
  three_commit_modes lefthook
  quiet
}
case_ "lefthook: git-jpblob runs from lefthook.yml in all three commit modes" lefthook

pass
