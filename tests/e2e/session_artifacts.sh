#!/usr/bin/env bash
# git jpblob run / cat: a command printing 1 MB keeps its last
# 50 KB on screen and the whole output as artifact://<id>, read back in pages.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"

mkdir -p "$TEST_ROOT/agent" && cd "$TEST_ROOT/agent"
session="$TEST_ROOT/agent/2026-11-22T10-00-00_abc123.jsonl"
echo '{"type":"session","id":"abc123"}' > "$session"
artifacts="${session%.jsonl}"

# 1 MB of numbered lines on stdout, a line on stderr, and a failing status.
gen='for i in $(seq 1 70000); do printf "line %06d of the output\n" "$i"; done | head -c 1048576; echo "warning: on stderr" >&2; exit 7'
sh -c "$gen" > expected.txt 2>&1 || true

run_keeps_whole_output() {
  [ "$(wc -c < expected.txt)" -gt 1048576 ] || fail "the generator printed too little"
  local status
  set +e
  git jpblob run --session "$session" --tool bash -- sh -c "$gen" > shown.txt
  status=$?
  set -e
  [ "$status" -eq 7 ] || fail "run did not pass the command's exit status on (got $status)"
  [ -f "$artifacts/0.bash.log" ] || fail "no artifact file 0.bash.log"
  cmp -s "$artifacts/0.bash.log" expected.txt || fail "the artifact is not the whole output"
}
case_ "run keeps the whole output as artifact 0 and passes the exit status on" run_keeps_whole_output

run_shows_tail() {
  local last
  last=$(tail -n 1 shown.txt)
  [ "$last" = "[Output truncated: showing the last 51200 of $(wc -c < expected.txt) bytes. Full output: artifact://0]" ] ||
    fail "unexpected summary line: $last"
  head -n -1 shown.txt | cmp -s - <(tail -c 51200 expected.txt) || fail "the tail shown is not the last 50 KB"
}
case_ "run shows the last 50 KB and a line naming the artifact" run_shows_tail

# Following the notices.
cat_in_pages() {
  local offset=1 notice
  : > pages.txt
  while :; do
    git jpblob cat "artifact://0" --session "$session" --offset "$offset" --limit 10000 > page.txt
    notice=$(tail -n 1 page.txt)
    if [[ "$notice" == "[Showing lines "* ]]; then
      head -n -1 page.txt >> pages.txt
      offset=$(sed -n 's/.*Use --offset \([0-9]*\) to continue.*/\1/p' <<< "$notice")
      [ -n "$offset" ] || fail "no offset in the notice: $notice"
    else
      cat page.txt >> pages.txt
      break
    fi
  done
  cmp -s pages.txt expected.txt || fail "the pages do not add up to the output"
}
case_ "cat reads the artifact back in pages of 10,000 lines" cat_in_pages

cat_whole() {
  git jpblob cat "artifact://0" --session "$session" | cmp -s - expected.txt || fail "cat without paging differs"
}
case_ "cat without paging gives the whole output" cat_whole

numbering_continues() {
  git jpblob run --session "$session" --tool python -- sh -c 'seq 1 20000' > /dev/null
  [ -f "$artifacts/1.python.log" ] || fail "the next artifact is not 1.python.log"
  local out
  out=$(git jpblob run --session "$session" --tool bash -- echo short)
  [ "$out" = "short" ] || fail "short output changed: $out"
  [ "$(ls "$artifacts"/*.log | wc -l)" -eq 2 ] || fail "a short output made an artifact"
}
case_ "a second run continues the numbering; a short one keeps no artifact" numbering_continues

# `git jpblob cat URL --session SESSION` fails saying exactly MESSAGE.
cat_says() {
  local err
  err=$(git jpblob cat "$1" --session "$2" 2>&1 || true)
  [ "$err" = "$3" ] || fail "unexpected: $err"
}

unknown_artifact() {
  cat_says "artifact://5" "$session" "git-jpblob: Artifact 5 not found. Available: 0, 1"
}
case_ "an unknown artifact names the ones there are" unknown_artifact

traversal_refused() {
  local url
  for url in 'artifact://../../etc/passwd' 'agent://..%2F..%2Fetc' 'blob:sha256:../x'; do
    if git jpblob cat "$url" --session "$session" > out.txt 2> err.txt; then fail "$url was served"; fi
    [ ! -s out.txt ] || fail "$url printed something"
  done
}
case_ "URLs that climb out of their folder are refused" traversal_refused

no_artifacts_folder() {
  cat_says "artifact://0" "$TEST_ROOT/agent/none.jsonl" "git-jpblob: No artifacts directory found"
}
case_ "a session without an artifacts folder says so" no_artifacts_folder

link_outside_refused() {
  ln -s /etc/passwd "$artifacts/9.bash.log"
  local err
  err=$(git jpblob cat "artifact://9" --session "$session" 2>&1 || true)
  [[ "$err" == *"symbolic link leading outside the artifacts folder"* ]] || fail "unexpected: $err"
}
case_ "an artifact that links outside the folder is refused" link_outside_refused

agent_extraction() {
  printf '{"files":[{"path":"src/main.rs","lines":120}]}\n' > "$artifacts/0-Explore.md"
  [ "$(git jpblob cat 'agent://0-Explore/files/0/path' --session "$session")" = "src/main.rs" ] || fail "path extraction"
  [ "$(git jpblob cat 'agent://0-Explore?q=.files[0].lines' --session "$session")" = "120" ] || fail "query extraction"
}
case_ "subagent outputs through agent://, with extraction" agent_extraction

# Today's oh-my-pi names subagent outputs by name: Anna, a repeated name
# Anna-2, Anna's child Anna.Bob, reached as agent://Anna/Bob too.
name_first_ids() {
  printf 'first\n' > "$artifacts/Anna.md"
  printf 'second\n' > "$artifacts/Anna-2.md"
  printf '{"verdict":"ok"}\n' > "$artifacts/Anna.Bob.md"
  [ "$(git jpblob cat 'agent://Anna-2' --session "$session")" = "second" ] || fail "agent://Anna-2"
  [ "$(git jpblob cat 'agent://Anna.Bob' --session "$session")" = '{"verdict":"ok"}' ] || fail "agent://Anna.Bob"
  [ "$(git jpblob cat 'agent://Anna/Bob' --session "$session")" = '{"verdict":"ok"}' ] || fail "agent://Anna/Bob"
  [ "$(git jpblob cat 'agent://Anna.Bob/verdict' --session "$session")" = "ok" ] || fail "extraction from Anna.Bob"
  cat_says "agent://Zoe" "$session" "git-jpblob: Not found: Zoe. Available: 0-Explore, Anna, Anna-2, Anna.Bob"
}
case_ "oh-my-pi's name-first agent ids (Anna, Anna-2, Anna.Bob, agent://Anna/Bob)" name_first_ids

terminal_streams() {
  script -qec "git jpblob run --session '$session' --tool tty -- sh -c 'seq 1 30000'" /dev/null > tty.txt
  tr -d '\r' < tty.txt > tty.clean
  head -n 1 tty.clean | grep -qx 1 || fail "the terminal did not see the output from its start"
  local id
  id=$(tail -n 1 tty.clean | sed -n 's/^\[Output of 168894 bytes\. Full output: artifact:\/\/\([0-9]*\)\]$/\1/p')
  [ -n "$id" ] || fail "unexpected last line on a terminal: $(tail -n 1 tty.clean)"
  [ "$(grep -c . tty.clean)" -eq 30001 ] || fail "the terminal did not see every line once"
  cmp -s "$artifacts/$id.tty.log" <(seq 1 30000) || fail "the artifact of the streamed run differs"
}
case_ "on a terminal the output streams as it comes, and the last line says where the whole of it is" terminal_streams

unsaved_spill() {
  local blocked="$TEST_ROOT/agent/blocked.jsonl"
  echo 'not a folder' > "${blocked%.jsonl}"
  git jpblob run --session "$blocked" --tool bash -- sh -c 'seq 1 30000' > shown.txt
  tail -n 1 shown.txt | grep -q "could not save the whole output" || fail "no word about the failed save: $(tail -n 1 shown.txt)"
}
case_ "a spill that cannot be saved still shows the tail, and says so" unsaved_spill
pass
