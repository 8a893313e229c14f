#!/usr/bin/env bash
# Delayed smudges (gitattributes(5), "Delay"): git lets the filter answer
# "delayed" and restores files on every core while git writes others. The
# bytes, the index and the errors must be what a checkout without delay
# gives, in a clone, a branch switch and `git checkout -- <paths>`.
. "$(dirname "$0")/lib.sh"
install_jpblob
new_installed_repo origin
for i in $(seq 1 30); do write_conversation "$i-conv" "tool output number $i $(seq 1 $((i * 40)) | tr '\n' ' ')"; done
git add .jp
git commit -qm conversations
mkdir "$TEST_ROOT/originals"
for i in $(seq 1 30); do cp ".jp/conversations/$i-conv/events.json" "$TEST_ROOT/originals/$i.json"; done

same_as_originals() {
  local i
  for i in $(seq 1 30); do
    cmp -s ".jp/conversations/$i-conv/events.json" "$TEST_ROOT/originals/$i.json" ||
      fail "conversation $i differs after the checkout"
  done
}

clone_delays() {
  GIT_TRACE_PACKET="$TEST_ROOT/clone.trace" git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone"
  grep -q "status=delayed" "$TEST_ROOT/clone.trace" || fail "the clone's smudges were not delayed"
  grep -q "command=list_available_blobs" "$TEST_ROOT/clone.trace" || fail "git never asked for delayed files"
  cd "$TEST_ROOT/clone"
  same_as_originals
  assert_clean_status
  # git recorded each file's stat when it wrote it: a refresh finds nothing.
  [ -z "$(git diff-files --name-only)" ] || fail "the index does not match the delayed files"
}
case_ "a clone restores every file through delayed smudges, byte for byte" clone_delays

branch_switch() {
  cd "$TEST_ROOT/clone"
  git checkout -q -b changed
  for i in 3 7 11; do grow_conversation ".jp/conversations/$i-conv/events.json" "more output $i"; done
  git add .jp/conversations
  git commit -qm changed
  for i in 3 7 11; do cp ".jp/conversations/$i-conv/events.json" "$TEST_ROOT/changed-$i.json"; done
  GIT_TRACE_PACKET="$TEST_ROOT/switch.trace" git checkout -q -
  grep -q "status=delayed" "$TEST_ROOT/switch.trace" || fail "the switch's smudges were not delayed"
  same_as_originals
  git checkout -q changed
  for i in 3 7 11; do
    cmp -s ".jp/conversations/$i-conv/events.json" "$TEST_ROOT/changed-$i.json" || fail "conversation $i wrong on the branch"
  done
  assert_clean_status
  rm .jp/conversations/*/events.json
  git checkout -- .jp/conversations
  assert_clean_status
}
case_ "a branch switch and git checkout -- <paths> through delayed smudges" branch_switch

# One conversation's blob is nowhere git-jpblob can reach. The filter is
# required, so git stops the checkout at that file, naming it; the filter
# lists it only after every other file, so git has written all of those
# (without delay, only the files before it in index order).
one_failure() {
  cd "$TEST_ROOT/origin"
  write_conversation 31-lost "output whose blob never reached any commit"
  git add .jp/conversations/31-lost
  git commit -qm lost --no-verify
  remove_blob_files "$(printf 'output whose blob never reached any commit' | sha256sum | cut -c1-64)"
  if git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone2" 2> "$TEST_ROOT/err"; then :; fi
  grep -q "referenced by .jp/conversations/31-lost/events.json is missing" "$TEST_ROOT/err" ||
    fail "no message naming the file: $(cat "$TEST_ROOT/err")"
  ! grep -q "was not filtered properly" "$TEST_ROOT/err" || fail "git gave up on other files: $(cat "$TEST_ROOT/err")"
  cd "$TEST_ROOT/clone2"
  same_as_originals
  [ ! -e .jp/conversations/31-lost/events.json ] || fail "the failed file was written"
}
case_ "a blob missing in a delayed checkout fails its file, named; every other file is restored" one_failure

pass
