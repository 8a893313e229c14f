#!/usr/bin/env bash
# Artifacts with a lifetime (issue #26, seeds artifact-store-ttl and
# session-storage-design): `run --json` and `--threshold`, the outputs.json
# index (20 concurrent runs lose no entry), jpblob.artifactTtl, the
# "expired" answer of cat, `artifacts gc` (expired, orphaned, one session;
# links never followed) and `artifacts stats`. Ages are set with touch -d.
# Artifacts a commit holds (issue #44, at the end): what git tracks or a
# tracked session cites outlives its TTL, and no lock file is ever there
# for `git add -A` to take.
. "$(dirname "$0")/lib.sh"
# Artifacts live beside session files and never pass through the filter:
# only the cases that commit a session run in both modes.
lean_only() {
  case_in_mode lean "nothing is committed, nothing passes through the filter: both modes would run the same" "$@"
}

git init -q "$TEST_ROOT/repo"
cd "$TEST_ROOT/repo"
mkdir -p .jp/sessions sub
sessions="$TEST_ROOT/repo/.jp/sessions"
s1="$sessions/2026-11-22T10-00-00_one.jsonl"
echo '{"type":"session","id":"one"}' > "$s1"
a1="${s1%.jsonl}"
# 60,000 bytes of numbered lines, "é" in each so the summary's cut meets
# two-byte characters.
gen='for i in $(seq 1 6000); do printf "é%07d\n" "$i"; done | head -c 60000'

# `py EXPR FILE`: EXPR evaluated with j = the JSON in FILE; fails unless true.
py() {
  python3 -c 'import json, sys; j = json.load(open(sys.argv[2])); sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" "$2" ||
    fail "not true of $2: $1 ($(head -c 600 "$2"))"
}

run_json_saved() {
  local status=0
  git jpblob run --json --session "$s1" --tool bash -- sh -c "$gen; exit 3" > run.json || status=$?
  [ "$status" -eq 3 ] || fail "run --json did not pass the exit status on (got $status)"
  sh -c "$gen" > expected.txt
  cmp -s "$a1/0.bash.log" expected.txt || fail "the artifact is not the whole output"
  py 'j["artifact_reference"] == "artifact://0"' run.json
  py 'j["size_bytes"] == 60000 and j["exit_status"] == 3 and "output" not in j' run.json
  py 'j["summary"] == open("expected.txt", encoding="utf-8").read()[:200].replace("\n", " ")' run.json
  py 'len(j["summary"]) == 200' run.json
  python3 -c 'import json,sys; h=json.load(open("run.json"))["hint"]; sys.exit(0 if "git jpblob cat artifact://0 --session '"$s1"' --offset 1 --limit" in h else 1)' ||
    fail "the hint does not say how to read it: $(cat run.json)"
}
lean_only "run --json prints the seed's hint object and passes the exit status on" run_json_saved

run_json_short() {
  git jpblob run --json --session "$s1" --tool bash -- echo hello > short.json
  py 'j["artifact_reference"] is None and j["hint"] is None and j["output"] == "hello\n"' short.json
  py 'j["summary"] == "hello " and j["size_bytes"] == 6' short.json
  [ ! -e "$a1/1.bash.log" ] || fail "a short output made an artifact"
}
lean_only "run --json on a short output: no reference, the output itself" run_json_short

threshold() {
  local out
  out=$(git jpblob run --threshold 12000 --session "$s1" --tool small -- sh -c 'head -c 11999 /dev/zero | tr "\0" x')
  [ "${#out}" -eq 11999 ] || fail "11,999 bytes under --threshold 12000 were not shown whole"
  [ ! -e "$a1/1.small.log" ] || fail "an output under the threshold was saved"
  git jpblob run --threshold 12000 --session "$s1" --tool small -- sh -c 'head -c 12001 /dev/zero | tr "\0" x' > t.txt
  [ "$(tail -n 1 t.txt)" = "[Output truncated: showing the last 12000 of 12001 bytes. Full output: artifact://1]" ] ||
    fail "unexpected: $(tail -n 1 t.txt)"
  [ "$(wc -c < "$a1/1.small.log")" -eq 12001 ] || fail "artifact 1 is not the whole output"
  git jpblob run --session "$s1" --tool small -- sh -c 'head -c 51200 /dev/zero' > /dev/null
  [ ! -e "$a1/2.small.log" ] || fail "the default threshold is no longer 51200 bytes"
  local err
  err=$(git jpblob run --threshold 0 --session "$s1" --tool x -- true 2>&1) && fail "--threshold 0 was taken"
  [[ "$err" == *"--threshold"* ]] || fail "unexpected: $err"
}
lean_only "run --threshold N (12000, the seed's) saves past N bytes; the default stays 51200" threshold

index_written() {
  py 'sorted(j["outputs"]) == ["0", "1"] and j["next"] == 2' "$a1/outputs.json"
  py 'j["outputs"]["0"]["tool"] == "bash" and j["outputs"]["0"]["size"] == 60000' "$a1/outputs.json"
  py 'j["outputs"]["1"]["tool"] == "small" and j["outputs"]["1"]["size"] == 12001' "$a1/outputs.json"
  py '__import__("re").fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", j["outputs"]["0"]["created"])' "$a1/outputs.json"
  py 'j["outputs"]["0"]["summary"] == json.load(open("run.json"))["summary"]' "$a1/outputs.json"
  if ls -a "$a1" | grep -q '^\.jpblob-tmp-'; then fail "a temporary file was left behind"; fi
}
lean_only "run writes outputs.json: tool, size, created (RFC 3339 UTC), summary" index_written

concurrent_runs() {
  local s="$sessions/2026-11-22T11-00-00_many.jsonl" i
  echo '{}' > "$s"
  for i in $(seq 1 20); do
    git jpblob run --session "$s" --tool "t$i" -- sh -c 'head -c 60000 /dev/zero | tr "\0" y' > /dev/null &
  done
  wait
  [ "$(ls "${s%.jsonl}"/*.log | wc -l)" -eq 20 ] || fail "not 20 artifacts: $(ls "${s%.jsonl}")"
  # Two runs of different tools that claim one number at once both give it
  # up (ArtifactAllocator), so numbers may skip one; none is shared, and
  # `next` is past every number given.
  py 'len(j["outputs"]) == 20 and j["next"] > max(int(k) for k in j["outputs"])' "${s%.jsonl}/outputs.json"
  [ "$(ls "${s%.jsonl}"/*.log | sed 's|.*/||; s|\..*||' | sort -u | wc -l)" -eq 20 ] ||
    fail "two artifacts share a number: $(ls "${s%.jsonl}")"
  py 'sorted(e["tool"] for e in j["outputs"].values()) == sorted("t%d" % i for i in range(1, 21))' "${s%.jsonl}/outputs.json"
  py 'all(e["size"] == 60000 for e in j["outputs"].values())' "${s%.jsonl}/outputs.json"
}
lean_only "20 concurrent runs in one session: 20 artifacts, 20 index entries" concurrent_runs

bad_ttl() {
  local err status=0
  err=$(git -c jpblob.artifactTtl=soon jpblob cat artifact://0 --session "$s1" 2>&1 > /dev/null) || status=$?
  [ "$status" -eq 128 ] || fail "a bad TTL gave exit $status (git's 128 for a bad config value)"
  [ "$err" = "git-jpblob: bad jpblob.artifactTtl 'soon': use a length git reads as a date (2.hours.ago, 1 day ago), seconds (3600), a number with s, m, h, d or w (30m, 2h), or never" ] ||
    fail "unexpected: $err"
  err=$(git -c jpblob.artifactTtl=1.5h jpblob artifacts gc 2>&1) && fail "gc ran with a bad TTL"
  [[ "$err" == *"jpblob.artifactTtl"* ]] || fail "unexpected: $err"
}
lean_only "a bad jpblob.artifactTtl is an error naming the key" bad_ttl

# `cat_says URL MESSAGE`: cat in session s1 fails saying MESSAGE, with
# exit 1 for an expired artifact (a problem found), 128 for one not found.
cat_says() {
  local err status=0 want=1
  [[ "$2" != *"not found"* ]] || want=128
  err=$(git jpblob cat "$1" --session "$s1" 2>&1 > /dev/null) || status=$?
  [ "$status" -eq "$want" ] || fail "cat $1 gave exit $status, not $want"
  [ "$err" = "$2" ] || fail "unexpected: $err"
}
expired_msg() { echo "git-jpblob: Artifact $1 expired: artifacts are kept for $2 (jpblob.artifactTtl); run the command again for its output"; }

expired_on_disk() {
  touch -d '2 hours ago' "$a1/0.bash.log"
  cat_says artifact://0 "$(expired_msg 0 1h)"
  git -c jpblob.artifactTtl=3h jpblob cat artifact://0 --session "$s1" | cmp -s - expected.txt || fail "not served with a 3h TTL"
  git -c jpblob.artifactTtl=never jpblob cat artifact://0 --session "$s1" > /dev/null || fail "not served with never"
  git -c jpblob.artifactTtl=7200 jpblob cat artifact://1 --session "$s1" > /dev/null || fail "a young artifact was refused"
  touch -d '45 minutes ago' "$a1/1.small.log"
  git config jpblob.artifactTtl 30m
  local err
  err=$(git jpblob cat artifact://1 --session "$s1" 2>&1) && fail "45 minutes old under a 30m TTL was served"
  [ "$err" = "$(expired_msg 1 30m)" ] || fail "unexpected: $err"
  git config --unset jpblob.artifactTtl
  git jpblob cat artifact://1 --session "$s1" > /dev/null || fail "45 minutes old under the default hour was refused"
}
lean_only "cat answers 'expired' past the TTL (default 1h; 3h, never, 7200, 30m from git config)" expired_on_disk

gc_dry_run() {
  git jpblob artifacts gc --dry-run --json > dry.json
  python3 - "$a1/0.bash.log" <<'PY' || fail "dry run did not list exactly artifact 0: $(cat dry.json)"
import json, sys
j = json.load(open("dry.json"))
sys.exit(0 if j["dry_run"] and j["ttl_seconds"] == 3600 and j["removed"] == [sys.argv[1]] and j["removed_bytes"] == 60000 else 1)
PY
  [ -f "$a1/0.bash.log" ] || fail "--dry-run removed the artifact"
}
lean_only "artifacts gc --dry-run --json says what it would remove and removes nothing" gc_dry_run

gc_expired() {
  (cd sub && git jpblob artifacts gc) > gc.txt
  grep -qx "removed $a1/0.bash.log" gc.txt || fail "gc did not say it removed artifact 0: $(cat gc.txt)"
  [ ! -e "$a1/0.bash.log" ] || fail "the expired artifact is still there"
  [ -f "$a1/1.small.log" ] || fail "a live artifact was removed"
  [ "$(ls "${sessions}/2026-11-22T11-00-00_many"/*.log | wc -l)" -eq 20 ] || fail "another session's live artifacts went"
  py 'sorted(j["outputs"]) == ["1"] and j["next"] == 2' "$a1/outputs.json"
  cat_says artifact://0 "$(expired_msg 0 1h)"
  git jpblob run --session "$s1" --tool bash -- sh -c "$gen" > /dev/null
  [ -f "$a1/2.bash.log" ] || fail "the next run did not continue after the removed number: $(ls "$a1")"
}
lean_only "artifacts gc (from a subfolder) removes what expired, drops its entry, keeps its number; cat still says expired" gc_expired

known_to_index_only() {
  local s="$sessions/2026-11-22T12-00-00_lone.jsonl" err
  echo '{}' > "$s"
  git jpblob run --session "$s" --tool bash -- sh -c 'seq 1 20000' > /dev/null
  touch -d '2 hours ago' "${s%.jsonl}/0.bash.log"
  git jpblob artifacts gc > /dev/null
  [ "$(ls "${s%.jsonl}")" = outputs.json ] || fail "left: $(ls "${s%.jsonl}")"
  err=$(git jpblob cat artifact://0 --session "$s" 2>&1) && fail "served a removed artifact"
  [ "$err" = "$(expired_msg 0 1h)" ] || fail "unexpected: $err"
  err=$(git jpblob cat artifact://1 --session "$s" 2>&1) && fail "served artifact 1"
  [ "$err" = "git-jpblob: Artifact 1 not found. Available: none" ] || fail "unexpected: $err"
  # The number stays taken: the next output is artifact 1, never 0 again.
  git jpblob run --session "$s" --tool bash -- sh -c 'seq 1 20000' > /dev/null
  [ -f "${s%.jsonl}/1.bash.log" ] && [ ! -e "${s%.jsonl}/0.bash.log" ] || fail "a removed number was given out again: $(ls "${s%.jsonl}")"
  rm -r "${s%.jsonl}" "$s"
}
lean_only "an artifact gc removed is known to the index alone and still answers expired" known_to_index_only

expired_without_index() {
  mv "$a1/outputs.json" "$TEST_ROOT/outputs.saved"
  touch -d '3 hours ago' "$a1/1.small.log"
  git jpblob artifacts gc > /dev/null
  [ ! -e "$a1/1.small.log" ] || fail "gc did not remove artifact 1"
  rm -f "$a1/outputs.json"
  cat_says artifact://0 "$(expired_msg 0 1h)"
  cat_says artifact://1 "$(expired_msg 1 1h)"
  cat_says artifact://3 "git-jpblob: Artifact 3 not found. Available: 2"
  cat_says artifact://99 "git-jpblob: Artifact 99 not found. Available: 2"
}
lean_only "with the index gone, an id below the folder's highest is expired; one never given out is not found" expired_without_index

orphans_and_links() {
  local orphan="$sessions/2026-11-20T09-00-00_gone" outside="$TEST_ROOT/outside"
  mkdir -p "$orphan" "$outside/victim"
  echo old > "$orphan/0.bash.log"
  echo agent > "$orphan/0-Explore.md"
  echo '{"next":1,"outputs":{}}' > "$orphan/outputs.json"
  touch -d '2 hours ago' "$orphan"/*
  # A fresh orphan: its session file is not in this checkout (a branch
  # switch), its artifacts younger than the TTL: kept, whole.
  local fresh="$sessions/2026-11-20T10-00-00_elsewhere"
  mkdir -p "$fresh" && echo fresh > "$fresh/0.bash.log" && echo agent > "$fresh/0-Plan.md"
  echo precious > "$outside/victim/0.bash.log"
  echo precious > "$outside/keep.log"
  touch -d '1 day ago' "$outside/victim/0.bash.log" "$outside/keep.log"
  ln -s "$outside/victim" "$sessions/2026-11-20T09-30-00_linked"
  ln -s "$outside/keep.log" "$a1/7.bash.log"
  touch -h -d '1 day ago' "$a1/7.bash.log"
  git jpblob artifacts gc --json > gc.json 2> gc.err
  [ ! -e "$orphan" ] || fail "the orphaned folder is still there: $(ls -a "$orphan")"
  [ -f "$fresh/0.bash.log" ] && [ -f "$fresh/0-Plan.md" ] || fail "gc removed a fresh orphan's artifacts"
  rm -r "$fresh"
  [ "$(cat "$outside/victim/0.bash.log")" = precious ] || fail "gc followed a linked session folder"
  [ "$(cat "$outside/keep.log")" = precious ] || fail "gc followed a linked artifact"
  [ -L "$a1/7.bash.log" ] || fail "gc removed the link instead of leaving it alone"
  grep -q "2026-11-20T09-30-00_linked is a symbolic link; skipped" gc.err || fail "no word about the linked folder: $(cat gc.err)"
  grep -q "7.bash.log is a symbolic link; left alone" gc.err || fail "no word about the linked artifact: $(cat gc.err)"
  py 'any(p.endswith("_gone") for p in j["removed_folders"])' gc.json
  py 'len(j["skipped"]) == 2' gc.json
  rm "$a1/7.bash.log" "$sessions/2026-11-20T09-30-00_linked"
}
lean_only "gc removes expired orphaned folders whole, keeps a fresh orphan, and never follows a linked folder or artifact" orphans_and_links

linked_sessions_root() {
  git init -q "$TEST_ROOT/hostile"
  mkdir -p "$TEST_ROOT/elsewhere/x" "$TEST_ROOT/hostile/.jp"
  echo precious > "$TEST_ROOT/elsewhere/x/0.bash.log"
  touch -d '1 day ago' "$TEST_ROOT/elsewhere/x/0.bash.log"
  ln -s "$TEST_ROOT/elsewhere" "$TEST_ROOT/hostile/.jp/sessions"
  local err status=0
  err=$(cd "$TEST_ROOT/hostile" && git jpblob artifacts gc 2>&1) || status=$?
  [ "$status" -eq 128 ] || fail "gc through a linked .jp/sessions gave exit $status"
  [[ "$err" == *"refusing .jp/sessions: it is a symbolic link"* ]] || fail "unexpected: $err"
  [ -f "$TEST_ROOT/elsewhere/x/0.bash.log" ] || fail "gc deleted through the link"
  err=$(cd "$TEST_ROOT/hostile" && git jpblob artifacts gc --session .jp/sessions/x.jsonl 2>&1) && fail "--session through a link was taken"
  [ -f "$TEST_ROOT/elsewhere/x/0.bash.log" ] || fail "gc --session deleted through the link"
}
lean_only "a .jp/sessions that is a symbolic link is refused, nothing behind it touched" linked_sessions_root

stats_json() {
  git jpblob artifacts stats --session "$s1" --json > st1.json
  py 'j["artifact_count"] == 1 and j["total_bytes"] == 60000 and j["tools"] == {"bash": {"count": 1, "bytes": 60000}}' st1.json
  git jpblob artifacts stats --json > st.json
  py 'j["artifact_count"] == 21 and j["total_bytes"] == 21 * 60000 and j["tools"]["t7"] == {"count": 1, "bytes": 60000}' st.json
  py 'j["tools"]["bash"]["count"] == 1 and j["sessions"] == 2' st.json
  [ "$(git jpblob artifacts stats --session "$s1" | head -n 1)" = "artifacts: 1 (60000 bytes) in 1 session folder(s)" ] ||
    fail "unexpected: $(git jpblob artifacts stats --session "$s1")"
}
lean_only "artifacts stats [--session F] --json: artifact_count, total_bytes, per tool" stats_json

gc_session() {
  local s="$sessions/2026-11-22T11-00-00_many.jsonl"
  echo agent > "${s%.jsonl}/0-Explore.md"
  git jpblob artifacts gc --session "$s" --json > gs.json 2> gs.err
  [ ! -s gs.err ] || fail "unexpected warnings: $(cat gs.err)"
  py 'len(j["removed"]) == 21 and j["removed_bytes"] > 20 * 60000' gs.json
  [ "$(ls -A "${s%.jsonl}")" = "0-Explore.md" ] || fail "left behind: $(ls -A "${s%.jsonl}")"
  [ -f "$a1/2.bash.log" ] || fail "another session's artifact was removed"
}
lean_only "artifacts gc --session F removes that session's artifacts and index, keeping subagent outputs" gc_session

session_expired() {
  local s="$TEST_ROOT/elsewhere-sessions/2026-11-23T08-00-00_out.jsonl" inside="$sessions/2026-11-22T13-00-00_in.jsonl"
  mkdir -p "${s%.jsonl}" "${inside%.jsonl}"
  echo '{}' > "$s"
  echo '{}' > "$inside"
  echo old > "${s%.jsonl}/0.bash.log"
  echo new > "${s%.jsonl}/1.bash.log"
  echo old > "${inside%.jsonl}/0.bash.log"
  touch -d '2 hours ago' "${s%.jsonl}/0.bash.log" "${inside%.jsonl}/0.bash.log"
  git jpblob artifacts gc --session "$s" --expired --json > se.json
  python3 - "${s%.jsonl}/0.bash.log" "${inside%.jsonl}/0.bash.log" <<'PY' || fail "unexpected: $(cat se.json)"
import json, sys
j = json.load(open("se.json"))
sys.exit(0 if sorted(j["removed"]) == sorted(sys.argv[1:]) and j["ttl_seconds"] == 3600 else 1)
PY
  [ -f "${s%.jsonl}/1.bash.log" ] || fail "the young artifact went"
  # Named by --session and also under .jp/sessions: swept once, not twice.
  echo old > "${inside%.jsonl}/1.bash.log"
  touch -d '2 hours ago' "${inside%.jsonl}/1.bash.log"
  git jpblob artifacts gc --session "$inside" --expired --dry-run --json > se2.json
  py 'len(j["removed"]) == 1' se2.json
  rm -r "${inside%.jsonl}" "$inside"
}
lean_only "artifacts gc --session F --expired: F's expired artifacts and every folder's under .jp/sessions, each once" session_expired

help_lists() {
  git jpblob help | grep -q '^  artifacts ' || fail "help does not list artifacts"
  git jpblob artifacts gc --help | grep -q -- '--expired' || fail "gc --help lacks --expired"
  git jpblob run --help | grep -q -- '--threshold' || fail "run --help lacks --threshold"
  git jpblob artifacts | grep -q '^  stats ' || fail "git jpblob artifacts alone does not list gc and stats"
}
lean_only "the commands are listed with their options" help_lists

completion() {
  [ -f /usr/share/bash-completion/completions/git ] || fail "git's bash completion is not installed"
  local out
  out=$(complete_words git jpblob art)
  grep -qx "artifacts " <<<"$out" || fail "git jpblob art<TAB>: $out"
  out=$(complete_words git jpblob artifacts "")
  grep -qx "gc " <<<"$out" && grep -qx "stats " <<<"$out" || fail "git jpblob artifacts <TAB>: $out"
  out=$(complete_words git jpblob artifacts gc --ex)
  grep -qx -- "--expired " <<<"$out" || fail "git jpblob artifacts gc --ex<TAB>: $out"
  out=$(complete_words git jpblob run --thr)
  grep -qx -- "--threshold=" <<<"$out" || fail "git jpblob run --thr<TAB>: $out"
}
lean_only "bash completion: artifacts gc|stats and the new flags" completion

# ---- Artifacts a commit holds (issue #44), in both modes: the session
# passes through the filter and its commit through the hook.
tracked="$TEST_ROOT/tracked"
ts="$tracked/.jp/sessions/2026-11-24T09-00-00_kept.jsonl"
ta="${ts%.jsonl}"
seq_30000="$TEST_ROOT/seq-30000.txt"
seq 1 30000 > "$seq_30000"

# `no_lock_staged WHEN`: `git add -A` takes no lock file, nor anything
# named like one; WHEN says after which command.
no_lock_staged() {
  git add -A
  local staged
  staged=$(git status --porcelain --untracked-files=all)
  if grep -q 'lock' <<<"$staged"; then fail "after $1, git add -A took a lock file: $staged"; fi
}

# `kept_json FILE PATH WHY`: FILE (gc --json) keeps exactly PATH for WHY.
kept_json() {
  python3 - "$@" <<'PY' || fail "$2 is not kept for '$3' alone: $(cat "$1")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["kept"] == [{"path": sys.argv[2], "why": sys.argv[3]}] else 1)
PY
}

no_lock_for_git_add() {
  new_installed_repo tracked
  mkdir -p .jp/sessions
  echo '{"type":"session","id":"kept"}' > "$ts"
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  [ -f "$ta/0.bash.log" ] || fail "run saved no artifact: $(ls -A "$ta")"
  no_lock_staged "git jpblob run"
  echo '{"type":"message","text":"Full output: artifact://0"}' >> "$ts"
  git jpblob artifacts gc > /dev/null
  no_lock_staged "git jpblob artifacts gc"
  git jpblob artifacts gc --dry-run > /dev/null
  git jpblob artifacts stats > /dev/null
  git jpblob cat artifact://0 --session "$ts" > /dev/null
  no_lock_staged "artifacts gc --dry-run, artifacts stats and cat"
  git commit -qm "a session and its artifacts"
  git ls-files --error-unmatch "$ta/0.bash.log" "$ta/outputs.json" > /dev/null || fail "the artifacts were not committed"
  if [ -n "$(find "$ta" -name '*lock*')" ]; then fail "a lock file is left in the folder: $(ls -A "$ta")"; fi
}
case_ "after any artifact command, git add -A takes no lock file" no_lock_for_git_add

tracked_outlives_ttl() {
  cd "$tracked"
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  [ -f "$ta/1.bash.log" ] || fail "run saved no artifact 1: $(ls -A "$ta")"
  touch -d '2 hours ago' "$ta/0.bash.log" "$ta/1.bash.log"
  git jpblob artifacts gc --json > "$TEST_ROOT/tracked-gc.json"
  [ -f "$ta/0.bash.log" ] || fail "artifacts gc deleted 0.bash.log, which git tracks"
  [ ! -e "$ta/1.bash.log" ] || fail "the untracked expired artifact 1 is still there"
  kept_json "$TEST_ROOT/tracked-gc.json" "$ta/0.bash.log" "tracked by git"
  python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["removed"] == [sys.argv[2]] else 1)' \
    "$TEST_ROOT/tracked-gc.json" "$ta/1.bash.log" || fail "gc did not remove artifact 1 alone: $(cat "$TEST_ROOT/tracked-gc.json")"
  if git status --porcelain | grep -q '^.D'; then fail "gc deleted a tracked file: $(git status --porcelain)"; fi
  git jpblob cat artifact://0 --session "$ts" | cmp -s - "$seq_30000" || fail "the committed session no longer resolves artifact://0"
  local out
  out=$(git jpblob artifacts gc)
  grep -qx "kept $ta/0.bash.log: tracked by git" <<<"$out" || fail "gc does not say what it kept and why: $out"
  no_lock_staged "artifacts gc over a tracked artifact"
  git commit -qm "artifact 1 went" --allow-empty
}
case_ "artifacts gc past the TTL keeps the tracked 0.bash.log (cat still resolves it) and removes an untracked one" tracked_outlives_ttl

cited_by_staged_session() {
  cd "$tracked"
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  [ -f "$ta/2.bash.log" ] && [ -f "$ta/3.bash.log" ] || fail "run did not save artifacts 2 and 3: $(ls -A "$ta")"
  echo '{"type":"message","text":"Full output: artifact://2"}' >> "$ts"
  git add "$ts"
  # Cited by the work-tree file alone, which the agent still writes: it
  # would cite every artifact for ever.
  echo '{"type":"message","text":"Full output: artifact://3"}' >> "$ts"
  touch -d '2 hours ago' "$ta/2.bash.log" "$ta/3.bash.log"
  git jpblob artifacts gc --json > "$TEST_ROOT/cited-gc.json"
  [ -f "$ta/2.bash.log" ] || fail "gc deleted artifact 2, which the staged session cites"
  [ ! -e "$ta/3.bash.log" ] || fail "artifact 3, cited by the work-tree session alone, outlived its TTL"
  python3 - "$TEST_ROOT/cited-gc.json" "$ta/2.bash.log" "cited by $ts, which git tracks" <<'PY' || fail "unexpected: $(cat "$TEST_ROOT/cited-gc.json")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if {"path": sys.argv[2], "why": sys.argv[3]} in j["kept"] else 1)
PY
  git jpblob cat artifact://2 --session "$ts" | cmp -s - "$seq_30000" || fail "the staged session no longer resolves artifact://2"
}
case_ "an untracked artifact the staged session cites outlives its TTL; one only the work-tree session cites does not" cited_by_staged_session

session_cleanup_keeps_tracked() {
  cd "$tracked"
  git jpblob artifacts gc --session "$ts" --json > "$TEST_ROOT/session-gc.json"
  [ -f "$ta/0.bash.log" ] && [ -f "$ta/outputs.json" ] || fail "gc --session deleted tracked files: $(ls -A "$ta")"
  [ -f "$ta/2.bash.log" ] || fail "gc --session deleted artifact 2, which the staged session cites"
  python3 - "$TEST_ROOT/session-gc.json" "$ta" <<'PY' || fail "unexpected: $(cat "$TEST_ROOT/session-gc.json")"
import json, sys
j, a = json.load(open(sys.argv[1])), sys.argv[2]
sys.exit(0 if sorted(k["path"] for k in j["kept"]) == [a + "/0.bash.log", a + "/2.bash.log", a + "/outputs.json"]
         and j["removed"] == [] and j["removed_folders"] == [] else 1)
PY
  if git status --porcelain | grep -q '^.D'; then fail "gc --session deleted a tracked file: $(git status --porcelain)"; fi
  no_lock_staged "artifacts gc --session"
}
case_ "artifacts gc --session keeps what git tracks or the tracked session cites" session_cleanup_keeps_tracked

# A `.outputs.lock` an earlier git-jpblob left in the folder: removed when
# free, left while a process holds it, kept (and named) when committed.
legacy_lock() {
  cd "$tracked"
  : > "$ta/.outputs.lock"
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  [ ! -e "$ta/.outputs.lock" ] || fail "run left an earlier version's free lock in the folder"
  : > "$ta/.outputs.lock"
  flock "$ta/.outputs.lock" sh -c ': > "$1"; while [ ! -e "$2" ]; do sleep 0.1; done' _ "$TEST_ROOT/held" "$TEST_ROOT/release" &
  local holder=$! i
  for i in $(seq 1 300); do [ -e "$TEST_ROOT/held" ] && break; sleep 0.1; done
  [ -e "$TEST_ROOT/held" ] || fail "flock never took the lock"
  git jpblob run --session "$ts" --tool bash -- sh -c 'seq 1 30000' > /dev/null
  local present=yes
  [ -e "$ta/.outputs.lock" ] || present=no
  : > "$TEST_ROOT/release"
  wait "$holder"
  [ "$present" = yes ] || fail "run removed a lock another process held"
  git add -f "$ta/.outputs.lock"
  git commit -qm "an earlier git-jpblob's lock, committed"
  git jpblob artifacts gc > "$TEST_ROOT/legacy-gc.txt"
  [ -e "$ta/.outputs.lock" ] || fail "gc removed a lock file git tracks"
  grep -q "^kept $ta/.outputs.lock: tracked by git: an earlier git-jpblob's lock" "$TEST_ROOT/legacy-gc.txt" ||
    fail "gc does not name the committed lock: $(cat "$TEST_ROOT/legacy-gc.txt")"
}
case_ "an earlier version's .outputs.lock: removed when free, left while held or committed" legacy_lock

deleted_session_is_no_orphan() {
  cd "$tracked"
  echo agent > "$ta/0-Explore.md"
  rm "$ts"
  find "$ta" -type f -exec touch -d '2 hours ago' {} +
  git jpblob artifacts gc > /dev/null
  [ -f "$ta/0-Explore.md" ] || fail "gc took the folder of a session the index still holds for an orphan"
  git checkout -- "$ts"
  [ -f "$ts" ] || fail "git did not give the session back"
}
case_ "a session file deleted from the work tree but held by the index leaves no orphan folder" deleted_session_is_no_orphan

outside_any_repository() {
  local s="$TEST_ROOT/loose-sessions/2026-11-24T10-00-00_loose.jsonl"
  mkdir -p "${s%/*}"
  echo '{}' > "$s"
  (cd "${s%/*}" && git jpblob run --session "$s" --tool bash -- sh -c 'seq 1 30000' > /dev/null)
  [ -f "${s%.jsonl}/.outputs.lock" ] || fail "outside a repository the lock is no longer in the folder: $(ls -A "${s%.jsonl}")"
  touch -d '2 hours ago' "${s%.jsonl}/0.bash.log"
  (cd "${s%/*}" && git jpblob artifacts gc --session "$s" --expired > /dev/null)
  [ ! -e "${s%.jsonl}/0.bash.log" ] || fail "outside a repository an expired artifact was kept"
}
case_ "outside any repository: the lock stays in the folder, expired artifacts go" outside_any_repository
pass
