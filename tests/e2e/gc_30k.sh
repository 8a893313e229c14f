#!/usr/bin/env bash
# gc at scale: a deleted conversation that referenced 30,000 tracked blobs.
# gc deletes every blob, unstages every one (paths go to git on standard
# input, never one argument each) and leaves no emptied aa/bb folder.
. "$(dirname "$0")/lib.sh"
new_installed_repo
git config jpblob.fsync false
conv=.jp/conversations/1-big/events.json
mkdir -p "$(dirname "$conv")"
python3 - "$conv" <<'PY'
import base64, json, sys
events = [{"type": "tool_call_response", "id": "t%d" % i,
           "content": base64.b64encode(b"output %d" % i).decode(), "is_error": False}
          for i in range(30000)]
with open(sys.argv[1], "w") as f:
    json.dump(events, f, indent=2)
PY
git add "$conv"
git commit -qm "30,000 payloads"
tracked=$(git ls-files .jp/blobs | wc -l)
[ "$tracked" -eq 30000 ] || fail "the hook committed $tracked blobs, not 30000"

git rm -q -r .jp/conversations/1-big
git commit -qm "drop it"
git jpblob gc --prune=now > "$TEST_ROOT/gc.out" 2>&1 || fail "gc failed: $(tail -3 "$TEST_ROOT/gc.out")"
grep -q "^Removed 30000 file" "$TEST_ROOT/gc.out" || fail "gc: $(tail -1 "$TEST_ROOT/gc.out")"
left=$(git ls-files .jp/blobs | wc -l)
[ "$left" -eq 0 ] || fail "$left deleted blobs are still in the index"
[ -z "$(find .jp/blobs -mindepth 1 2>/dev/null)" ] || fail "gc left folders: $(find .jp/blobs -mindepth 1 | head -3)"
git commit -qm gc
assert_no_changes
pass
