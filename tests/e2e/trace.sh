#!/usr/bin/env bash
# GIT_TRACE, read as git reads it (core/base/trace.hpp): git-jpblob's lines
# in git's format among git's own, where the value says (standard error, a
# descriptor, a file appended to), none when it is off, and a warning and
# none for a value git does not know (a relative path).
. "$(dirname "$0")/lib.sh"
unset GIT_TRACE GIT_TRACE_BARE

# git's layout: time to the microsecond, file:line padded to column 40 (at
# least one space), then "trace: git-jpblob: ".
LINE_RE='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} [A-Za-z0-9_]+\.cpp:[0-9]+ +trace: git-jpblob: '
OURS='trace: git-jpblob: '

# ours FILE: our trace lines in FILE, failing when one is not in git's
# format (a line cut into by another, or a wrong prefix) or is not aligned.
ours() {
  local bad
  bad=$(grep -F "$OURS" "$1" | grep -Ev "$LINE_RE" || true)
  [ -z "$bad" ] || fail "not in git's trace format: $(head -3 <<<"$bad")"
  bad=$(grep -F "$OURS" "$1" | awk -v ours="$OURS" '{ at = index($0, ours); if (at != 41 && !(at > 41 && substr($0, at - 1, 1) == " ")) print }')
  [ -z "$bad" ] || fail "not aligned at column 40: $(head -3 <<<"$bad")"
  grep -F "$OURS" "$1" || true
}

# has LINES PATTERN: fails unless an extended regex matches one line.
has() { grep -Eq -- "$2" <<<"$1" || fail "no trace line matching '$2' in: $(head -c 3000 <<<"$1")"; }

git init -q --bare "$TEST_ROOT/remote.git"
new_installed_repo
git remote add origin "$TEST_ROOT/remote.git"
conv=.jp/conversations/17758406187-traced/events.json

commit_traced() {
  write_conversation 17758406187-traced
  GIT_TRACE=1 git add .jp/conversations 2> "$TEST_ROOT/add.err"
  GIT_TRACE=1 git commit -qm traced 2> "$TEST_ROOT/commit.err"
  local add commit
  add=$(ours "$TEST_ROOT/add.err")
  commit=$(ours "$TEST_ROOT/commit.err")
  has "$add" "trace: git-jpblob: built-in: git-jpblob filter-process$"
  has "$add" "filter\.cpp:[0-9]+ +trace: git-jpblob: filter: clean $conv: 2 payloads referenced, 2 blobs newly stored$"
  has "$commit" "trace: git-jpblob: built-in: git-jpblob pre-commit$"
  has "$commit" "pre_commit\.cpp:[0-9]+ +trace: git-jpblob: pre-commit: $conv: 2 references \(.*\); 2 from "
  has "$commit" "trace: git-jpblob: pre-commit: 1 documents, 2 blobs staged .*: commit allowed$"
  has "$commit" "subprocess\.cpp:[0-9]+ +trace: git-jpblob: run_command: cd [^;]+; git "
  if lean_mode; then
    has "$commit" "trace: git-jpblob: lean: this work tree becomes lean at its first commit that tracks blobs$"
  else
    has "$commit" "trace: git-jpblob: lean: this work tree keeps its blob files: jpblob.lean is false"
  fi
  # git's own lines are there too, in the same stream.
  grep -q "trace: run_command:" "$TEST_ROOT/commit.err" || fail "git's own trace is missing"
  GIT_TRACE=1 git push -q origin main 2> "$TEST_ROOT/push.err"
  has "$(ours "$TEST_ROOT/push.err")" "trace: git-jpblob: pre-push: 2 commits of [0-9a-f]{40} checked, 2 references: push accepted$"
}
case_ "GIT_TRACE=1: the filter, the pre-commit hook and pre-push trace to standard error in git's format" commit_traced

# A conversation staged once and then dropped leaves two young blobs no
# document references.
write_conversation 17758406187-dropped "output nobody commits"
git add .jp/conversations/17758406187-dropped
git rm -q -r --cached .jp/conversations/17758406187-dropped
rm -r .jp/conversations/17758406187-dropped

gc_traced() {
  local out err young
  out=$(GIT_TRACE=1 git jpblob gc --dry-run 2> "$TEST_ROOT/gc.err")
  [ -n "$out" ] || fail "gc --dry-run printed nothing"
  err=$(ours "$TEST_ROOT/gc.err")
  has "$err" "main\.cpp:[0-9]+ +trace: git-jpblob: built-in: git-jpblob gc --dry-run$"
  has "$err" "trace: git-jpblob: gc: an unreferenced blob lives until 2.weeks.ago \(gc.pruneExpire\)$"
  has "$err" "gc\.cpp:[0-9]+ +trace: git-jpblob: gc: keeps 2 referenced, 0 only copies .*, [1-9][0-9]* unreferenced but young \(gc.pruneExpire or --prune: 1209600 s\)$"
  has "$err" "trace: git-jpblob: gc: deletes 0 files .*\(--dry-run: nothing changed\)$"
  # The dropped conversation's blob (and, in a lean tree, its kept copy).
  young=$(sed -n 's/.* gc: keeps .*, \([0-9]*\) unreferenced but young .*/\1/p' <<<"$err")
  err=$(GIT_TRACE=1 git jpblob gc --dry-run --prune=now 2>&1 > /dev/null | grep -F "$OURS")
  has "$err" "gc: an unreferenced blob lives until now \(--prune\)$"
  has "$err" "gc: keeps 2 referenced, 0 only copies .*, 0 unreferenced but young \(gc.pruneExpire or --prune: 0 s\)$"
  if [ -n "$(pending_records)" ]; then
    # A lean tree's new blob is in a pending pack (core/lean/pending_packs):
    # nothing to delete, the pack goes back to git's own gc.
    has "$err" "gc: deletes 0 files .*\(--dry-run: nothing changed\)$"
    has "$err" "gc: hands $young pending pack\(s\) back to git's gc: .*\(--dry-run: nothing changed\)$"
  else
    has "$err" "gc: deletes $young files .*\(--dry-run: nothing changed\)$"
  fi
}
case_ "GIT_TRACE=1: gc --dry-run traces the command and what it keeps and deletes, and why" gc_traced

to_a_file() {
  local log="$TEST_ROOT/trace.log"
  echo "a line written before" > "$log"
  GIT_TRACE="$log" git jpblob gc --dry-run > /dev/null 2> "$TEST_ROOT/gc.err"
  cp "$log" "$TEST_ROOT/first.log"
  [ "$(head -1 "$log")" = "a line written before" ] || fail "the file was not appended to: $(head -1 "$log")"
  GIT_TRACE="$log" git jpblob gc --dry-run > /dev/null 2>> "$TEST_ROOT/gc.err"
  cmp -s -n "$(stat -c %s "$TEST_ROOT/first.log")" "$TEST_ROOT/first.log" "$log" || fail "the second run overwrote the first"
  [ "$(grep -c -F "built-in: git-jpblob gc --dry-run" "$log")" -eq 2 ] || fail "the second run did not append"
  has "$(ours "$log")" "gc: keeps "
  ! grep -q "trace:" "$TEST_ROOT/gc.err" || fail "trace lines on standard error: $(cat "$TEST_ROOT/gc.err")"
  # Several processes (git, the filter, the hook) append to one file: each
  # line lands whole.
  write_conversation 17758406187-filed "traced into a file"
  GIT_TRACE="$log" git add .jp/conversations 2> "$TEST_ROOT/add.err"
  GIT_TRACE="$log" git commit -qm filed 2>> "$TEST_ROOT/add.err"
  ! grep -q "trace:" "$TEST_ROOT/add.err" || fail "trace lines on standard error: $(cat "$TEST_ROOT/add.err")"
  has "$(ours "$log")" "pre-commit: .jp/conversations/17758406187-filed/events.json: 2 references"
  has "$(ours "$log")" "filter: clean .jp/conversations/17758406187-filed/events.json: 2 payloads referenced"
}
case_ "GIT_TRACE=/absolute/path appends whole lines to that file; standard error stays free of them" to_a_file

off() {
  local value
  write_conversation 17758406187-quiet "not traced"
  git add .jp/conversations
  for value in 0 false FALSE "" unset; do
    if [ "$value" = unset ]; then
      (unset GIT_TRACE && grow_conversation "$conv" "unset $RANDOM" && git add "$conv" && git commit -qm quiet &&
        git jpblob gc --dry-run > /dev/null) 2> "$TEST_ROOT/off.err"
    else
      (export GIT_TRACE=$value && grow_conversation "$conv" "off $value" && git add "$conv" && git commit -qm quiet &&
        git jpblob gc --dry-run > /dev/null) 2> "$TEST_ROOT/off.err"
    fi
    ! grep -q "trace" "$TEST_ROOT/off.err" || fail "GIT_TRACE=$value traced: $(cat "$TEST_ROOT/off.err")"
  done
  [ "$(git log -1 --format=%s)" = quiet ] || fail "the commits did not happen"
}
case_ "GIT_TRACE=0, false, empty or unset: no trace" off

to_a_descriptor() {
  local out
  out=$(GIT_TRACE=9 git jpblob gc --dry-run 9> "$TEST_ROOT/fd9.log" 2> "$TEST_ROOT/fd.err")
  [ -n "$out" ] || fail "gc --dry-run printed nothing"
  has "$(ours "$TEST_ROOT/fd9.log")" "trace: git-jpblob: built-in: git-jpblob gc --dry-run$"
  has "$(ours "$TEST_ROOT/fd9.log")" "trace: git-jpblob: gc: keeps "
  ! grep -q "trace" "$TEST_ROOT/fd.err" || fail "trace lines on standard error: $(cat "$TEST_ROOT/fd.err")"
  # Each line is one write(2): a packet socket keeps each write a message
  # of its own, which must be one whole line.
  python3 - "$JPBLOB_BIN" <<'PY' || fail "a trace line took more than one write"
import os, socket, subprocess, sys
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
os.dup2(theirs.fileno(), 9)
env = dict(os.environ, GIT_TRACE="9")
# Read while it runs: a full socket would block its writes.
run = subprocess.Popen([sys.argv[1], "gc", "--dry-run"], env=env, pass_fds=(9,), stdout=subprocess.DEVNULL)
os.close(9)
theirs.close()
count, broken = 0, None
while True:
    message = ours.recv(1 << 16)
    if not message:
        break  # every writer (it, and the programs it ran) is done
    count += b"trace: git-jpblob: " in message
    if not broken and (not message.endswith(b"\n") or message.count(b"\n") != 1):
        broken = message
if run.wait() != 0:
    sys.exit("gc --dry-run failed")
if broken:
    sys.exit("not one line a write: %r" % broken)
if count < 3:
    sys.exit("only %d of our lines" % count)
PY
}
case_ "GIT_TRACE=9 traces to descriptor 9, one write(2) a line" to_a_descriptor

relative_refused() {
  local out
  out=$(GIT_TRACE=trace.log "$JPBLOB_BIN" gc --dry-run 2> "$TEST_ROOT/rel.err")
  [ -n "$out" ] || fail "gc --dry-run printed nothing"
  grep -qx "git-jpblob: warning: unknown trace value for 'GIT_TRACE': trace.log; to trace into a file, set GIT_TRACE to an absolute pathname (starting with /)" \
    "$TEST_ROOT/rel.err" || fail "no warning like git's: $(cat "$TEST_ROOT/rel.err")"
  [ "$(grep -c warning "$TEST_ROOT/rel.err")" -eq 1 ] || fail "warned more than once: $(cat "$TEST_ROOT/rel.err")"
  ! grep -q "trace:" "$TEST_ROOT/rel.err" || fail "traced anyway: $(cat "$TEST_ROOT/rel.err")"
  [ ! -e trace.log ] || fail "a relative file was written"
  GIT_TRACE=10 "$JPBLOB_BIN" gc --dry-run > /dev/null 2> "$TEST_ROOT/rel.err"
  grep -q "unknown trace value for 'GIT_TRACE': 10;" "$TEST_ROOT/rel.err" || fail "10: $(cat "$TEST_ROOT/rel.err")"
  ! grep -q "trace:" "$TEST_ROOT/rel.err" || fail "10 traced: $(cat "$TEST_ROOT/rel.err")"
}
case_ "a relative GIT_TRACE is refused with a warning like git's, and nothing is traced" relative_refused
pass
