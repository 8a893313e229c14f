#!/usr/bin/env bash
# Two branches that both grew the same conversation: merge and rebase. The
# conflict shows JSON with references, a resolution commits cleanly, and
# every blob either side referenced is committed.
. "$(dirname "$0")/lib.sh"

new_installed_repo
write_conversation
conv=.jp/conversations/17758406187-demo/events.json
git add .jp/conversations
git commit -qm base
git checkout -q -b left
grow_conversation "$conv" "left tool output"
git commit -qam left
git checkout -q -b right main
grow_conversation "$conv" "right tool output"
git commit -qam right

# Resolves a conflicted conversation: both sides' events, in order.
resolve() {
  python3 - "$conv" <<'PY'
import json, subprocess, sys
path = sys.argv[1]
def side(stage):
    return json.loads(subprocess.check_output(["git", "show", f":{stage}:{path}"]))
ours, theirs = side(2), side(3)
merged = ours + [e for e in theirs if e not in ours]
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
PY
}

# Checks the conversation out afresh: both sides' tool output must be back.
assert_both_sides_restored() {
  rm "$conv"
  git checkout -- "$conv"
  local text
  for text in "left tool output" "right tool output"; do
    grep -q "$(printf '%s' "$text" | base64 -w0)" "$conv" || fail "$1 lost: $text"
  done
}

merge() {
  git checkout -q main
  git merge -q left
  if git merge -q right 2> /dev/null; then fail "expected a conflict"; fi
  grep -q '^<<<<<<<' "$conv" || fail "no conflict markers in the work tree"
  resolve
  git add "$conv"
  git commit -qm merge
  assert_no_changes
  assert_blobs_committed
  assert_both_sides_restored merge
}
case_ "merge: a conflict with markers, resolved and committed with every blob" merge

rebase() {
  git checkout -q right
  if git rebase -q left 2> /dev/null; then fail "expected a rebase conflict"; fi
  resolve
  git add "$conv"
  GIT_EDITOR=true git rebase --continue > /dev/null
  assert_no_changes
  assert_blobs_committed
  assert_both_sides_restored rebase
}
case_ "rebase right onto left: a conflict, resolved and continued with every blob" rebase
pass
