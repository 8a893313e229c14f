#!/usr/bin/env bash
# Issue 27: gc, verify, verify --history and stats walk every conversation
# with a bounded number of descriptors. At 50,000 conversations they failed
# with "Too many open files" (a descriptor held for every folder waiting to
# be walked); 600 conversations under `ulimit -n 48` show the same bound.
. "$(dirname "$0")/lib.sh"
new_installed_repo
git config jpblob.fsync false
python3 - <<'PY'
import base64, os
for i in range(600):
    d = ".jp/conversations/%d-c" % (1000 + i)
    os.makedirs(d)
    with open(d + "/events.json", "w") as f:
        f.write('[{"type":"tool_call_response","id":"t","content":"%s","is_error":false}]'
                % base64.b64encode(b"output %d" % i).decode())
PY
git add .jp/conversations
git commit -qm "600 conversations"

with_few_descriptors() {
  local cmd
  for cmd in "git jpblob gc --dry-run" "git jpblob verify" "git jpblob verify --history" "git jpblob stats"; do
    (ulimit -n 48 && $cmd > "$TEST_ROOT/out" 2>&1) || fail "'$cmd' under ulimit -n 48: $(tail -2 "$TEST_ROOT/out")"
  done
  grep -q "600" <(git jpblob stats) || fail "stats does not count 600 conversations: $(git jpblob stats)"
}
case_ "gc, verify, verify --history and stats of 600 conversations under ulimit -n 48" with_few_descriptors

# Issue 44: the filter, the hook and a clone's checkout live within the
# descriptor limit plain git works under (core/base/descriptors). `git add`
# of the 21 real conversations failed under `ulimit -n 64` ("Too many open
# files": the store kept 64 new blobs pending, one leaf folder each, and
# every pool took threads of its own), where plain git's add works.
REALDATA="${FIXTURES:+$(dirname "$(dirname "$FIXTURES")")/realdata}"
real_conversations_under_64() {
  local src="$TEST_ROOT/real-src" i f
  mkdir -p "$src"
  cp -r "$FIXTURES/.jp/conversations" "$src/"
  # More real files where the hidden set is there: each snapshot of JP's
  # output as a conversation of its own.
  if [ -d "$REALDATA/jp-snapshots" ]; then
    i=0
    for f in $(find "$REALDATA/jp-snapshots" -name events.json | sort | head -40); do
      i=$((i + 1))
      mkdir -p "$src/conversations/1790000$(printf %04d $i)-snapshot"
      cp "$f" "$src/conversations/1790000$(printf %04d $i)-snapshot/events.json"
    done
  fi
  chmod -R u+w "$src"
  [ "$(find "$src" -name events.json | wc -l)" -ge 21 ] || fail "fewer than 21 real conversations"
  new_installed_repo real
  mkdir -p .jp && cp -r "$src/conversations" .jp/
  (ulimit -n 64 && git add .jp/conversations > "$TEST_ROOT/out" 2>&1) ||
    fail "git add under ulimit -n 64: $(tail -3 "$TEST_ROOT/out")"
  (ulimit -n 64 && git commit -qm "real conversations" > "$TEST_ROOT/out" 2>&1) ||
    fail "git commit under ulimit -n 64: $(tail -3 "$TEST_ROOT/out")"
  assert_blobs_committed
  cd "$TEST_ROOT"
  (ulimit -n 64 && git clone -q real real-clone > "$TEST_ROOT/out" 2>&1) ||
    fail "git clone under ulimit -n 64: $(tail -3 "$TEST_ROOT/out")"
  diff -r "$src/conversations" real-clone/.jp/conversations > "$TEST_ROOT/out" ||
    fail "the clone's conversations differ from what was added: $(head -c 300 "$TEST_ROOT/out")"
  diff -r "$src/conversations" real/.jp/conversations > /dev/null || fail "the added conversations changed"
  cd real-clone && assert_clean_status
}
if [ -n "$FIXTURES" ] && [ -d "$FIXTURES/.jp/conversations" ]; then
  case_ "git add, commit and clone of real conversations under ulimit -n 64, byte for byte" real_conversations_under_64
else
  echo "skip - real conversations under ulimit -n 64: ../shared/fixtures is absent"
  CASES_SKIPPED=$((CASES_SKIPPED + 1))
fi
pass
