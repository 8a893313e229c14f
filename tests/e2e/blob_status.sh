#!/usr/bin/env bash
# git jpblob status: for each conversation of the index, whether every blob
# is committed, some are staged, some are not staged yet (the git folder in a
# lean tree, an untracked blob file otherwise), or some are in no copy; the
# same counts in words and in --json.
. "$(dirname "$0")/lib.sh"
new_installed_repo
write_conversation 1-committed "output committed with its conversation"
git add .jp && git commit -qm committed
write_conversation 2-staged "output the aborted commit staged"
git add .jp
# The hook stages the blobs, then git stops at the empty message.
git commit -qm "" 2> /dev/null && fail "the set-up's commit went through"
# Only the conversations: with the store checked out, `git add .jp` would
# stage the new blob files too.
write_conversation 3-added "output added, not committed"
git add .jp/conversations
write_conversation 4-missing "output whose every copy is gone"
git add .jp/conversations
gone=$(printf '%s' "output whose every copy is gone" | sha256sum | cut -c1-64)
remove_blob_files "$gone"

status_json_counts_each_state() {
  git jpblob status --json > "$TEST_ROOT/status.json"
  GONE=$gone LEAN=$JPBLOB_TEST_LEAN python3 - "$TEST_ROOT/status.json" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
want = {"conversations": 4, "committed": 1, "staged": 1, "not_staged": 1, "missing": 1,
        "lean": os.environ["LEAN"] != "0"}
wrong = {k: (s.get(k), v) for k, v in want.items() if s.get(k) != v}
assert not wrong, "(got, want): %r" % wrong
by_path = {d["path"].split("/")[2]: d for d in s["documents"]}
states = {k: d["state"] for k, d in by_path.items()}
assert states == {"1-committed": "committed", "2-staged": "staged", "3-added": "not_staged",
                  "4-missing": "missing"}, states
assert by_path["4-missing"]["missing"] == [os.environ["GONE"]], by_path["4-missing"]
assert by_path["1-committed"]["blobs"] == 2, by_path["1-committed"]
PY
}
case_ "status --json: one conversation in each state, the missing blob named" status_json_counts_each_state

status_text_says_the_same() {
  local out
  out=$(git jpblob status)
  grep -q "^4 conversation(s) in the index: 1 with every blob committed, 1 with blobs staged, 1 with blobs not staged yet, 1 missing a blob$" <<<"$out" ||
    fail "counts line: $out"
  grep -q "^    missing $gone$" <<<"$out" || fail "the missing blob is not named: $out"
  grep -A1 '^Blobs staged' <<<"$out" | grep -q '2-staged' || fail "staged section: $out"
  if lean_mode; then grep -q '^lean work tree: yes$' <<<"$out" || fail "lean line: $out"; fi
}
case_ "status in words: the counts, each section, the missing digest" status_text_says_the_same

commit_makes_all_committed() {
  remove_conversation_4() { git rm -q -r --cached .jp/conversations/4-missing && rm -rf .jp/conversations/4-missing; }
  remove_conversation_4
  git commit -qm rest
  git jpblob status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert (s["conversations"], s["committed"], s["staged"], s["not_staged"], s["missing"]) == (3, 3, 0, 0, 0), s'
}
case_ "after the commit every conversation has its blobs committed" commit_makes_all_committed

outside_a_work_tree() {
  cd "$TEST_ROOT"
  local rc=0
  git jpblob status > /dev/null 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" -eq 128 ] || fail "exit $rc outside a repository"
  grep -q "status must run in a work tree" "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
}
case_ "outside a work tree: a usage error that says why" outside_a_work_tree
pass
