#!/usr/bin/env bash
# Issue 46: clones that git checks out later. `git clone --no-checkout`
# then `git checkout`, and a submodule (`git submodule update` clones with
# --no-checkout, then checks the recorded commit out), are lean once
# checked out: no committed blob file in the work tree, status clean, and
# commits work. A tree that checks its store out (jpblob.lean=false, the
# .full run) has every committed blob file, as the user chose.
. "$(dirname "$0")/lib.sh"

# Local paths as submodule URLs: git refuses the file transport for
# submodules unless told (CVE-2022-39253).
git config --global protocol.file.allow always

new_installed_repo convs
commit_conversation 1-first "the first conversation's tool output"
commit_conversation 2-second "the second conversation's tool output"
tracked=$(git ls-files .jp/blobs | wc -l)
[ "$tracked" -gt 0 ] || fail "the repository tracks no blob"
# A branch without conversations, which a clone may check out first.
git checkout -q --orphan plain
git rm -rq --cached .
git clean -fdq
echo "no conversations here" > README
git add README && git commit -qm "a branch without conversations"
git checkout -q -f main
git init -q "$TEST_ROOT/super" && cd "$TEST_ROOT/super"
echo "a project" > README
git add README && git commit -qm "a project"
git submodule add -q "$TEST_ROOT/convs" convs > /dev/null 2>&1
git commit -qm "the conversations as a submodule"

# The clone in the current folder is lean (or, in the .full run, holds
# every committed blob file), its status clean, and a new conversation
# commits with its blobs.
check_clone() {
  local files
  files=$(find .jp/blobs -name '*.blob.gz' 2> /dev/null | wc -l)
  if lean_mode; then
    [ "$files" -eq 0 ] || fail "$files committed blob files in the work tree of a lean clone"
    [ "$(git config core.sparseCheckout)" = true ] || fail "the clone is not a sparse checkout"
  else
    [ "$files" -eq "$tracked" ] || fail "$files blob files checked out, $tracked committed"
  fi
  assert_clean_status
  cmp -s .jp/conversations/1-first/events.json "$TEST_ROOT/convs/.jp/conversations/1-first/events.json" ||
    fail "the conversation is not JP's form"
  write_conversation 3-new "a conversation written in this clone"
  git add .jp/conversations/3-new
  git commit -qm "a new conversation"
  assert_blobs_committed
  assert_clean_status
  if lean_mode; then
    [ -z "$(find .jp/blobs -name '*.blob.gz' 2> /dev/null)" ] || fail "the new blob stayed in the lean work tree"
  fi
}

no_checkout_then_checkout() {
  git clone -q --no-checkout "$TEST_ROOT/convs" "$TEST_ROOT/nc"
  cd "$TEST_ROOT/nc"
  git checkout -q main
  check_clone
}
case_ "git clone --no-checkout, then git checkout: lean, status clean, commits work" no_checkout_then_checkout

# The clone's own checkout had no conversation to filter, so nothing of
# git-jpblob's ran; the checkout that brings them makes it lean.
first_conversations_later() {
  git clone -q -b plain "$TEST_ROOT/convs" "$TEST_ROOT/later"
  cd "$TEST_ROOT/later"
  git checkout -q main
  check_clone
}
case_ "a clone of a branch without conversations, then git checkout of one with them: lean" first_conversations_later

submodule_update() {
  git clone -q "$TEST_ROOT/super" "$TEST_ROOT/s-update"
  cd "$TEST_ROOT/s-update"
  git submodule update -q --init
  assert_clean_status  # the superproject's, which looks into the submodule
  cd convs
  check_clone
}
case_ "git submodule update --init: the conversations' submodule is lean, status clean, commits work" submodule_update

recurse_submodules() {
  git clone -q --recurse-submodules "$TEST_ROOT/super" "$TEST_ROOT/s-recurse"
  cd "$TEST_ROOT/s-recurse"
  assert_clean_status
  cd convs
  check_clone
}
case_ "git clone --recurse-submodules: the submodule is lean, status clean, commits work" recurse_submodules

# A rebase runs post-checkout after checking out the commit it replays
# onto, then goes on with the index it holds in memory: a tree made lean
# there lost its skip-worktree bits while its blob files were gone, in one
# round of three or so. So the hook leaves a tree alone during a rebase
# (which the first check tells every time), and the tree becomes lean at
# its next commit.
rebase_brings_blobs() {
  local round
  for round in 1 2 3; do
    git init -q "$TEST_ROOT/pre-$round" && cd "$TEST_ROOT/pre-$round"
    write_conversation 1-first "inline before adoption, round $round"
    git add .jp && git commit -qm "before adoption"
    git clone -q "$TEST_ROOT/pre-$round" "$TEST_ROOT/carol-$round"
    (cd "$TEST_ROOT/carol-$round" && echo "her notes" > notes && git add notes && git commit -qm "her own commit")
    install_jpblob
    git add .gitattributes && git add --renormalize .jp && git commit -qm "adopt git-jpblob"
    cd "$TEST_ROOT/carol-$round"
    git pull -q --rebase > /dev/null 2>&1 || fail "git pull --rebase stopped"
    [ "$(git config core.sparseCheckout)" != true ] || fail "round $round: made lean during the rebase"
    ! git status --porcelain | grep '^ D' || fail "round $round: blob files are gone from a tree git does not keep them out of"
    echo "more notes" >> notes
    git add -A && git commit -qm "her next commit" > /dev/null
    assert_blobs_committed
    if lean_mode; then
      [ -z "$(find .jp/blobs -name '*.blob.gz' 2> /dev/null)" ] || fail "round $round: not lean after the next commit"
    fi
    assert_clean_status
  done
}
case_ "git pull --rebase that brings a clone its first blobs loses none; the next commit makes it lean" rebase_brings_blobs

pass
