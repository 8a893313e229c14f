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
pass
