#!/usr/bin/env bash
# A cloned repository is written by someone else (docs/FORMAT.md, "The
# repository is untrusted"). Each case is a hostile repository, built by
# an attacker and cloned by a victim who set git-jpblob up as documented.
# Around every git-jpblob command the victim runs, a folder outside the
# repository (the victim's own files) is checksummed: nothing there may be
# read into the repository or changed.
. "$(dirname "$0")/lib.sh"
cd "$TEST_ROOT" && git jpblob install --global > /dev/null

OUTSIDE="$TEST_ROOT/outside"       # the victim's files, which the attacker points at
mkdir -p "$OUTSIDE/convs/1-secret" "$OUTSIDE/artifacts"
secret=$(printf 'secret victim notes %.0s' $(seq 1 40) | base64 -w0)
cat > "$OUTSIDE/convs/1-secret/events.json" <<JSON
[{"timestamp":"2026-04-10 17:04:24.9","type":"tool_call_response","id":"t1","content":"$secret","is_error":false}]
JSON
echo '[attr]secret victim attributes' > "$OUTSIDE/gitattributes"
echo 'victim artifact' > "$OUTSIDE/artifacts/0.bash.log"
echo 'victim agent output' > "$OUTSIDE/artifacts/0-Victim.md"
cp "$OUTSIDE/convs/1-secret/events.json" "$OUTSIDE/events.json"

outside_sum() { (cd "$OUTSIDE" && find . -printf '%p %y %m %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
outside_sum > "$TEST_ROOT/outside.sum"
secret_digest=$(printf '%s' "$secret" | base64 -d | sha256sum | cut -c1-64)

# Runs a git-jpblob command (its exit status does not matter), then fails
# the case when the outside folder changed or the secret reached a store.
# The output goes to $TEST_ROOT/out.
untouched() {
  "$@" > "$TEST_ROOT/out" 2>&1 || true
  outside_sum | cmp -s - "$TEST_ROOT/outside.sum" || fail "'$*' changed the folder outside the repository"
  if find "$TEST_ROOT" -path "$OUTSIDE" -prune -o -name "$secret_digest.blob.gz" -print | grep -q .; then
    fail "'$*' copied an outside file's payload into a store"
  fi
  if grep -q "secret victim" "$TEST_ROOT/out"; then fail "'$*' printed an outside file"; fi
}
refused() {  # the last command's output names the link it refused
  grep -q "symbolic link" "$TEST_ROOT/out" || fail "no refusal naming the link: $(head -c 400 "$TEST_ROOT/out")"
}

# The attacker's repository, built without git-jpblob (a config of its own,
# with no filter), then cloned.
printf '[user]\n\tname = attacker\n\temail = a@example.com\n[init]\n\tdefaultBranch = main\n' > "$TEST_ROOT/attacker.gitconfig"
as_attacker() { GIT_CONFIG_GLOBAL="$TEST_ROOT/attacker.gitconfig" "$@"; }
attacker_repo() {
  local dir="$TEST_ROOT/attacker-$1"
  rm -rf "$dir"
  as_attacker git init -q "$dir"
  cd "$dir"
  printf '%s\n' '.jp/conversations/**/events.json filter=jpblob diff=jpblob -text' \
    '.jp/sessions/**/*.jsonl filter=jpblob -text' '.jp/blobs/** -text diff=jpblob' > .gitattributes
}
publish() {  # commits the attacker's tree and clones it as the victim
  as_attacker git add -A
  as_attacker git commit -qm hostile
  local victim="$TEST_ROOT/victim-$1"
  rm -rf "$victim"
  local lean=true
  [ -z "${2:-}" ] || lean=false
  git clone -q -c jpblob.lean=$lean "file://$PWD" "$victim" 2> "$TEST_ROOT/clone.err" || true
  cd "$victim"
}
# The same, for a victim whose clone checks the store out (install
# --no-lean, or JP with RFD 066); publish's clone is lean in either mode.
publish_full() { publish "$1" full; }

conversations_link() {
  attacker_repo convlink
  mkdir -p .jp
  ln -s "$OUTSIDE/convs" .jp/conversations
  publish convlink
  [ -L .jp/conversations ] || fail "the clone did not check the link out"
  untouched git jpblob install
  for cmd in "git jpblob migrate" "git jpblob gc --prune=now" "git jpblob verify" "git jpblob stats" \
    "git jpblob print 1" "git jpblob files 1" "git jpblob print .jp/conversations/1-secret" "git jpblob repair"; do
    untouched $cmd
    grep -q "symbolic link" "$TEST_ROOT/out" || fail "'$cmd' did not refuse the link: $(head -c 300 "$TEST_ROOT/out")"
  done
  untouched git add -A
  untouched git commit -qm victim
  untouched git checkout -q HEAD~0 -- .
}
case_ "a committed .jp/conversations linking outside: every command refuses it, nothing outside is read or changed" conversations_link

store_folder_link() {
  attacker_repo storefolder
  mkdir -p .jp
  ln -s "$OUTSIDE/store" .jp/blobs
  mkdir -p "$OUTSIDE/store"
  publish storefolder
  outside_sum > "$TEST_ROOT/outside.sum"   # the victim's own (empty) store folder exists
  write_conversation 12-new "tool output for the victim's store"
  untouched git add .jp/conversations
  grep -q "refusing blob store .*: it resolves to .*, outside " "$TEST_ROOT/out" || fail "add did not refuse the store: $(head -c 300 "$TEST_ROOT/out")"
  echo "some bytes" > "$TEST_ROOT/bytes"
  untouched git jpblob store "$TEST_ROOT/bytes"
  grep -q "refusing blob store .*: it resolves to .*, outside " "$TEST_ROOT/out" || fail "store did not refuse the store: $(head -c 300 "$TEST_ROOT/out")"
  for cmd in "git jpblob gc --prune=now" "git jpblob verify" "git jpblob stats" "git jpblob migrate"; do
    untouched $cmd
    grep -q "refusing blob store .*: it resolves to .*, outside \|symbolic link" "$TEST_ROOT/out" || fail "'$cmd' did not refuse the store: $(head -c 300 "$TEST_ROOT/out")"
  done
  [ -z "$(ls -A "$OUTSIDE/store")" ] || fail "a blob was written through the link"
  # The link stops what uses the store, not the team's other commits.
  install_jpblob > /dev/null 2>&1 || true
  [ -x "$(git rev-parse --git-path hooks)/pre-commit" ] || fail "no pre-commit hook: the commit below tests nothing"
  git reset -q
  echo change > other.txt
  git add other.txt
  git commit -qm other 2> "$TEST_ROOT/err" || fail "a commit of another file was refused: $(cat "$TEST_ROOT/err")"
  [ -z "$(ls -A "$OUTSIDE/store")" ] || fail "a blob was written through the link"
  rm -rf "$OUTSIDE/store"
  outside_sum > "$TEST_ROOT/outside.sum"
}
case_ "a committed .jp/blobs linking outside: add, store, gc, verify, stats and migrate refuse it" store_folder_link

# A `.jp/blobs` committed as a file (a careless or hostile teammate): the
# team's other commits go through; a commit that needs blobs staged is
# refused before anything is staged, naming the fix, and git's
# --index-info never replaces (so deletes) the file; a clone that checks
# the store out is refused at `git add`, naming the file. Moved away, the
# conversation commits and verifies.
store_path_is_a_file() {
  attacker_repo blobsfile
  mkdir -p .jp
  echo "a note, not a store" > .jp/blobs
  publish blobsfile
  # Lean, as a repository that holds conversations is (no blob is
  # committed here yet: the file stands where they would be).
  git jpblob install --lean > /dev/null
  echo change > other.txt
  git add other.txt
  git commit -qm other 2> "$TEST_ROOT/err" || fail "a commit of another file was refused: $(cat "$TEST_ROOT/err")"
  write_conversation 13-new "a conversation beside a .jp/blobs file"
  git add .jp/conversations 2> "$TEST_ROOT/err" || fail "the lean add was refused: $(cat "$TEST_ROOT/err")"
  git ls-files -s > "$TEST_ROOT/index.before"
  if git commit -qm conversation 2> "$TEST_ROOT/err"; then fail "the commit went through and replaced .jp/blobs"; fi
  grep -q "the index holds .jp/blobs as a file, where they go in a folder. Nothing was staged" "$TEST_ROOT/err" ||
    fail "message: $(cat "$TEST_ROOT/err")"
  git ls-files -s > "$TEST_ROOT/index.after"
  cmp -s "$TEST_ROOT/index.before" "$TEST_ROOT/index.after" ||
    fail "the refused commit changed the index: $(diff "$TEST_ROOT/index.before" "$TEST_ROOT/index.after" | head -5)"
  git mv .jp/blobs blobs-note
  git commit -qm conversation 2> "$TEST_ROOT/err" || fail "the commit after the move was refused: $(cat "$TEST_ROOT/err")"
  git jpblob verify > "$TEST_ROOT/out" 2>&1 || fail "verify: $(cat "$TEST_ROOT/out")"
  git cat-file -e HEAD:blobs-note || fail "the note was lost"
  # A clone that checks the store out: refused at add, naming the file.
  attacker_repo blobsfile-full
  mkdir -p .jp
  echo "a note, not a store" > .jp/blobs
  publish_full blobsfile-full
  write_conversation 14-full "a conversation beside a .jp/blobs file, store checked out"
  if git add .jp/conversations 2> "$TEST_ROOT/err"; then fail "add wrote blobs beside a file .jp/blobs"; fi
  grep -q "\.jp/blobs is a file, where the store needs a folder; move it away" "$TEST_ROOT/err" ||
    fail "message: $(cat "$TEST_ROOT/err")"
  [ "$(cat .jp/blobs)" = "a note, not a store" ] || fail "the file changed"
  # A submodule there: the commit is refused the same way, and the
  # submodule stays.
  git init -q "$TEST_ROOT/sub" && git -C "$TEST_ROOT/sub" commit -q --allow-empty -m sub
  git init -q "$TEST_ROOT/submodule-store" && cd "$TEST_ROOT/submodule-store"
  mkdir -p .jp
  git -c protocol.file.allow=always submodule add -q "$TEST_ROOT/sub" .jp/blobs
  git commit -qm submodule
  install_jpblob
  git add .gitattributes && git commit -qm attributes
  write_conversation 15-sub "a conversation beside a submodule at .jp/blobs"
  git add .jp/conversations
  if git commit -qm conversation 2> "$TEST_ROOT/err"; then fail "the commit went through and replaced the submodule"; fi
  # Lean, the hook stages the new blob itself and names the fix; with the
  # store checked out, clean wrote the blob into the submodule's folder and
  # git's own `update-index --add` refuses it.
  grep -q "the index holds .jp/blobs as a file, where they go in a folder\|appears as both a file and as a directory" \
    "$TEST_ROOT/err" || fail "submodule message: $(cat "$TEST_ROOT/err")"
  [ "$(git ls-files -s .jp/blobs | cut -c1-6)" = 160000 ] || fail "the submodule left the index"
}
case_ "a .jp/blobs committed as a file: other commits go through, a conversation's is refused before staging, naming the fix" store_path_is_a_file

events_link() {
  attacker_repo eventslink
  mkdir -p .jp/conversations/2-link
  ln -s "$OUTSIDE/events.json" .jp/conversations/2-link/events.json
  publish eventslink
  [ -L .jp/conversations/2-link/events.json ] || fail "the clone did not check the link out"
  for cmd in "git jpblob migrate" "git jpblob verify" "git jpblob stats" "git jpblob print 2" "git jpblob print .jp/conversations/2-link" \
    "git jpblob files 2" "git jpblob gc --prune=now"; do
    untouched $cmd
    grep -q "symbolic link" "$TEST_ROOT/out" || fail "'$cmd' did not refuse the link: $(head -c 300 "$TEST_ROOT/out")"
  done
  [ -L .jp/conversations/2-link/events.json ] || fail "the link was replaced by a copy"
  untouched git add -A
  untouched git commit -qm victim
  [ "$(git cat-file -p HEAD:.jp/conversations/2-link/events.json)" = "$OUTSIDE/events.json" ] ||
    fail "a commit holds the outside file's content instead of the link"
}
case_ "a committed events.json linking to an outside file is refused, never read, stored or replaced" events_link

gitattributes_link() {
  attacker_repo attrlink
  rm .gitattributes
  ln -s "$OUTSIDE/gitattributes" .gitattributes
  publish attrlink
  untouched git jpblob install --local; refused
  [ -L .gitattributes ] || fail "install replaced the link with a file"
  untouched git jpblob uninstall --local
  [ -L .gitattributes ] || fail "uninstall replaced the link with a file"
}
case_ "a committed .gitattributes linking outside: install refuses it and leaves the link" gitattributes_link

artifacts_link() {
  attacker_repo artlink
  mkdir -p .jp/sessions
  echo '{"type":"session","id":"abc"}' > .jp/sessions/2026-11-22T10-00-00_abc.jsonl
  ln -s "$OUTSIDE/artifacts" .jp/sessions/2026-11-22T10-00-00_abc
  publish artlink
  local s=.jp/sessions/2026-11-22T10-00-00_abc.jsonl
  untouched git jpblob cat artifact://0 --session "$s"; refused
  untouched git jpblob cat agent://0-Victim --session "$s"; refused
  untouched git jpblob run --session "$s" --tool bash -- sh -c 'seq 1 100000'; refused
  untouched git jpblob cat artifact://0 --session "$PWD/$s"; refused
}
case_ "a session's artifact folder linking outside: cat and run refuse it" artifacts_link

sessions_folder_link() {
  mkdir -p "$OUTSIDE/sess/2026-11-22T10-00-00_abc"
  echo 'victim session' > "$OUTSIDE/sess/2026-11-22T10-00-00_abc/0.bash.log"
  echo '{}' > "$OUTSIDE/sess/2026-11-22T10-00-00_abc.jsonl"
  outside_sum > "$TEST_ROOT/outside.sum"
  attacker_repo sesslink
  mkdir -p .jp
  ln -s "$OUTSIDE/sess" .jp/sessions
  publish sesslink
  local s=.jp/sessions/2026-11-22T10-00-00_abc.jsonl
  untouched git jpblob cat artifact://0 --session "$s"; refused
  untouched git jpblob run --session "$s" --tool bash -- sh -c 'seq 1 100000'; refused
  (cd .jp && untouched git jpblob cat artifact://0 --session "sessions/2026-11-22T10-00-00_abc.jsonl"); refused
}
case_ "a committed .jp/sessions linking outside: cat and run refuse it" sessions_folder_link

# The victim's checkout: every conversation restored, or the one that
# cannot be named with its digest, and the server still serving the rest.
bomb() {
  attacker_repo bomb
  # 16 MB of zeros in a 16 KB blob, referenced 60 times (6 KB of
  # references asking for 1.3 GB of base64).
  local zeros digest size=16777216 refs="" i
  zeros=$(head -c $size /dev/zero | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${zeros:0:2}/${zeros:2:2}" .jp/conversations/3-bomb .jp/conversations/4-fine
  head -c $size /dev/zero | gzip -n -9 > ".jp/blobs/${zeros:0:2}/${zeros:2:2}/$zeros.blob.gz"
  for i in $(seq 1 60); do
    refs="$refs{\"type\":\"tool_call_response\",\"id\":\"t$i\",\"content\":{\"\$blob\":\"$zeros\",\"size\":$size,\"encoding\":\"base64\"}},"
  done
  echo "[${refs%,}]" > .jp/conversations/3-bomb/events.json
  [ "$(wc -c < .jp/conversations/3-bomb/events.json)" -lt 12000 ] || fail "the bomb is not small"
  digest=$(printf 'fine tool output' | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${digest:0:2}/${digest:2:2}"
  printf 'fine tool output' | gzip -n > ".jp/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$digest\",\"size\":16,\"encoding\":\"base64\"}}]" \
    > .jp/conversations/4-fine/events.json
  as_attacker git add -A
  as_attacker git commit -qm bomb
  cd "$TEST_ROOT"
  rm -rf victim-bomb
  # The clone's peak memory: git and every filter it ran.
  python3 - "$TEST_ROOT/attacker-bomb" "$TEST_ROOT/victim-bomb" > "$TEST_ROOT/bomb.out" 2>&1 <<'PY' || true
import resource, subprocess, sys, time
t = time.time()
r = subprocess.run(["git", "clone", "-q", "file://" + sys.argv[1], sys.argv[2]], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"peak {peak} MB, {time.time() - t:.2f} s, exit {r.returncode}")
print(r.stderr)
PY
  echo "bomb clone: $(head -1 "$TEST_ROOT/bomb.out")"
  local peak
  peak=$(sed -n 's/^peak \([0-9]*\) MB.*/\1/p' "$TEST_ROOT/bomb.out")
  [ -n "$peak" ] && [ "$peak" -lt 300 ] || fail "the clone peaked at ${peak:-?} MB: $(head -c 600 "$TEST_ROOT/bomb.out")"
  grep -q "3-bomb/events.json would expand to more than" "$TEST_ROOT/bomb.out" ||
    fail "no message saying why smudge stopped: $(head -c 600 "$TEST_ROOT/bomb.out")"
  cd victim-bomb
  # git stops a checkout at its first failed file; the rest comes back with
  # a restore.
  git restore --source=HEAD -- .jp/conversations/4-fine 2> "$TEST_ROOT/err" || fail "restore failed: $(cat "$TEST_ROOT/err")"
  grep -q "$(printf 'fine tool output' | base64 -w0)" .jp/conversations/4-fine/events.json ||
    fail "the next conversation was not restored"
  # The same file through the one-shot smudge.
  local rc=0
  git jpblob smudge .jp/conversations/3-bomb/events.json < "$TEST_ROOT/attacker-bomb/.jp/conversations/3-bomb/events.json" \
    > /dev/null 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" -eq 128 ] || fail "one-shot smudge of the bomb exited $rc"
  grep -q "jpblob.maxBlobSize" "$TEST_ROOT/err" || fail "the one-shot message names no setting: $(cat "$TEST_ROOT/err")"
  # What textconv shows (git diff, git log -p): the file as committed, with
  # a warning, never 1.3 GB.
  git jpblob textconv "$TEST_ROOT/attacker-bomb/.jp/conversations/3-bomb/events.json" > "$TEST_ROOT/shown" 2> "$TEST_ROOT/err" ||
    fail "textconv failed on the bomb: $(cat "$TEST_ROOT/err")"
  cmp -s "$TEST_ROOT/shown" "$TEST_ROOT/attacker-bomb/.jp/conversations/3-bomb/events.json" || fail "textconv did not show the file as committed"
  grep -q "jpblob.maxBlobSize" "$TEST_ROOT/err" || fail "textconv gave no warning: $(cat "$TEST_ROOT/err")"
}
case_ "a reference bomb (6 KB asking for 1.3 GB): the clone stays under 300 MB, says why, and restores the rest" bomb

# Peak memory (MB) of a command and everything it ran, in $TEST_ROOT/peak.
peak_of() {
  python3 - "$@" > "$TEST_ROOT/peak" 2> "$TEST_ROOT/peak.err" <<'PY2'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY2
  cat "$TEST_ROOT/peak"
}

small_objects_big_asks() {
  attacker_repo asks
  local d
  # (a) a "text" reference to 50 MB of control bytes: each is escaped six
  #     times longer, past a 64 MB jpblob.maxBlobSize; (b) 5 million numbers
  #     in one event, 35 KB packed; (c) a blob of 60 MB of newlines, which
  #     git's diff splits into lines.
  head -c 50000000 /dev/zero | tr '\0' '\001' > "$TEST_ROOT/ctl.bin"
  d=$(sha256sum < "$TEST_ROOT/ctl.bin" | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}" .jp/conversations/13-escapes .jp/conversations/14-numbers
  gzip -n -1 < "$TEST_ROOT/ctl.bin" > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  rm "$TEST_ROOT/ctl.bin"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":50000000,\"encoding\":\"text\"}}]" \
    > .jp/conversations/13-escapes/events.json
  python3 -c "import sys; sys.stdout.write('[{\"type\":\"chat_request\",\"content\":\"hi\",\"x\":[' + '0,' * 5000000 + '0]}]\n')" \
    > .jp/conversations/14-numbers/events.json
  head -c 60000000 /dev/zero | tr '\0' '\n' > "$TEST_ROOT/nl.bin"
  d=$(sha256sum < "$TEST_ROOT/nl.bin" | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}"
  gzip -n -1 < "$TEST_ROOT/nl.bin" > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  rm "$TEST_ROOT/nl.bin"
  as_attacker git add -A
  as_attacker git commit -qm asks
  rm -rf "$TEST_ROOT/victim-asks"
  local peak
  peak=$(peak_of git -c jpblob.maxBlobSize=64m clone -q "file://$PWD" "$TEST_ROOT/victim-asks")
  echo "clone: peak $peak MB"
  [ "$peak" -lt 300 ] || fail "the clone peaked at $peak MB"
  cd "$TEST_ROOT/victim-asks"
  git config jpblob.maxBlobSize 64m
  for f in 13-escapes 14-numbers; do
    rm -rf .jp/conversations/$f
    peak=$(peak_of git restore --source=HEAD -- .jp/conversations/$f)
    echo "restore $f: peak $peak MB"
    [ "$peak" -lt 300 ] || fail "restoring $f peaked at $peak MB"
    JPBLOB_SKIP_SMUDGE=1 git restore --source=HEAD -- .jp/conversations/$f   # the committed form
    peak=$(peak_of git jpblob print ".jp/conversations/$f")
    echo "print $f: peak $peak MB"
    [ "$peak" -lt 300 ] || fail "print $f peaked at $peak MB"
  done
  peak=$(peak_of git jpblob cat "blob:sha256:$d" --limit 5)
  echo "cat --limit 5 of the newlines: peak $peak MB"
  [ "$peak" -lt 300 ] || fail "cat --limit peaked at $peak MB"
  peak=$(peak_of git show HEAD)
  echo "git show HEAD: peak $peak MB"
  [ "$peak" -lt 300 ] || fail "git show peaked at $peak MB"
  peak=$(peak_of git jpblob verify)
  echo "verify: peak $peak MB"
  [ "$peak" -lt 300 ] || fail "verify peaked at $peak MB"
}
case_ "small objects that ask for gigabytes (escapes, five million numbers, 60 MB of newlines) stay under 300 MB" small_objects_big_asks

huge_sizes() {
  attacker_repo huge
  local d
  d=$(printf 'x' | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}" .jp/conversations/5-huge .jp/conversations/6-huger .jp/conversations/7-fine
  printf 'x' | gzip -n > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":9223372036854775808,\"encoding\":\"base64\"}}]" \
    > .jp/conversations/5-huge/events.json
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":18446744073709551615,\"encoding\":\"text\"}}]" \
    > .jp/conversations/6-huger/events.json
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":1,\"encoding\":\"text\"}}]" \
    > .jp/conversations/7-fine/events.json
  publish huge
  # git stops a checkout at its first failed file; each file is then
  # restored on its own.
  local f
  for f in 5-huge 6-huger; do
    git restore --source=HEAD -- .jp/conversations/$f 2> "$TEST_ROOT/err" && fail "$f was checked out"
    grep -q "$f/events.json.*$d" "$TEST_ROOT/err" || fail "no message names $f and the digest: $(cat "$TEST_ROOT/err")"
    if grep -qE "out of memory|_M_create|bad_alloc|length_error" "$TEST_ROOT/err"; then
      fail "an allocation failure reached the user: $(cat "$TEST_ROOT/err")"
    fi
  done
  git restore --source=HEAD -- .jp/conversations/7-fine
  grep -q '"content":"x"' .jp/conversations/7-fine/events.json ||
    fail "7-fine was not restored ($(cat .jp/conversations/7-fine/events.json 2>&1))"
}
case_ "references declaring 2^63 and 2^64-1 bytes fail their own file, naming digest and file; the rest checks out" huge_sizes

round_trip_bound() {
  new_installed_repo bound
  git config jpblob.maxBlobSize 4k
  write_conversation 8-big "$(head -c 6000 /dev/zero | tr '\0' 'a')"
  local rc=0
  git add .jp/conversations/8-big 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" -ne 0 ] || fail "clean accepted a file smudge could not give back"
  grep -q "jpblob.maxBlobSize" "$TEST_ROOT/err" || fail "the refusal names no setting: $(cat "$TEST_ROOT/err")"
  [ ! -d .jp/blobs ] || [ -z "$(find .jp/blobs -type f)" ] || fail "the refused file left blobs behind"
  git config jpblob.maxBlobSize 64k
  git add .jp/conversations/8-big
  git commit -qm big
  rm .jp/conversations/8-big/events.json
  git checkout -- .jp/conversations/8-big
  assert_clean_status
}
case_ "clean refuses what smudge could not read back, naming jpblob.maxBlobSize; raised, the round trip holds" round_trip_bound

store_symlink() {
  attacker_repo storelink
  local d
  d=$(printf 'linked' | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}" .jp/conversations/9-linked
  ln -s "$OUTSIDE/events.json" ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  ln -s "$OUTSIDE" ".jp/blobs/ff"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":6,\"encoding\":\"text\"}}]" \
    > .jp/conversations/9-linked/events.json
  publish_full storelink
  untouched git jpblob verify
  grep -q "symbolic link" "$TEST_ROOT/out" || fail "verify did not report the links: $(cat "$TEST_ROOT/out")"
  if git jpblob verify > /dev/null 2>&1; then fail "verify passed a store holding links"; fi
  untouched git jpblob verify --history
  if git jpblob verify --history > /dev/null 2>&1; then fail "verify --history passed commits holding links in the store"; fi
  # gc judges what nothing references by its stat: a link named like an
  # old unreferenced blob is not ours to delete, and is never followed.
  local u
  u=$(printf 'unreferenced' | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${u:0:2}/${u:2:2}"
  ln -s "$OUTSIDE/events.json" ".jp/blobs/${u:0:2}/${u:2:2}/$u.blob.gz"
  touch -h -d '2 hours ago' ".jp/blobs/${u:0:2}/${u:2:2}/$u.blob.gz"
  git jpblob gc --prune=now > "$TEST_ROOT/out" 2>&1 || fail "gc failed beside links: $(cat "$TEST_ROOT/out")"
  [ -L ".jp/blobs/${u:0:2}/${u:2:2}/$u.blob.gz" ] || fail "gc deleted a link named like a blob"
  [ -L ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" ] || fail "gc deleted the referenced link"
  [ -f "$OUTSIDE/events.json" ] || fail "gc followed a link out of the store"
  rm ".jp/blobs/${u:0:2}/${u:2:2}/$u.blob.gz"
  # The hook refuses to commit a link into the store.
  git jpblob install > /dev/null
  ln -s "$OUTSIDE/events.json" .jp/blobs/ee
  git add .jp/blobs/ee
  untouched git commit -qm "a link in the store"
  grep -q "symbolic link" "$TEST_ROOT/out" || fail "the hook did not name the link: $(cat "$TEST_ROOT/out")"
  [ "$(git rev-list --count HEAD)" -eq 1 ] || fail "the hook let a link into the store be committed"
}
case_ "verify and the hook refuse symbolic links in the store" store_symlink

# The attacker predicts a payload (a file of the repository, as a tool
# would read it) and commits a corrupt blob under its name; the victim
# clones it (publish or publish_full: $2) and writes a conversation holding
# that payload, not added yet. Sets d (the digest) and mine (the text).
plant_poisoned_blob() {
  attacker_repo "$1"
  printf 'This is the README of the project.\n' > README.md
  d=$(sha256sum < README.md | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}"
  printf 'garbage' | gzip -n > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  "$2" "$1"
  mkdir -p .jp/conversations/7-mine
  echo '[{"type":"chat_request","content":"s"}]' > .jp/conversations/7-mine/events.json
  git add -A && git commit -qm start
  mine="[{\"type\":\"chat_request\",\"content\":\"s\"},{\"type\":\"tool_call_response\",\"id\":\"t1\",\"content\":\"$(base64 -w0 < README.md)\"}]"
  echo "$mine" > .jp/conversations/7-mine/events.json
}

poisoned_blob() {
  local d mine
  plant_poisoned_blob poison publish_full
  # Trusting the blob would leave the bytes nowhere: the stash refuses,
  # naming the way out, and the conversation keeps them.
  git stash -q 2> "$TEST_ROOT/err" && fail "git stash trusted the corrupt blob"
  grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the refusal does not name repair: $(cat "$TEST_ROOT/err")"
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "the conversation lost its bytes"
  git jpblob migrate > /dev/null 2>&1 && fail "migrate trusted the corrupt blob"
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "migrate lost the bytes to a corrupt blob"
  # repair writes the blob from the conversation; then all is as usual.
  git jpblob repair > /dev/null || fail "repair failed"
  [ "$(gzip -dc < ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz")" = "$(cat README.md)" ] || fail "repair did not write the blob"
  git stash -q || fail "stash failed after repair"
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "the conversation was lost through the stash"
}
case_ "a committed corrupt blob under a predictable name is never trusted: stash and migrate refuse and keep the bytes, repair mends it" poisoned_blob

poisoned_blob_lean() {
  # The same attack on a lean clone, where git's index is the only copy
  # under the name: clean must not let it stand for the bytes.
  local d mine
  plant_poisoned_blob poison-lean publish
  [ ! -e ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" ] || fail "the lean clone checked the store out"
  # A file beside git's copy would not reach the stash, and the stash's
  # reset would delete it: the stash refuses, naming repair.
  git stash -q 2> "$TEST_ROOT/err" && fail "git stash trusted the corrupt blob in the index"
  grep -q "git jpblob repair" "$TEST_ROOT/err" || fail "the refusal does not name repair: $(cat "$TEST_ROOT/err")"
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "the conversation lost its bytes"
  # repair stages the good blob from the conversation, out of the work tree.
  git jpblob repair > /dev/null || fail "repair failed"
  [ "$(git cat-file -p ":.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" | gzip -dc)" = "$(cat README.md)" ] ||
    fail "repair did not stage the good blob"
  [ ! -e ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" ] || fail "repair left the blob file in the lean work tree"
  git stash -q 2> "$TEST_ROOT/err" || fail "stash failed after repair: $(cat "$TEST_ROOT/err")"
  git jpblob gc --prune=now > /dev/null 2>&1
  git stash pop -q 2> "$TEST_ROOT/err" || fail "stash pop failed: $(cat "$TEST_ROOT/err")"
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "the bytes were lost through the stash"
  git add -A && git commit -qm mine 2> "$TEST_ROOT/err" || fail "commit failed: $(cat "$TEST_ROOT/err")"
  [ "$(git cat-file -p "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" | gzip -dc)" = "$(cat README.md)" ] ||
    fail "the commit kept the corrupt blob"
  rm .jp/conversations/7-mine/events.json && git checkout -- .jp/conversations/7-mine
  [ "$(cat .jp/conversations/7-mine/events.json)" = "$mine" ] || fail "the committed conversation does not come back"
}
case_ "in a lean clone, a corrupt blob in git's index never stands for the bytes: stash refuses, repair stages the good one" poisoned_blob_lean

stray_temporaries() {
  new_installed_repo temps
  write_conversation 10-temp
  git add -A && git commit -qm temp
  local t=.jp/conversations/10-temp/.jpblob-tmp-killed1 s=.jp/.jpblob-tmp-killed2 top=.jpblob-tmp-killed3
  echo partial > "$t"; echo partial > "$s"; echo partial > "$top"
  touch -d '2 hours ago' "$t" "$s" "$top"
  echo fresh > .jp/conversations/10-temp/.jpblob-tmp-fresh
  git jpblob gc --prune=now > "$TEST_ROOT/out" 2>&1 || fail "gc failed: $(cat "$TEST_ROOT/out")"
  [ ! -e "$t" ] || fail "gc left a killed migrate's temporary in a conversation folder"
  [ ! -e "$s" ] || fail "gc left a temporary in .jp"
  [ ! -e "$top" ] || fail "gc left a killed install's temporary at the top"
  [ -e .jp/conversations/10-temp/.jpblob-tmp-fresh ] || fail "gc removed a temporary a writer may still be writing"
}
case_ "gc removes stray temporaries wherever git-jpblob makes them, and keeps fresh ones" stray_temporaries

tracked_hooks_folder() {
  attacker_repo hooks
  mkdir -p .githooks
  printf '#!/bin/sh\nexit 0\n' > .githooks/pre-commit
  chmod +x .githooks/pre-commit
  local d
  d=$(printf 'hooked output' | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}" .jp/conversations/11-hooks
  printf 'hooked output' | gzip -n > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":13,\"encoding\":\"text\"}}]" \
    > .jp/conversations/11-hooks/events.json
  publish hooks
  git config core.hooksPath .githooks   # as the team's README tells each member
  rm -rf .githooks/pre-commit .jp/conversations
  git checkout -q -- . 2> "$TEST_ROOT/err"   # the filter runs, and with it the hook auto-install
  git status --porcelain --untracked-files=all -- .githooks > "$TEST_ROOT/st"
  [ -s "$TEST_ROOT/st" ] && fail "the filter wrote into the tracked hooks folder: $(cat "$TEST_ROOT/st")"
  [ ! -e .githooks/pre-push ] || fail "the filter added a pre-push hook to the tracked hooks folder"
  grep -q "tracked" "$TEST_ROOT/err" || fail "no warning says why no hook was installed: $(cat "$TEST_ROOT/err")"
  # Explicit install leaves it alone too, and says what to add.
  git jpblob install > "$TEST_ROOT/out" 2>&1 || fail "install failed: $(cat "$TEST_ROOT/out")"
  grep -q "Left .githooks alone" "$TEST_ROOT/out" || fail "install did not explain: $(cat "$TEST_ROOT/out")"
  [ -z "$(git status --porcelain -- .githooks)" ] || fail "install wrote into the tracked hooks folder"
  # Once the team's hook calls the check, the warning goes.
  printf '#!/bin/sh\ngit jpblob pre-commit || exit 1\n' > .githooks/pre-commit
  rm -rf .jp/conversations
  git checkout -q -- .jp 2> "$TEST_ROOT/err"
  [ ! -s "$TEST_ROOT/err" ] || fail "a warning remains though the team's hook runs the check: $(cat "$TEST_ROOT/err")"
}
case_ "auto-install never writes into a hooks folder the repository tracks" tracked_hooks_folder

pass
