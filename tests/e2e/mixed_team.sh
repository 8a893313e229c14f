#!/usr/bin/env bash
# A team of mixed set-ups (issue 46): Bob has git-jpblob, Carol does not
# (her own HOME, no filter config, git-jpblob not on her PATH). The team's
# bare repository runs the README's pre-receive behind `git daemon`.
# A conversation Carol changes is committed without the filter: the server
# refuses her push with the exact commands that mend it, and those commands
# work; where a server took it anyway, Bob's `git jpblob status` names the
# file with its mend and `verify --history` names commit and file (exit 1);
# Bob's own pre-push refuses such a commit. Commits from before adoption
# (a branch, a merge taking one of its files as it is) are never flagged.
. "$(dirname "$0")/lib.sh"

use_servers

# The team's server: a bare repository whose pre-receive is the README's.
SRV="$TEST_ROOT/srv/team.git"
HOOK="$SRV/hooks/pre-receive"
git init -q --bare "$SRV"
printf '#!/bin/sh\nexec git jpblob pre-receive\n' > "$HOOK"
chmod +x "$HOOK"
port=$(free_port)
git daemon --base-path="$TEST_ROOT/srv" --export-all --enable=receive-pack --reuseaddr \
  --listen=127.0.0.1 --port="$port" --informative-errors "$TEST_ROOT/srv" 2> "$TEST_ROOT/daemon.log" &
SERVER_PIDS+=($!)
URL="git://127.0.0.1:$port/team.git"
tries=0
until git ls-remote "$URL" > /dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 200 ] || fail "git daemon does not answer: $(tail -5 "$TEST_ROOT/daemon.log")"
  sleep 0.05
done

# Carol: her own HOME with only git's settings, and a PATH without
# git-jpblob (path_without_jpblob).
CAROL_HOME="$TEST_ROOT/carol-home"
CAROL_PATH=$(path_without_jpblob)
mkdir -p "$CAROL_HOME"
carol() { HOME="$CAROL_HOME" PATH="$CAROL_PATH" "$@"; }
carol git config --global user.name Carol
carol git config --global user.email carol@example.com
carol git config --global init.defaultBranch main
# The suite's work-tree mode, for when she installs git-jpblob.
lean_mode || carol git config --global jpblob.lean false
if carol sh -c 'command -v git-jpblob' > /dev/null; then fail "git-jpblob is on Carol's PATH: $(carol sh -c 'command -v git-jpblob')"; fi

# An editor's append: one more event before the closing bracket, inline,
# the rest of the file as it was.
append_turn() {
  python3 - "$1" "$2" <<'PY'
import base64, sys
path, text = sys.argv[1], sys.argv[2]
body = open(path).read().rstrip()
assert body.endswith("]"), body[-20:]
event = ('  {\n    "timestamp": "2026-05-02 09:00:00.000000",\n    "type": "tool_call_response",\n'
         '    "id": "toolu_9",\n    "content": "%s",\n    "is_error": false\n  }' % base64.b64encode(text.encode()).decode())
open(path, "w").write(body[:-1].rstrip() + ",\n" + event + "\n]\n")
PY
}

# The team's history: a conversation committed before adoption, a branch
# from then, the adoption (install, `git add --renormalize .jp`), one more
# conversation. Bob's global config has git-jpblob, but no attributes route
# anything to it before the adoption commit.
install_jpblob
git init -q "$TEST_ROOT/bob"
cd "$TEST_ROOT/bob"
commit_conversation 0-before "output from before adoption"
git branch old-work
git checkout -q old-work
commit_conversation 0-branch "output on a branch from before adoption"
append_turn .jp/conversations/0-branch/events.json "a turn on the old branch"
git commit -qam "an old branch's turn"
git checkout -q main
install_jpblob
git add .gitattributes
git add --renormalize .jp
git commit -qm "adopt git-jpblob"
commit_conversation 1-team "the team's conversation"
git remote add origin "$URL"
CONVERSATION=.jp/conversations/1-team/events.json

pre_adoption_branch_accepted() {
  cd "$TEST_ROOT/bob"
  git push -q origin main old-work 2> "$TEST_ROOT/err" || fail "the server refused the team's history: $(cat "$TEST_ROOT/err")"
  git jpblob verify --history > "$TEST_ROOT/out" || fail "verify --history flagged history from before adoption: $(cat "$TEST_ROOT/out")"
  grep -q "all good" "$TEST_ROOT/out" || fail "verify: $(cat "$TEST_ROOT/out")"
}
case_ "a branch from before adoption (inline conversations) is accepted by the server and passes verify --history" \
  pre_adoption_branch_accepted

# Merging the old branch takes its new conversation as it is (only that side
# added it): no commit of the merge changed it, so none is flagged.
merge_takes_pre_adoption_file() {
  cd "$TEST_ROOT/bob"
  git checkout -q -b merged main
  git merge -q --no-edit old-work 2> "$TEST_ROOT/err" || fail "the merge failed: $(cat "$TEST_ROOT/err")"
  [ "$(git rev-parse HEAD:.jp/conversations/0-branch/events.json)" = "$(git rev-parse old-work:.jp/conversations/0-branch/events.json)" ] ||
    fail "the merge did not take the old branch's file as it is"
  git jpblob verify --history main..merged > "$TEST_ROOT/out" ||
    fail "verify --history flagged a file the merge carried over: $(cat "$TEST_ROOT/out")"
  git push -q origin merged 2> "$TEST_ROOT/err" || fail "the server refused the merge: $(cat "$TEST_ROOT/err")"
  # Still inline under jpblob's attributes in the index: status says so.
  git jpblob status > "$TEST_ROOT/out"
  grep -qx "  .jp/conversations/0-branch/events.json" "$TEST_ROOT/out" || fail "status: $(cat "$TEST_ROOT/out")"
  git checkout -q -f main
}
case_ "a merge that carries a pre-adoption file over unchanged is not flagged" merge_takes_pre_adoption_file

carol_clone() {
  carol git clone -q "$URL" "$TEST_ROOT/$1" 2> "$TEST_ROOT/err" || fail "Carol's clone failed: $(cat "$TEST_ROOT/err")"
}

# Carol's clone holds the committed form; she appends an inline turn.
carol_commits_unfiltered() {
  cd "$TEST_ROOT/$1"
  grep -q '"\$blob"' "$CONVERSATION" || fail "Carol's conversation holds no reference"
  append_turn "$CONVERSATION" "$2"
  carol git commit -qam "Carol's turn"
}

CAROL_COMMIT_FILE="$TEST_ROOT/carol-commit"
server_refuses_carol() {
  carol_clone carol
  carol_commits_unfiltered carol "Carol's tool output, inline"
  local commit before
  commit=$(git rev-parse --short=12 HEAD)
  echo "$commit" > "$CAROL_COMMIT_FILE"
  before=$(git ls-remote "$URL" refs/heads/main)
  if carol git push -q origin main 2> "$TEST_ROOT/err"; then fail "the server accepted a conversation committed without the filter"; fi
  grep -q "remote: git-jpblob: commit $commit: $CONVERSATION was committed without the jpblob filter: it holds 1 payload inline" \
    "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  grep -q 'git jpblob install`, `git jpblob checkout`, `git add --renormalize .jp` and `git commit --amend --no-edit`' \
    "$TEST_ROOT/err" || fail "the refusal does not give the commands that mend it: $(cat "$TEST_ROOT/err")"
  if grep -q 'git jpblob repair' "$TEST_ROOT/err"; then fail "the refusal gives repair's mend, which is for blobs: $(cat "$TEST_ROOT/err")"; fi
  [ "$(git ls-remote "$URL" refs/heads/main)" = "$before" ] || fail "the server's branch moved"
}
case_ "the server's pre-receive refuses Carol's commit made without git-jpblob, naming commit and file and the mend" \
  server_refuses_carol

# Each commit that brings payloads in is named, however alike their lines.
every_commit_named() {
  cd "$TEST_ROOT/carol"
  carol git checkout -q -b two-turns
  local commits=() i
  for i in 1 2; do
    append_turn "$CONVERSATION" "Carol's turn $i on a branch"
    carol git commit -qam "turn $i"
    commits+=("$(git rev-parse --short=12 HEAD)")
  done
  if carol git push -q origin two-turns 2> "$TEST_ROOT/err"; then fail "the server accepted them"; fi
  for i in "${commits[@]}"; do
    grep -q "commit $i: $CONVERSATION was committed without the jpblob filter" "$TEST_ROOT/err" ||
      fail "commit $i is not named: $(cat "$TEST_ROOT/err")"
  done
  carol git checkout -q main
  carol git branch -q -D two-turns
}
case_ "a push of several such commits names each one" every_commit_named

bob_pre_push_refuses() {
  cd "$TEST_ROOT/bob"
  git checkout -q -b tool-wrote main
  append_turn "$CONVERSATION" "a tool wrote the index"
  # A tool that writes the index without the filter, and a commit past the hook.
  id=$(git hash-object -w --no-filters "$CONVERSATION")
  git update-index --cacheinfo "100644,$id,$CONVERSATION"
  git commit -q --no-verify -m "written by a tool"
  if git push -q origin tool-wrote 2> "$TEST_ROOT/err"; then fail "pre-push let it through"; fi
  grep -q "git-jpblob: commit $(git rev-parse --short=12 HEAD): $CONVERSATION was committed without the jpblob filter" \
    "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  # A commit on top that stores the payloads mends the branch; the one
  # before it checks out whole and stays in history.
  git add --renormalize .jp
  git commit -qm "store the tool's payloads"
  git push -q origin tool-wrote 2> "$TEST_ROOT/err" || fail "the mended branch was refused: $(cat "$TEST_ROOT/err")"
  git checkout -q -f main
  git branch -q -D tool-wrote
}
case_ "Bob's pre-push refuses a commit whose conversation was written into the index without the filter; a commit on top mends it" \
  bob_pre_push_refuses

# A server without the hook takes Carol's push, as before issue 46.
bob_is_told() {
  cd "$TEST_ROOT/carol"
  mv "$HOOK" "$HOOK.off"
  carol git push -q origin main 2> "$TEST_ROOT/err" || { mv "$HOOK.off" "$HOOK"; fail "push: $(cat "$TEST_ROOT/err")"; }
  mv "$HOOK.off" "$HOOK"
  cd "$TEST_ROOT/bob"
  git pull -q --no-rebase origin main 2> "$TEST_ROOT/err" || fail "Bob's pull failed: $(cat "$TEST_ROOT/err")"
  git jpblob status > "$TEST_ROOT/out" || fail "status failed: $(cat "$TEST_ROOT/out")"
  grep -q "^Committed without the filter" "$TEST_ROOT/out" || fail "status does not say it: $(cat "$TEST_ROOT/out")"
  grep -qx "  $CONVERSATION" "$TEST_ROOT/out" || fail "status does not name the file: $(cat "$TEST_ROOT/out")"
  grep -qx "To store their payloads as blobs: git add --renormalize -- $CONVERSATION && git commit" "$TEST_ROOT/out" ||
    fail "status does not give the mend: $(cat "$TEST_ROOT/out")"
  git jpblob status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["unfiltered"] == 1 and [d["path"] for d in s["documents"] if d["unfiltered"]] == [sys.argv[1]], s' "$CONVERSATION"
  local rc=0
  git jpblob verify --history > "$TEST_ROOT/out" || rc=$?
  [ "$rc" = 1 ] || fail "verify --history exited $rc: $(cat "$TEST_ROOT/out")"
  grep -q "^problem: commit $(cat "$CAROL_COMMIT_FILE"): $CONVERSATION was committed without the jpblob filter" "$TEST_ROOT/out" ||
    fail "verify --history does not name commit and file: $(cat "$TEST_ROOT/out")"
  grep -q "^to mend: .*git add --renormalize .jp" "$TEST_ROOT/out" || fail "verify gives no mend: $(cat "$TEST_ROOT/out")"
  [ "$(grep -c '^problem:' "$TEST_ROOT/out")" = 1 ] || fail "more than Carol's commit flagged: $(cat "$TEST_ROOT/out")"
}
case_ "after a pull of Carol's commit, Bob's status names the file with its mend, verify --history names commit and file (exit 1)" \
  bob_is_told

bob_mends_it() {
  cd "$TEST_ROOT/bob"
  local mend
  mend=$(git jpblob status | sed -n 's/^To store their payloads as blobs: //p')
  eval "$mend -qm 'store Carol'\''s payloads'" || fail "the mend failed: $mend"
  git jpblob status > "$TEST_ROOT/out"
  if grep -q "without the filter" "$TEST_ROOT/out"; then fail "still named: $(cat "$TEST_ROOT/out")"; fi
  assert_no_changes
  assert_blobs_committed
  git push -q origin main 2> "$TEST_ROOT/err" || fail "the server refused the mending commit: $(cat "$TEST_ROOT/err")"
  # Carol's commit stays in history as it is; no branch holds its file so.
  git jpblob verify --history > "$TEST_ROOT/out" || fail "verify --history after the mend: $(cat "$TEST_ROOT/out")"
}
case_ "Bob's mend (the commands status printed) stores the payloads, the server takes it, and verify --history passes" \
  bob_mends_it

# Carol follows the refusal's commands, word for word, once git-jpblob is
# on her PATH.
carol_follows_the_mend() {
  carol_clone carol-late
  carol_commits_unfiltered carol-late "Carol's second turn, inline"
  if carol git push -q origin main 2> "$TEST_ROOT/err"; then fail "the server accepted it"; fi
  local commands
  commands=$(sed -n 's/.*in the clone that made it: \(.*\), then push again.*/\1/p' "$TEST_ROOT/err" | head -1 |
    sed 's/`, `/\n/g; s/` and `/\n/g; s/`//g')
  [ "$(echo "$commands" | wc -l)" = 4 ] || fail "cannot read the commands: $(cat "$TEST_ROOT/err")"
  export PATH="$(dirname "$JPBLOB_BIN"):$CAROL_PATH" HOME="$CAROL_HOME"
  while IFS= read -r command; do
    eval "$command" > /dev/null 2> "$TEST_ROOT/step" || fail "$command failed: $(cat "$TEST_ROOT/step")"
  done <<< "$commands"
  git push -q origin main 2> "$TEST_ROOT/err" || fail "the mended push was refused: $(cat "$TEST_ROOT/err")"
  git jpblob verify --history origin/main~1..origin/main > "$TEST_ROOT/out" || fail "verify: $(cat "$TEST_ROOT/out")"
  git jpblob status > "$TEST_ROOT/out"
  if grep -q "without the filter" "$TEST_ROOT/out"; then fail "still named: $(cat "$TEST_ROOT/out")"; fi
  assert_no_changes
}
case_ "Carol runs the refusal's commands once git-jpblob is installed, and the server takes her commit" carol_follows_the_mend

pass
