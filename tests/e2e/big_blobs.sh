#!/usr/bin/env bash
# Issue 44: a blob larger than git's core.bigFileThreshold is never inflated
# for a display. git prints "Binary files differ" for such a file; textconv
# (git show, git log -p, git diff) and `git jpblob print` print one line in
# its place, naming its size and digest. A correctly named blob of 300 MB of
# zeros (300 KB of gzip) made a reviewer's `git show` hold the blob and
# print its first MiB, and `print` fail. A checkout still gives the whole
# blob: it is the user's data.
. "$(dirname "$0")/lib.sh"
new_installed_repo
git config jpblob.fsync false

# Peak memory (MB) of a command and everything it ran; its output in
# $TEST_ROOT/out and $TEST_ROOT/err, its exit status in $TEST_ROOT/rc.
peak_of() {
  python3 - "$TEST_ROOT" "$@" <<'PY'
import resource, subprocess, sys
root = sys.argv[1]
with open(root + "/out", "wb") as out, open(root + "/err", "wb") as err:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=err).returncode
open(root + "/rc", "w").write(str(rc))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
}

# A conversation citing blob $2 of $3 bytes in RFD 066's form (no
# encoding: smudge leaves it, so only the display reads the blob).
cite() {
  mkdir -p ".jp/conversations/$1"
  cat > ".jp/conversations/$1/events.json" <<JSON
[
  {"timestamp": "2026-04-10 17:04:20.531236", "type": "chat_request", "content": "Show me the dump"},
  {"timestamp": "2026-04-10 17:04:24.923537", "type": "tool_call_response", "id": "toolu_1",
   "content": {"\$blob": "$2", "size": $3}, "is_error": false}
]
JSON
}

head -c 314572800 /dev/zero > "$TEST_ROOT/zeros"
BIG=$(sha256sum < "$TEST_ROOT/zeros" | cut -c1-64)
git jpblob store "$TEST_ROOT/zeros" > /dev/null
rm "$TEST_ROOT/zeros"
cite 17900000001-dump "$BIG" 314572800
git add .jp/conversations
git commit -qm "a conversation citing 300 MB of zeros"

# Each display exits 0, prints the one line (size and digest), stays under
# 100 KB of output and 100 MB of memory (it held the 300 MB blob before).
assert_one_line() {
  local what=$1 peak=$2 rc bytes
  rc=$(cat "$TEST_ROOT/rc")
  bytes=$(wc -c < "$TEST_ROOT/out")
  echo "$what: exit $rc, $bytes bytes, peak $peak MB"
  [ "$rc" -eq 0 ] || fail "$what exited $rc: $(head -c 300 "$TEST_ROOT/err")"
  [ "$bytes" -lt 100000 ] || fail "$what printed $bytes bytes"
  grep -aq "not shown: 314572800 bytes, over core.bigFileThreshold (1048576), blob:sha256:$BIG" "$TEST_ROOT/out" ||
    fail "$what does not print the one line: $(head -c 600 "$TEST_ROOT/out")"
  [ "$peak" -lt 100 ] || fail "$what peaked at $peak MB"
}

displays() {
  local peak
  peak=$(peak_of git -c core.bigFileThreshold=1m show)
  assert_one_line "git show" "$peak"
  # The blob file's own diff (textconv of the gzip file) too: two lines.
  [ "$(grep -ac "not shown: 314572800 bytes" "$TEST_ROOT/out")" -eq 2 ] ||
    fail "git show does not print the line for both the conversation and the blob file: $(head -c 600 "$TEST_ROOT/out")"
  peak=$(peak_of git -c core.bigFileThreshold=1m log -p)
  assert_one_line "git log -p" "$peak"
  peak=$(peak_of git -c core.bigFileThreshold=1m jpblob print 17900000001)
  assert_one_line "git jpblob print" "$peak"
}
case_ "git show, git log -p and print of a 300 MB blob over core.bigFileThreshold: one line with size and digest, small" displays

# git's threshold from any scope, `git -c` over the repository's own.
threshold_scopes() {
  local small
  head -c 2000000 /dev/zero | tr '\0' 'a' > "$TEST_ROOT/two-mb"
  small=$(sha256sum < "$TEST_ROOT/two-mb" | cut -c1-64)
  git jpblob store "$TEST_ROOT/two-mb" > /dev/null
  cite 17900000002-two-mb "$small" 2000000
  git config core.bigFileThreshold 1m
  git jpblob print 17900000002 > "$TEST_ROOT/out"
  grep -q "not shown: 2000000 bytes, over core.bigFileThreshold (1048576), blob:sha256:$small" "$TEST_ROOT/out" ||
    fail "the repository's core.bigFileThreshold is not applied: $(head -c 300 "$TEST_ROOT/out")"
  git -c core.bigFileThreshold=4m jpblob print 17900000002 > "$TEST_ROOT/out"
  grep -q "aaaaaaaaaa" "$TEST_ROOT/out" || fail "git -c core.bigFileThreshold=4m does not show the 2 MB payload"
  git config --unset core.bigFileThreshold
  git jpblob print 17900000002 | grep -q "aaaaaaaaaa" || fail "git's default threshold does not show the 2 MB payload"
}
case_ "core.bigFileThreshold is git's from any scope, git -c included; below it the payload is shown" threshold_scopes

# A reference declaring fewer bytes than its blob holds cannot take the
# display past the threshold: the blob is read up to what it declares,
# found corrupt, and the reference shown as committed.
lying_size() {
  local peak
  cite 17900000003-lies "$BIG" 100
  git add .jp/conversations/17900000003-lies
  git commit -q --no-verify -m "a reference that lies about its size"
  peak=$(peak_of git -c core.bigFileThreshold=1m show)
  echo "git show: exit $(cat "$TEST_ROOT/rc"), $(wc -c < "$TEST_ROOT/out") bytes, peak $peak MB"
  [ "$(cat "$TEST_ROOT/rc")" -eq 0 ] || fail "git show exited $(cat "$TEST_ROOT/rc"): $(head -c 300 "$TEST_ROOT/err")"
  [ "$(wc -c < "$TEST_ROOT/out")" -lt 100000 ] || fail "git show printed $(wc -c < "$TEST_ROOT/out") bytes"
  grep -q "\"size\": 100}" "$TEST_ROOT/out" || fail "the lying reference is not shown as committed: $(head -c 600 "$TEST_ROOT/out")"
  [ "$peak" -lt 100 ] || fail "git show peaked at $peak MB"
  git reset -q --hard HEAD~1
}
case_ "a reference declaring less than its blob holds is shown as committed, never inflated past the bound" lying_size

# The display's bound is not the checkout's: the blob is whole wherever
# the user asks for it.
checkout_whole() {
  git clone -q "$TEST_ROOT/repo" "$TEST_ROOT/clone" 2> "$TEST_ROOT/err"
  cd "$TEST_ROOT/clone"
  [ "$(git -c core.bigFileThreshold=1m jpblob cat "blob:sha256:$BIG" | wc -c)" -eq 314572800 ] ||
    fail "the clone does not give the whole blob"
  if ! lean_mode; then
    zcat ".jp/blobs/${BIG:0:2}/${BIG:2:2}/$BIG.blob.gz" | cmp -s - <(head -c 314572800 /dev/zero) ||
      fail "the checked-out blob file is not the 300 MB of zeros"
  fi
  cmp -s .jp/conversations/17900000001-dump/events.json "$TEST_ROOT/repo/.jp/conversations/17900000001-dump/events.json" ||
    fail "the checkout changed the conversation"
}
case_ "a clone still checks out the whole blob and the conversation as committed" checkout_whole
pass
