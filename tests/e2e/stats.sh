#!/usr/bin/env bash
# stats: figures that match what the store holds. Dedup savings count only
# payloads whose blob is in the store; payloads not stored yet are counted
# apart, and an unreferenced blob saves nothing.
. "$(dirname "$0")/lib.sh"
new_installed_repo
a="alpha payload text, stored by git add"
c="never stored: this conversation was not added"
extra="an unreferenced blob, put there by git jpblob store"
write_conversation 1-a "$a"
git add .jp/conversations && git commit -qm a   # stores "$a" and the argument
write_conversation 2-b "$a"                    # not added: both its blobs are there already
write_conversation 3-c "$c"                    # not added: the argument is stored, "$c" is not
printf '%s' "$extra" > extra.txt
git jpblob store extra.txt > /dev/null
gz_bytes=$(held_blob_bytes)

stats_json_is_the_truth() {
  git jpblob stats --json | A=${#a} C=${#c} EXTRA=${#extra} GZ=$gz_bytes ARG=${#CONVERSATION_ARGUMENT} python3 -c '
import json, os, sys
s = json.load(sys.stdin)
a, c, extra, gz = (int(os.environ[k]) for k in ("A", "C", "EXTRA", "GZ"))
arg = int(os.environ["ARG"])
want = {
    "conversations": 3, "references": 0, "inline_payloads": 6,
    "inline_bytes": 2 * a + c + 3 * arg,
    "unique_blobs": 3, "unique_bytes": a + arg + extra, "stored_bytes": gz,
    "stored_payloads": 5, "stored_payload_bytes": 2 * a + 3 * arg,
    "stored_payload_unique_bytes": a + arg,
    "unstored_payloads": 1, "unstored_bytes": c,
    "dedup_saved_bytes": a + 2 * arg,
    "compression_saved_bytes": max(0, a + arg + extra - gz),
}
wrong = {k: (s.get(k), v) for k, v in want.items() if s.get(k) != v}
assert not wrong, "(got, want): %r" % wrong'
}
case_ "stats --json: dedup from stored blobs only, unstored payloads apart" stats_json_is_the_truth

stats_text() {
  local out
  out=$(git jpblob stats)
  grep -qx "saved by dedup:    $(( ${#a} + 2 * ${#CONVERSATION_ARGUMENT} )) bytes" <<<"$out" || fail "dedup line: $out"
  grep -qx "  not stored yet:  1 (${#c} bytes)" <<<"$out" || fail "not-stored line: $out"
  grep -qx "  in the store:    5 ($(( 2 * ${#a} + 3 * ${#CONVERSATION_ARGUMENT} )) bytes)" <<<"$out" || fail "in-store line: $out"
}
case_ "stats says the same in words" stats_text

# The progress line, on a terminal (script(1) gives one), counts what its
# label says: "Reading conversations" ends at the number of conversations,
# not at the versions read (a work-tree file and its staged version are
# one), and after git's delay only (GIT_PROGRESS_DELAY).
progress_counts_conversations() {
  new_installed_repo many
  local i
  for i in $(seq 1 12); do write_conversation "$i-c" "payload $i"; done
  git add .jp/conversations && git commit -qm twelve
  for i in 3 4; do write_conversation "$i-c" "payload $i, changed"; done  # a file and its staged version
  for i in $(seq 13 15); do write_conversation "$i-c" "payload $i"; done  # not added yet
  local cmd out
  for cmd in "stats" "gc --dry-run" "verify"; do
    out=$(GIT_PROGRESS_DELAY=0 script -qec "git jpblob $cmd" /dev/null)
    grep -q "Reading conversations: 100% (15/15), done\." <<<"$out" || fail "$cmd on 15 conversations: $out"
    ! grep -Eq "Reading conversations: +[0-9]+% \([0-9]+/(1[6-9]|[2-9][0-9])\)" <<<"$out" ||
      fail "$cmd counts more than 15: $out"
  done
  out=$(GIT_PROGRESS_DELAY=100 script -qec "git jpblob stats" /dev/null)
  ! grep -q "Reading conversations" <<<"$out" || fail "a progress line within GIT_PROGRESS_DELAY: $out"
  out=$(GIT_PROGRESS_DELAY=0 git jpblob stats 2>&1)
  ! grep -q "Reading conversations" <<<"$out" || fail "a progress line off a terminal: $out"
}
if command -v script > /dev/null; then
  case_ "the progress line counts conversations, after git's delay, on a terminal only" progress_counts_conversations
fi
pass
