#!/usr/bin/env bash
# The merge driver (merge.jpblob): two teammates appending to one real
# conversation merge with no hand edit; a real conflict shows JP's own
# form; two gzip spellings of one blob never conflict. After merge, rebase
# and cherry-pick the work tree is JP's form and status is clean.
. "$(dirname "$0")/lib.sh"
conv_src="${FIXTURES:+$FIXTURES/.jp/conversations/17758406187-missing-date-in-version-string}"
if [ -z "$conv_src" ] || [ ! -f "$conv_src/events.json" ]; then
  echo "SKIP: ../shared/fixtures is absent"
  exit 0
fi
conv=.jp/conversations/17758406187-missing-date-in-version-string
ev="$conv/events.json"

# Appends one tool turn to a conversation the way JP does: the file's
# bytes stay as they are and the event goes before the closing bracket.
append_turn() {
  python3 - "$1" "$2" "$3" <<'PY'
import base64, json, sys
path, stamp, text = sys.argv[1:4]
data = open(path, "rb").read()
end = data.rstrip().rfind(b"]")
body = data[:end].rstrip()
event = {"type": "tool_call_response", "timestamp": stamp, "id": "toolu_" + stamp[-6:],
         "content": base64.b64encode(text.encode()).decode(), "is_error": False}
lines = json.dumps(event, indent=2).splitlines()
block = "\n".join("  " + l for l in lines).encode()
open(path, "wb").write(body + b",\n" + block + b"\n" + data[end:])
PY
}

# Each case starts from a quiet work tree, whatever the one before left.
fresh() {
  git merge --abort > /dev/null 2>&1 || git rebase --abort > /dev/null 2>&1 || git cherry-pick --abort > /dev/null 2>&1 || true
  git reset -q --hard
}

new_installed_repo team
mkdir -p "$conv"
cp "$conv_src/events.json" "$conv_src/metadata.json" "$conv/"
git add .jp && git commit -qm "a real conversation"
cp "$ev" "$TEST_ROOT/base.json"
git branch base-point

appended_turns_merge() {
  git checkout -q -b mine base-point
  append_turn "$ev" "2026-05-01 10:00:01.000000" "cargo test: 212 passed (mine)"
  git add .jp && git commit -qm mine
  git checkout -q -b theirs base-point
  append_turn "$ev" "2026-05-01 10:00:02.000000" "cargo clippy: no warnings (theirs)"
  git add .jp && git commit -qm theirs
  git checkout -q mine
  git merge -q --no-edit theirs 2> "$TEST_ROOT/err" || fail "git merge did not complete: $(cat "$TEST_ROOT/err")"
  # JP's form with both turns, in timestamp order, on top of the base.
  cp "$TEST_ROOT/base.json" "$TEST_ROOT/expected.json"
  append_turn "$TEST_ROOT/expected.json" "2026-05-01 10:00:01.000000" "cargo test: 212 passed (mine)"
  append_turn "$TEST_ROOT/expected.json" "2026-05-01 10:00:02.000000" "cargo clippy: no warnings (theirs)"
  cmp -s "$ev" "$TEST_ROOT/expected.json" || fail "the merged conversation is not base + both turns in JP's form"
  ! grep -q '"\$blob"' "$ev" || fail "the work tree holds references"
  git jpblob verify > /dev/null || fail "verify fails after the merge"
  assert_clean_status
  assert_blobs_committed
}
case_ "two branches append turns to a real conversation: git merge completes, JP's form with both, verify passes, status clean" appended_turns_merge

rebase_and_cherry_pick() {
  fresh
  git checkout -q -b rebased theirs
  git rebase -q mine~1 2> "$TEST_ROOT/err" || fail "rebase stopped: $(cat "$TEST_ROOT/err")"
  grep -q "$(printf 'cargo test: 212 passed (mine)' | base64 -w0)" "$ev" || fail "rebase lost our turn"
  grep -q "$(printf 'cargo clippy: no warnings (theirs)' | base64 -w0)" "$ev" || fail "rebase lost their turn"
  assert_clean_status
  git checkout -q -b picked base-point
  append_turn "$ev" "2026-05-01 09:00:00.000000" "an earlier turn here"
  git add .jp && git commit -qm earlier
  git cherry-pick theirs > /dev/null 2> "$TEST_ROOT/err" || fail "cherry-pick stopped: $(cat "$TEST_ROOT/err")"
  grep -q "$(printf 'cargo clippy: no warnings (theirs)' | base64 -w0)" "$ev" || fail "cherry-pick lost the turn"
  ! grep -q '"\$blob"' "$ev" || fail "the work tree holds references"
  assert_clean_status
}
case_ "rebase and cherry-pick of appended turns need no hand edit either" rebase_and_cherry_pick

real_conflict_in_jp_form() {
  fresh
  git checkout -q -b edit-a base-point
  append_turn "$ev" "2026-05-01 11:00:00.000000" "the shared turn"
  git add .jp && git commit -qm shared
  git checkout -q -b edit-b
  sed -i "s/$(printf 'the shared turn' | base64 -w0)/$(printf 'edited by b' | base64 -w0)/" "$ev"
  git commit -qam "b edits"
  git checkout -q edit-a
  sed -i "s/$(printf 'the shared turn' | base64 -w0)/$(printf 'edited by a' | base64 -w0)/" "$ev"
  git commit -qam "a edits"
  if git merge -q --no-edit edit-b > /dev/null 2>&1; then fail "two edits of one event merged silently"; fi
  grep -q '^<<<<<<< ' "$ev" || fail "no conflict markers in the work tree"
  grep -q "$(printf 'edited by a' | base64 -w0)" "$ev" || fail "ours is not shown in JP's form"
  grep -q "$(printf 'edited by b' | base64 -w0)" "$ev" || fail "theirs is not shown in JP's form"
  ! grep -q '"\$blob"' "$ev" || fail "the conflict shows references: $(grep -n '\$blob' "$ev" | head -3)"
  # Resolved by hand in JP's form, committed as usual.
  python3 - "$ev" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t = re.sub(r"<<<<<<< ours\n(.*?)=======\n.*?>>>>>>> theirs\n", r"\1", t, flags=re.S)
open(p, "w").write(t)
PY
  git add "$ev" && git commit -qm resolved
  grep -q "$(printf 'edited by a' | base64 -w0)" "$ev" || fail "the resolution is gone"
  assert_clean_status
  git jpblob verify > /dev/null || fail "verify fails after the resolution"
}
case_ "a real conflict shows both sides' payloads in JP's form, and the resolution commits" real_conflict_in_jp_form

same_blob_other_gzip() {
  fresh
  git checkout -q -b gz-a base-point
  local h b
  h=$(printf 'same bytes, two gzips' | sha256sum | cut -c1-64)
  b=".jp/blobs/${h:0:2}/${h:2:2}/$h.blob.gz"
  mkdir -p "$(dirname "$b")"
  printf 'same bytes, two gzips' | gzip -n -1 > "$b"
  git add "$b" && git commit -qm "blob at level 1"
  git checkout -q -b gz-b base-point
  mkdir -p "$(dirname "$b")"
  printf 'same bytes, two gzips' | gzip -n -9 --rsyncable > "$b"
  git add "$b" && git commit -qm "blob at level 9"
  git checkout -q gz-a
  git merge -q --no-edit gz-b 2> "$TEST_ROOT/err" || fail "the same blob conflicted: $(cat "$TEST_ROOT/err")"
  [ "$(gzip -dc < "$b")" = "same bytes, two gzips" ] || fail "the merged blob is not the content"
  assert_clean_status
}
case_ "one blob stored with two gzip spellings on two branches does not conflict" same_blob_other_gzip

pass
