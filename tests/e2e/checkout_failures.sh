#!/usr/bin/env bash
# One conversation that cannot be restored never takes a checkout down with
# it (issue 25, "Failure isolation"). A commit holds 50 good conversations
# and one whose blob reached no commit and is gone from every copy. A clone
# writes the 50 byte for byte and fails only the one, naming file, digest
# and the ways out; with jpblob.skipSmudgeErrors (or
# JPBLOB_SKIP_SMUDGE_ERRORS=1) the clone succeeds with that file in its
# committed reference form, and `git jpblob checkout` restores it once the
# blob is back.
. "$(dirname "$0")/lib.sh"
install_jpblob
new_installed_repo origin
mkdir "$TEST_ROOT/originals"
for i in $(seq 1 50); do
  write_conversation "c$i" "good output $i $(seq 1 $((i * 20)) | tr '\n' ' ')"
done
git add .jp
git commit -qm "50 good conversations"
for i in $(seq 1 50); do cp ".jp/conversations/c$i/events.json" "$TEST_ROOT/originals/c$i.json"; done
# "25-lost" sorts before every "c…": git meets it first in its index order.
LOST_TEXT="output whose blob never reached any commit"
LOST_DIGEST=$(printf '%s' "$LOST_TEXT" | sha256sum | cut -c1-64)
LOST=.jp/conversations/25-lost/events.json
write_conversation 25-lost "$LOST_TEXT"
cp "$LOST" "$TEST_ROOT/originals/lost.json"
git add .jp
git commit -qm "a conversation whose blob is nowhere" --no-verify
remove_blob_files "$LOST_DIGEST"
printf '%s' "$LOST_TEXT" > "$TEST_ROOT/lost-output"

good_ones_written() {
  local i
  for i in $(seq 1 50); do
    cmp -s ".jp/conversations/c$i/events.json" "$TEST_ROOT/originals/c$i.json" ||
      fail "conversation c$i is not byte for byte what was committed"
  done
}

# The message of a failed smudge names the file, the digest and every way
# out: repair, the skip setting (both spellings) and `git jpblob checkout`.
names_the_way_out() {
  local err=$1 what
  for what in "$LOST" "$LOST_DIGEST" "git jpblob repair" "JPBLOB_SKIP_SMUDGE_ERRORS=1" \
    "jpblob.skipSmudgeErrors" "git jpblob checkout"; do
    grep -qF -- "$what" "$err" || fail "the failure does not name '$what': $(cat "$err")"
  done
}

clone_fails_only_the_one() {
  if git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/plain" 2> "$TEST_ROOT/plain.err"; then
    fail "the clone succeeded though a conversation cannot be restored"
  fi
  names_the_way_out "$TEST_ROOT/plain.err"
  grep -q "was not filtered properly" "$TEST_ROOT/plain.err" &&
    fail "git gave up on files the filter could restore: $(cat "$TEST_ROOT/plain.err")"
  [ "$(grep -c "^git-jpblob: .*is missing" "$TEST_ROOT/plain.err")" -eq 1 ] ||
    fail "not one failure: $(cat "$TEST_ROOT/plain.err")"
  cd "$TEST_ROOT/plain"
  good_ones_written
  [ ! -e "$LOST" ] || fail "the conversation that cannot be restored was written"
  # The way out the message names, in the clone git left behind.
  JPBLOB_SKIP_SMUDGE_ERRORS=1 git reset -q --hard 2> "$TEST_ROOT/reset.err" ||
    fail "the way out failed: $(cat "$TEST_ROOT/reset.err")"
  good_ones_written
  cmp -s "$LOST" <(git show "HEAD:$LOST") || fail "the skipped file is not in its committed form"
  assert_clean_status
}
case_ "a clone with one blob missing among 51 writes the 50, fails the one and names the way out" \
  clone_fails_only_the_one

# $1: how the setting is given ("env" or "config").
clone_skips_the_one() {
  local dir="$TEST_ROOT/skip-$1"
  if [ "$1" = env ]; then
    JPBLOB_SKIP_SMUDGE_ERRORS=1 git clone -q "$TEST_ROOT/origin" "$dir" 2> "$TEST_ROOT/skip.err" ||
      fail "the clone failed: $(cat "$TEST_ROOT/skip.err")"
  else
    git -c jpblob.skipSmudgeErrors=true clone -q "$TEST_ROOT/origin" "$dir" 2> "$TEST_ROOT/skip.err" ||
      fail "the clone failed: $(cat "$TEST_ROOT/skip.err")"
  fi
  [ "$(grep -c "^git-jpblob: warning: .*$LOST" "$TEST_ROOT/skip.err")" -eq 1 ] ||
    fail "not one warning naming the file: $(cat "$TEST_ROOT/skip.err")"
  grep -qF "git jpblob checkout $LOST" "$TEST_ROOT/skip.err" || fail "the warning names no way back"
  cd "$dir"
  good_ones_written
  cmp -s "$LOST" <(git show "HEAD:$LOST") || fail "the skipped file is not in its committed form"
  assert_clean_status
  # Once the blob is found, `git jpblob checkout` gives JP's form back.
  git jpblob store "$TEST_ROOT/lost-output" > /dev/null
  git jpblob checkout > /dev/null 2> "$TEST_ROOT/checkout.err" || fail "checkout failed: $(cat "$TEST_ROOT/checkout.err")"
  cmp -s "$LOST" "$TEST_ROOT/originals/lost.json" || fail "git jpblob checkout did not restore the file"
  good_ones_written
  assert_no_changes
}
case_ "with JPBLOB_SKIP_SMUDGE_ERRORS=1 the clone succeeds, the one left as committed, restored later" \
  clone_skips_the_one env
case_ "with jpblob.skipSmudgeErrors the clone succeeds, the one left as committed, restored later" \
  clone_skips_the_one config

# A branch switch: the same isolation, and the way out is the same command
# again with the setting.
switch_fails_only_the_one() {
  cd "$TEST_ROOT/skip-env"
  git checkout -q -b before HEAD~1
  remove_store
  if git checkout -q main 2> "$TEST_ROOT/switch.err"; then fail "the switch succeeded"; fi
  names_the_way_out "$TEST_ROOT/switch.err"
  good_ones_written
  # With the store checked out, the failed switch left the blob files it
  # wrote before the conversation failed, untracked, and git will not
  # overwrite them: the switch goes on with -f (nothing of the user's is
  # there). A lean tree writes no blob file, so the plain switch goes on.
  local force=""
  lean_mode || force=-f
  JPBLOB_SKIP_SMUDGE_ERRORS=1 git checkout -q $force main 2> "$TEST_ROOT/switch.err" ||
    fail "the switch with the setting failed: $(cat "$TEST_ROOT/switch.err")"
  [ "$(git rev-parse --abbrev-ref HEAD)" = main ] || fail "not on main"
  good_ones_written
  cmp -s "$LOST" <(git show "HEAD:$LOST") || fail "the skipped file is not in its committed form"
  assert_clean_status
}
case_ "a branch switch with one blob missing writes the rest and names the way out" switch_fails_only_the_one

pass
