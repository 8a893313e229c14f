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

# A conversation larger than the pool's budget (64 MiB, with what its
# blobs hold) is not restored in the pool: git's thread restores it when
# git fetches it, after every other file, streaming it in pieces, so the
# filter never holds it whole (filter/delayed).
large_conversation() {  # <path> <seed> <seed>: a tool output of 20 MiB a seed; prints their digests
  python3 - "$@" <<'PY'
import base64, hashlib, os, random, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
outputs = [random.Random(int(seed)).randbytes((20 << 20) + int(seed)) for seed in sys.argv[2:]]
with open(path, "w") as f:
    f.write("[\n" + ",\n".join('{"type":"tool_call_response","id":"t%d","content":"%s","is_error":false}'
                               % (i, base64.b64encode(b).decode()) for i, b in enumerate(outputs)) + "\n]\n")
print("\n".join(hashlib.sha256(b).hexdigest() for b in outputs))
PY
}
larger_than_the_budget() {
  new_installed_repo large-origin
  large_conversation .jp/conversations/1-large/events.json 1 2 > /dev/null
  write_conversation 2-small "a small conversation beside a large one"
  cp .jp/conversations/1-large/events.json "$TEST_ROOT/large.json"
  cp .jp/conversations/2-small/events.json "$TEST_ROOT/small.json"
  git add .jp
  git commit -qm large
  GIT_TRACE_PACKET="$TEST_ROOT/large.trace" git clone -q "$TEST_ROOT/large-origin" "$TEST_ROOT/large-clone"
  grep "pathname=.jp/conversations/1-large" "$TEST_ROOT/large.trace" | grep -q "can-delay=1\|pathname" ||
    fail "git never sent the large conversation"
  grep -q "status=delayed" "$TEST_ROOT/large.trace" || fail "the clone's smudges were not delayed"
  cd "$TEST_ROOT/large-clone"
  cmp -s .jp/conversations/1-large/events.json "$TEST_ROOT/large.json" || fail "the large conversation differs"
  cmp -s .jp/conversations/2-small/events.json "$TEST_ROOT/small.json" || fail "the small conversation differs"
  assert_clean_status
}
case_ "a conversation larger than the pool's budget is streamed from git's thread, byte for byte" larger_than_the_budget

# A new second output whose blob is nowhere (the first is committed): the
# failure comes after pieces went to git, which drops the file, names it,
# and has written the other file.
streamed_failure() {
  cd "$TEST_ROOT/large-origin"
  local digest
  digest=$(large_conversation .jp/conversations/1-large/events.json 1 3 | tail -1)
  git add .jp/conversations/1-large
  git commit -qm "new large outputs" --no-verify > "$TEST_ROOT/commit.log" 2>&1 || fail "commit: $(cat "$TEST_ROOT/commit.log")"
  remove_blob_files "$digest"
  if GIT_TRACE_PACKET="$TEST_ROOT/failure.trace" git clone -q "$TEST_ROOT/large-origin" "$TEST_ROOT/large-clone2" \
    2> "$TEST_ROOT/err"; then
    fail "the clone succeeded without the blob"
  fi
  # What the filter answered when git fetched the file: content, then the
  # error (S: status=success, C: content, E: status=error).
  local answer
  answer=$(cut -c1-200 "$TEST_ROOT/failure.trace" | awk '
    /> pathname=\.jp\/conversations\/1-large\/events\.json/ { seq = ""; on = 1; next }
    !on || !/ [a-z]+< / || /< 0000/ { next }
    /< status=success/ { seq = seq "S"; next }
    /< status=error/ { seq = seq "E"; on = 0; next }
    { if (substr(seq, length(seq)) != "C") seq = seq "C" }
    END { print seq }')
  [ "$answer" = SCE ] || fail "not content, then the error: '$answer'"
  grep -q "blob $digest referenced by .jp/conversations/1-large/events.json is missing" "$TEST_ROOT/err" ||
    fail "no message naming the blob and the file: $(cat "$TEST_ROOT/err")"
  cd "$TEST_ROOT/large-clone2"
  cmp -s .jp/conversations/2-small/events.json "$TEST_ROOT/small.json" || fail "the small conversation was not written"
  [ ! -e .jp/conversations/1-large/events.json ] || fail "the large conversation was written in part"
}
case_ "a blob missing in the second window of a streamed conversation fails it after pieces went out; git drops it" streamed_failure

pass
