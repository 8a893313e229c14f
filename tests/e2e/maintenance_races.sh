#!/usr/bin/env bash
# gc racing commits, and gc and migrate killed at random moments, each kill
# followed by verify: no corrupt blob, no half-written events.json, and no
# commit without its blobs.
. "$(dirname "$0")/lib.sh"
new_installed_repo

# gc loops while another process writes, adds and commits conversations
# whose payloads dedup to old (backdated) orphan blobs. Twelve commits: each
# runs beside several whole gc runs.
gc_racing_commits() {
  local i writer
  for i in $(seq 1 12); do
    git jpblob clean > /dev/null <<<"[{\"type\":\"tool_call_response\",\"content\":\"$(printf 'payload %s' "$i" | base64 -w0)\"}]"
  done
  # Where clean put them: the store, or the git folder in a repository
  # that becomes lean at its first commit (a kept copy, or a pending pack).
  age_all_blobs '3 hours ago'
  if lean_mode && [ -z "$(pending_records)$(ls "$(git rev-parse --git-common-dir)/jpblob/kept" 2> /dev/null)" ] &&
    [ -z "$(find .jp/blobs -type f 2> /dev/null)" ]; then
    fail "set-up: clean stored no orphan blob"
  fi
  (
    for i in $(seq 1 12); do
      write_conversation "$i-race" "payload $i"
      git add ".jp/conversations/$i-race"
      git commit -qm "race $i" || exit 1
    done
  ) &
  writer=$!
  while kill -0 "$writer" 2> /dev/null; do git jpblob gc > /dev/null 2>&1 || true; done
  wait "$writer" || fail "a commit was refused while gc ran"
  git jpblob verify --history > /dev/null || fail "a commit lost a blob to gc"
}
case_ "gc racing commits: no commit refused, none loses a blob" gc_racing_commits

# 18 gc and 18 migrate runs, each killed at a random moment (a hundredth of
# a second apart, over the tenth of a second a run takes).
kill_loop() {
  local c i k h cmd pid
  if [ -n "$FIXTURES" ] && [ -d "$FIXTURES/.jp/conversations" ]; then
    # The three smallest real conversations: every kill lands in real work,
    # and the runs stay quick.
    for c in $(cd "$FIXTURES/.jp/conversations" && ls -S */events.json | tail -3 | xargs -n1 dirname); do
      mkdir -p ".jp/conversations/$c" && cp "$FIXTURES/.jp/conversations/$c/events.json" ".jp/conversations/$c/"
    done
    chmod -R u+w .jp
  fi
  git add .jp/conversations
  git diff --cached --quiet || git commit -qm more  # nothing new without the fixtures
  for i in $(seq 1 36); do
    if [ $((i % 2)) -eq 0 ]; then
      git checkout -q -- .jp/conversations   # inline again, so migrate has work
      cmd="migrate"
    else
      for k in 1 2 3; do
        h=$(printf 'orphan %s %s' "$i" "$k" | sha256sum | cut -c1-64)
        mkdir -p ".jp/blobs/${h:0:2}/${h:2:2}"
        printf 'orphan %s %s' "$i" "$k" | gzip -n > ".jp/blobs/${h:0:2}/${h:2:2}/$h.blob.gz"
      done
      cmd="gc --prune=now"
    fi
    git-jpblob $cmd > /dev/null 2>&1 &  # the program itself: git would run it as a child
    pid=$!
    sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    kill -9 "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
    # verify parses every conversation too: a half-written events.json is a
    # problem it names, as is a corrupt or missing blob.
    git jpblob verify > "$TEST_ROOT/verify.out" || fail "verify after killing $cmd (run $i): $(grep problem "$TEST_ROOT/verify.out")"
  done
}
case_ "gc and migrate killed at random moments: verify finds nothing wrong" kill_loop

# The check above can fail: a truncated conversation is reported.
verify_sees_truncation() {
  local f
  f=$(ls .jp/conversations/*/events.json | head -1)
  head -c 100 "$f" > "$TEST_ROOT/cut" && cp "$TEST_ROOT/cut" "$f"
  if git jpblob verify > /dev/null 2>&1; then fail "verify missed a half-written events.json"; fi
  git checkout -q -- "$f"
}
case_ "verify names a half-written events.json" verify_sees_truncation
# Two worktrees of one repository add and commit at once, many of their
# conversations holding the same tool output: both work-tree stores are
# written at once, and both link into the one kept folder of the common git
# directory. Every commit must carry its blobs, and no kept copy may be
# left corrupt or half-written.
concurrent_worktrees() {
  git worktree add -q "$TEST_ROOT/other" -b other
  local side pids=()
  for side in "$TEST_ROOT/repo" "$TEST_ROOT/other"; do
    (
      cd "$side"
      for i in $(seq 1 10); do
        write_conversation "$i-$(basename "$side")" "shared output $i"
        write_conversation "$i-own-$(basename "$side")" "output of $(basename "$side") $i"
        git add .jp/conversations
        git commit -qm "$(basename "$side") $i" || exit 1
      done
    ) > "$TEST_ROOT/$(basename "$side").log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || fail "a side failed: $(cat "$TEST_ROOT"/*.log)"; done
  ! grep -qi "warning\|error" "$TEST_ROOT/repo.log" "$TEST_ROOT/other.log" || fail "$(cat "$TEST_ROOT"/*.log)"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "verify after concurrent adds: $(cat "$TEST_ROOT/out")"
  (cd "$TEST_ROOT/other" && git jpblob verify > /dev/null) || fail "verify in the other worktree"
  local kept
  kept="$(git rev-parse --git-common-dir)/jpblob/kept"
  verify_blobs "$kept"  # every kept copy whole and under its own name
  ! ls "$kept" 2> /dev/null | grep -qv '\.blob\.gz$' || fail "temporaries left in the kept folder: $(ls "$kept")"
  git jpblob gc --prune=now > /dev/null
  git jpblob verify --history > /dev/null || fail "a commit lost a blob to gc after the concurrent adds"
}
case_ "two worktrees adding and committing at once, with shared outputs: every commit has its blobs" concurrent_worktrees

# The filter process killed with SIGKILL during a `git add` of many
# conversations, at random moments: what it answered is published, what it
# had not is not, and its kept copies may be missing (it links them when
# git closes its pipe). The add fails; done again it succeeds, the commit
# carries every blob, and every conversation comes back byte for byte.
descendants() {
  local p
  for p in $(pgrep -P "$1"); do
    echo "$p"
    descendants "$p"
  done
}
filter_killed_during_add() {
  git init -q "$TEST_ROOT/killed" && cd "$TEST_ROOT/killed"
  install_jpblob && git add .gitattributes && git commit -qm attributes
  local i n=0 pid killed=0
  # Four rounds, and more (at most twelve) until a kill has landed: a fast
  # add can end before a random moment comes, and then the case would
  # prove nothing. After the fourth the kill comes as soon as the filter runs.
  while [ "$n" -lt 4 ] || { [ "$killed" -eq 0 ] && [ "$n" -lt 12 ]; }; do
    n=$((n + 1))
    for i in $(seq 1 40); do write_conversation "$n-$i-kill" "output $n $i $(seq 1 $((i * 30)) | tr '\n' ' ')"; done
    git add .jp/conversations 2> /dev/null &
    # This add's filter (git may start it through sh), found once it runs,
    # then killed a random moment later: other suites run beside this one.
    pid=""
    for i in $(seq 1 200); do
      pid=$(descendants $! | while read -r p; do
        if grep -q filter-process "/proc/$p/cmdline" 2> /dev/null && ! grep -q '^sh' "/proc/$p/cmdline"; then echo "$p"; fi
      done)
      [ -z "$pid" ] || break
      sleep 0.01
    done
    [ "$n" -gt 4 ] || sleep "0.0$((RANDOM % 10))"
    [ -z "$pid" ] || kill -9 $pid 2> /dev/null || true
    if wait $!; then :; else killed=$((killed + 1)); fi
    git add .jp/conversations 2> "$TEST_ROOT/err" || fail "the add after the kill failed: $(cat "$TEST_ROOT/err")"
    git commit -qm "round $n" 2> "$TEST_ROOT/err" || fail "the commit after the kill failed: $(cat "$TEST_ROOT/err")"
    cp -r .jp/conversations "$TEST_ROOT/expected-$n"
  done
  [ "$killed" -gt 0 ] || fail "no kill landed during an add"
  git jpblob verify --history > "$TEST_ROOT/out" 2>&1 || fail "verify after the kills: $(cat "$TEST_ROOT/out")"
  git jpblob gc --prune=now > /dev/null
  rm -rf .jp/conversations .jp/blobs
  git checkout -q -- .jp/conversations
  diff -r "$TEST_ROOT/expected-$n" .jp/conversations > /dev/null || fail "a conversation did not come back byte for byte"
  # With the store checked out, the blob files removed above are tracked
  # files: git shows them changed until they are checked out again (a status
  # that re-cleans a racy conversation writes some of them back meanwhile).
  lean_mode || git checkout -q -- .jp/blobs
  assert_clean_status
}
case_ "the filter killed during git add: the add again succeeds and nothing is lost" filter_killed_during_add

pass
