#!/usr/bin/env bash
# Conversations of 65,516 and 65,517 bytes, 2×65,516 ± 1 bytes, and 64 MB,
# through the installed long-running filter: committed, checked out again
# byte for byte.
. "$(dirname "$0")/lib.sh"
new_installed_repo

# A conversation of exactly N bytes: one tool output, padded text.
make_sized() {
  python3 - "$1" "$2" <<'PY'
import base64, os, sys
size, path = int(sys.argv[1]), sys.argv[2]
head = '[{"type":"tool_call_response","content":"%s"},{"type":"chat_request","content":"' % base64.b64encode(b"sized output").decode()
tail = '"}]'
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    f.write(head + "p" * (size - len(head) - len(tail)) + tail)
PY
}
sizes=(65516 65517 131031 131033)

sized_conversations() {
  local n
  for n in "${sizes[@]}"; do
    make_sized "$n" ".jp/conversations/$n-sized/events.json"
    [ "$(wc -c < ".jp/conversations/$n-sized/events.json")" -eq "$n" ] || fail "generator made the wrong size"
    cp ".jp/conversations/$n-sized/events.json" "$TEST_ROOT/$n.json"
  done
}
case_ "conversations of 65,516, 65,517, 131,031 and 131,033 bytes" sized_conversations

# A long session's tool outputs.
conversation_of_64mb() {
  python3 - .jp/conversations/64mb-session/events.json <<'PY'
import base64, os, sys, random
random.seed(64)
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
events, total = [], 0
i = 0
while total < 64 * 1024 * 1024:
    data = (f"line {i} of a long build log\n" * random.randint(2000, 20000)).encode() + os.urandom(32)
    b64 = base64.b64encode(data).decode()
    events.append('{"type":"tool_call_response","id":"t%d","content":"%s","is_error":false}' % (i, b64))
    total += len(b64)
    i += 1
with open(path, "w") as f:
    f.write("[\n" + ",\n".join(events) + "\n]\n")
PY
  cp .jp/conversations/64mb-session/events.json "$TEST_ROOT/64mb.json"
  [ "$(wc -c < "$TEST_ROOT/64mb.json")" -ge 67108864 ] || fail "not 64 MB"
}
case_ "a conversation of 64 MB" conversation_of_64mb

commit_all_sizes() {
  git add .jp/conversations
  git commit -qm sizes
  assert_no_changes
  assert_blobs_committed
  [ "$(git cat-file -s HEAD:.jp/conversations/64mb-session/events.json)" -lt 1048576 ] ||
    fail "the committed 64 MB conversation is not small"
}
case_ "all of them commit with their blobs; the 64 MB one commits small" commit_all_sizes

checkout_all_sizes() {
  rm -rf .jp/conversations
  git checkout -- .jp/conversations
  local n
  for n in "${sizes[@]}"; do
    cmp ".jp/conversations/$n-sized/events.json" "$TEST_ROOT/$n.json" || fail "$n bytes changed"
  done
  cmp .jp/conversations/64mb-session/events.json "$TEST_ROOT/64mb.json" || fail "64 MB changed"
  assert_no_changes
}
case_ "checkout gives every size back byte for byte" checkout_all_sizes
pass
