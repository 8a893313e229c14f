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

# Appends a copy of the conversation's first full turn (turn_start up to
# the next one: requests, tool calls and their responses) as side $2 adds
# it: event k at 10:00:00 + 2k + $3 seconds, tool ids made the side's own.
append_full_turn() {
  python3 - "$1" "$2" "$3" "$conv_src/events.json" <<'PY'
import datetime, json, sys
path, side, parity, source = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
events = json.load(open(source))
start = next(i for i, e in enumerate(events) if e.get("type") == "turn_start")
end = next((i for i in range(start + 1, len(events)) if events[i].get("type") == "turn_start"), len(events))
t0 = datetime.datetime(2026, 5, 1, 10, 0, 0)
data = open(path, "rb").read()
close = data.rstrip().rfind(b"]")
body = data[:close].rstrip()
for k, e in enumerate(events[start:end]):
    e = dict(e)
    e["timestamp"] = (t0 + datetime.timedelta(seconds=2 * k + parity)).strftime("%Y-%m-%d %H:%M:%S.%f")
    if "id" in e:
        e["id"] = e["id"] + "_" + side
    block = "\n".join("  " + l for l in json.dumps(e, indent=2).splitlines()).encode()
    body += b",\n" + block
open(path, "wb").write(body + b"\n" + data[close:])
PY
}

full_turns_stay_whole() {
  fresh
  git checkout -q -b turn-mine base-point
  append_full_turn "$ev" mine 0
  git add .jp && git commit -qm "my turn"
  git checkout -q -b turn-theirs base-point
  append_full_turn "$ev" theirs 1
  git add .jp && git commit -qm "their turn"
  git checkout -q turn-mine
  git merge -q --no-edit turn-theirs 2> "$TEST_ROOT/err" || fail "git merge did not complete: $(cat "$TEST_ROOT/err")"
  # My turn began first (10:00:00, theirs 10:00:01): it comes whole, then
  # theirs whole, though their events alternate second by second.
  cp "$TEST_ROOT/base.json" "$TEST_ROOT/expected.json"
  append_full_turn "$TEST_ROOT/expected.json" mine 0
  append_full_turn "$TEST_ROOT/expected.json" theirs 1
  cmp -s "$ev" "$TEST_ROOT/expected.json" || fail "the merged conversation is not base + my turn + their turn: $(
    python3 -c 'import json,sys; print([e.get("id", e["type"]) for e in json.load(open(sys.argv[1]))[-12:]])' "$ev")"
  python3 - "$ev" <<'PY' || fail "a tool call is not followed by its own response"
import json, sys
events = json.load(open(sys.argv[1]))
for i, e in enumerate(events):
    if e.get("type") == "tool_call_request":
        rest = events[i + 1:]
        side = e["id"].rsplit("_", 1)[-1]
        # every event until its response is the same side's
        for r in rest:
            if r.get("type") == "tool_call_response" and r.get("id") == e["id"]:
                break
            rid = r.get("id", "")
            if side in ("mine", "theirs") and rid and not rid.endswith("_" + side):
                sys.exit(1)
PY
  git jpblob verify > /dev/null || fail "verify fails after the merge"
  assert_clean_status
  assert_blobs_committed
}
case_ "two teammates each add a full turn to a real conversation: each turn stays whole, each tool call followed by its response" full_turns_stay_whole

pass
