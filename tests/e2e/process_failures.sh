#!/usr/bin/env bash
# A missing blob at checkout fails clearly, naming the digest, and
# JPBLOB_SKIP_SMUDGE=1 gets past it; the filter disabled with an empty
# `-c filter.jpblob.process=`; and the repository used where git-jpblob is
# not installed at all.
. "$(dirname "$0")/lib.sh"
new_installed_repo
write_conversation 1-gone "output whose blob will go missing"
conv=.jp/conversations/1-gone/events.json
cp "$conv" "$TEST_ROOT/original.json"
git add .jp/conversations
git commit -qm gone --no-verify  # its blobs are in no commit: the work tree holds the only copies
digest=$(printf 'output whose blob will go missing' | sha256sum | cut -c1-64)

# The only copies of the blobs go: no commit, no index holds them.
missing_blob() {
  rm "$conv"
  remove_store
  if git checkout -- "$conv" 2> "$TEST_ROOT/err"; then fail "checkout succeeded without the blob"; fi
  grep -q "blob [0-9a-f]\{64\} referenced by $conv is missing" "$TEST_ROOT/err" ||
    fail "no clear message: $(cat "$TEST_ROOT/err")"
  grep -q "$digest\|$(printf '%s' "$CONVERSATION_ARGUMENT" | sha256sum | cut -c1-64)" "$TEST_ROOT/err" || fail "wrong digest: $(cat "$TEST_ROOT/err")"
  [ ! -e "$conv" ] || fail "a failed checkout left a file"
  JPBLOB_SKIP_SMUDGE=1 git checkout -- "$conv"
  grep -q "\"\$blob\":\"$digest\"" "$conv" || fail "skip did not leave the committed form"
  assert_no_changes
  git -c jpblob.smudge=refs checkout -- "$conv"
  assert_no_changes
}
case_ "a missing blob fails the checkout naming it; JPBLOB_SKIP_SMUDGE=1 and jpblob.smudge=refs get past it" missing_blob

# git runs nothing, and because install sets required = true the checkout
# fails rather than writing something unexpected.
required_filter_off() {
  cp "$TEST_ROOT/original.json" "$conv"
  git add "$conv"  # clean writes the blobs again
  # With the store checked out, as files to add; in a tree that becomes
  # lean at its next commit, into the git folder, and the commit without
  # its blobs is mended as `git jpblob repair` says.
  if lean_mode; then git jpblob repair > /dev/null; else git add .jp/blobs; fi
  git commit -qm "blobs back"
  rm "$conv"
  if git -c filter.jpblob.process= checkout -- "$conv" 2> /dev/null; then
    fail "a required filter switched off must fail the checkout"
  fi
  [ ! -e "$conv" ] || fail "the failed checkout wrote a file"
}
case_ "the blob back, a required filter switched off with an empty process setting fails the checkout" required_filter_off

filter_off_not_required() {
  git -c filter.jpblob.process= -c filter.jpblob.required=false checkout -- "$conv"
  grep -q '"\$blob":"' "$conv" || fail "the filter switched off should leave references"
  [ -z "$(git -c filter.jpblob.process= -c filter.jpblob.required=false status --porcelain --untracked-files=no)" ] ||
    fail "status with the filter off"
}
case_ "off and not required: the committed form, and a clean status" filter_off_not_required

oneshot_same_bytes() {
  rm "$conv"
  git -c filter.jpblob.process= -c filter.jpblob.smudge="$JPBLOB_BIN smudge %f" checkout -- "$conv" 2>/dev/null ||
    git checkout -- "$conv"
  cmp "$conv" "$TEST_ROOT/original.json" || fail "restored bytes differ"
}
case_ "back on: the one-shot commands alone give the same bytes as the process" oneshot_same_bytes

plain_clone() {
  export HOME="$TEST_ROOT/bare-home"
  mkdir -p "$HOME"
  git config --global user.name x && git config --global user.email x@example.com
  git clone -q "$TEST_ROOT/repo" "$TEST_ROOT/plain"
  cd "$TEST_ROOT/plain"
  grep -q "\"\$blob\":\"$digest\"" "$conv" || fail "without git-jpblob the file should hold references"
  [ -z "$(git status --porcelain)" ] || fail "status without git-jpblob: $(git status --porcelain)"
}
case_ "a clone on a machine without git-jpblob: the committed form, and a clean status" plain_clone
pass
