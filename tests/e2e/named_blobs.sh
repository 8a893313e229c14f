#!/usr/bin/env bash
# Conservative liveness (issue 25): any object naming a blob under "$blob"
# keeps it, whatever other keys it holds. JP's draft of encrypted
# references (RFD D55) adds "encryption" beside "$blob" and "size": such a
# blob was unreferenced to verify and deleted by gc. Clean and smudge leave
# such objects as they are. Inside the agent's data (tool arguments,
# metadata) such an object is the agent's (issue 44): gc keeps its blob,
# but nothing requires it, and the hook commits only what references at
# content positions name.
. "$(dirname "$0")/lib.sh"
install_jpblob
new_installed_repo repo

# The blob an encrypted reference would name: here any bytes JP stored.
printf 'age-encrypted bytes standing in for a tool output' > "$TEST_ROOT/cipher"
DIGEST=$(git jpblob store "$TEST_ROOT/cipher" | sed "s/^blob:sha256://; s/ .*//")
SIZE=$(wc -c < "$TEST_ROOT/cipher")
BLOB=".jp/blobs/${DIGEST:0:2}/${DIGEST:2:2}/$DIGEST.blob.gz"
# A second one, named only inside a tool call's arguments (the agent's
# data) with its digest in capitals.
printf 'another encrypted output' > "$TEST_ROOT/cipher2"
DIGEST2=$(git jpblob store "$TEST_ROOT/cipher2" | sed "s/^blob:sha256://; s/ .*//")
BLOB2=".jp/blobs/${DIGEST2:0:2}/${DIGEST2:2:2}/$DIGEST2.blob.gz"
UPPER2=$(printf '%s' "$DIGEST2" | tr a-f A-F)
mkdir -p .jp/conversations/1-encrypted
cat > .jp/conversations/1-encrypted/events.json <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_1",
    "name": "read",
    "arguments": {
      "previous": {"\$blob": "$UPPER2", "size": 24, "encryption": {"scheme": "age", "recipients": ["age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"]}}
    }
  },
  {
    "timestamp": "2026-04-10 17:04:24.923537",
    "type": "tool_call_response",
    "id": "toolu_1",
    "content": {"\$blob": "$DIGEST", "size": $SIZE, "encryption": {"scheme": "age", "recipients": ["age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"]}},
    "is_error": false
  }
]
JSON
cp .jp/conversations/1-encrypted/events.json "$TEST_ROOT/original.json"
# Let both blob files be older than any grace period.
touch -d '2 days ago' "$BLOB" "$BLOB2"
# Only the agent's data names the second: untracked, and not what status
# should show.
echo "/$BLOB2" >> "$(git rev-parse --git-dir)/info/exclude"

gc_keeps_named_blobs() {
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/gc.err" || fail "gc failed: $(cat "$TEST_ROOT/gc.err")"
  [ -f "$BLOB" ] || fail "gc deleted the blob an encrypted reference names"
  [ -f "$BLOB2" ] || fail "gc deleted the blob named in capitals inside arguments"
}
case_ "gc keeps a blob named by a reference with an extra key" gc_keeps_named_blobs

verify_counts_named_blobs() {
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify failed: $(cat "$TEST_ROOT/verify.out")"
  ! grep -q "unreferenced" "$TEST_ROOT/verify.out" || fail "verify calls a named blob unreferenced: $(cat "$TEST_ROOT/verify.out")"
  # The one at the content position is a reference; the agent's is not.
  git jpblob stats --json | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["references"] == 1, s' ||
    fail "stats does not count the named blob: $(git jpblob stats --json)"
}
case_ "verify keeps both, stats counts the one a reference with an extra key names at a content position" \
  verify_counts_named_blobs

clean_and_smudge_leave_them() {
  git add .jp/conversations
  git show :.jp/conversations/1-encrypted/events.json | cmp -s - "$TEST_ROOT/original.json" ||
    fail "clean changed an object naming a blob: $(git show :.jp/conversations/1-encrypted/events.json)"
  git commit -qm "encrypted references" 2> "$TEST_ROOT/commit.err" || fail "commit failed: $(cat "$TEST_ROOT/commit.err")"
  # The hook counts the content position's as referenced: its blob is in
  # the commit. The agent's own object requires nothing (issue 44).
  git cat-file -e "HEAD:$BLOB" || fail "the hook did not commit the named blob"
  ! git cat-file -e "HEAD:$BLOB2" 2> /dev/null || fail "the hook committed a blob only the agent's arguments name"
  rm .jp/conversations/1-encrypted/events.json
  git checkout -- .jp/conversations
  cmp -s .jp/conversations/1-encrypted/events.json "$TEST_ROOT/original.json" || fail "smudge changed it"
  assert_clean_status
}
case_ "clean and smudge leave an object naming a blob as it is; the hook commits the content position's blob" \
  clean_and_smudge_leave_them

pass
