#!/usr/bin/env bash
# Reference-shaped user data (issue 25, item 1): an agent passing
# {"$blob":"<hex>","size":N,"encoding":"text"} as a structured tool argument
# must get its object back, byte for byte, whether or not that blob exists.
# Before, checkout replaced the one naming a stored blob by the blob's text
# (and git status stayed clean), and the hook refused the commit of the one
# naming no blob, for ever.
. "$(dirname "$0")/lib.sh"
install_jpblob
new_installed_repo repo

# A blob the repository holds: the output of conversation 1.
commit_conversation 1-first "the tool output a user's argument names"
EXISTS=$(printf 'the tool output a user'"'"'s argument names' | sha256sum | cut -c1-64)
EXISTS_SIZE=$(printf 'the tool output a user'"'"'s argument names' | wc -c)
MISSING=$(printf 'never stored anywhere' | sha256sum | cut -c1-64)
# A blob in the store that nothing but the user's object names.
printf 'named only by user data' > "$TEST_ROOT/only"
ONLY=$(git jpblob store "$TEST_ROOT/only" | sed "s/^blob:sha256://; s/ .*//")
ONLY_FILE=".jp/blobs/${ONLY:0:2}/${ONLY:2:2}/$ONLY.blob.gz"
mkdir -p .jp/conversations/2-shaped
cat > .jp/conversations/2-shaped/events.json <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_2",
    "name": "remember",
    "arguments": {
      "exists": {"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"},
      "missing": {
        "\$blob": "$MISSING",
        "size": 21,
        "encoding": "base64"
      },
      "nested": [{"only": {"\$blob":"$ONLY","size":23,"encoding":"text"}}],
      "escape": {"\$jpblob-literal":{"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"}}
    }
  },
  {
    "timestamp": "2026-04-10 17:04:24.923537",
    "type": "tool_call_response",
    "id": "toolu_2",
    "content": {"\$blob":"$EXISTS","size":$EXISTS_SIZE,"encoding":"text"},
    "is_error": false
  }
]
JSON
cp .jp/conversations/2-shaped/events.json "$TEST_ROOT/shaped.json"
touch -d '2 days ago' "$ONLY_FILE"
# Only the user's data names it: untracked, and not what status should show.
echo "/$ONLY_FILE" >> "$(git rev-parse --git-dir)/info/exclude"
SHAPED=.jp/conversations/2-shaped/events.json

commit_works() {
  git add .jp/conversations
  git commit -qm "reference-shaped arguments" 2> "$TEST_ROOT/commit.err" ||
    fail "the hook refused the user's data: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$SHAPED" | grep -q '"\$jpblob-literal":{"\$jpblob-literal":' ||
    fail "the user's literal was not escaped: $(git show "HEAD:$SHAPED")"
  ! git cat-file -e "HEAD:$ONLY_FILE" 2> /dev/null || fail "the hook committed a blob only user data names"
  assert_clean_status
}
case_ "a commit holding reference-shaped arguments goes through, in literals" commit_works

checkout_gives_it_back() {
  rm "$SHAPED"
  git checkout -- "$SHAPED"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "checkout changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/shaped.json")"
  assert_clean_status
}
case_ "checkout of the path gives the file back byte for byte" checkout_gives_it_back

clone_gives_it_back() {
  git clone -q "$TEST_ROOT/repo" "$TEST_ROOT/clone" 2> "$TEST_ROOT/clone.err" ||
    fail "clone failed: $(cat "$TEST_ROOT/clone.err")"
  cd "$TEST_ROOT/clone"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "the clone changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/shaped.json")"
  assert_clean_status
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify in the clone: $(cat "$TEST_ROOT/verify.out")"
}
case_ "a fresh clone gives the file back byte for byte, status clean, verify happy" clone_gives_it_back

gc_and_verify() {
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/gc.err" || fail "gc failed: $(cat "$TEST_ROOT/gc.err")"
  [ -f "$ONLY_FILE" ] || fail "gc deleted the blob the user's data names"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify failed: $(cat "$TEST_ROOT/verify.out")"
  ! grep -q "^problem: .*$MISSING" "$TEST_ROOT/verify.out" || fail "verify requires the missing blob: $(cat "$TEST_ROOT/verify.out")"
  grep -q "^note: .*$MISSING" "$TEST_ROOT/verify.out" || fail "verify does not note the missing blob: $(cat "$TEST_ROOT/verify.out")"
  git jpblob verify --history > "$TEST_ROOT/history.out" 2>&1 || fail "verify --history failed: $(cat "$TEST_ROOT/history.out")"
}
case_ "gc keeps what the user's data names, verify requires none of it" gc_and_verify

skipped_checkout_stays_committed() {
  rm "$SHAPED" .jp/conversations/1-first/events.json
  JPBLOB_SKIP_SMUDGE=1 git checkout -- .jp/conversations
  grep -q '"\$jpblob-literal"' "$SHAPED" || fail "the skip did not leave the committed form"
  # Clean reads it as committed: its references stay references.
  assert_clean_status
  grep -qx '.jp/conversations/1-first/events.json' "$(git rev-parse --git-dir)/jpblob/committed-form" ||
    fail "the skipped checkout was not recorded"
  git jpblob checkout > "$TEST_ROOT/out" || fail "git jpblob checkout failed: $(cat "$TEST_ROOT/out")"
  cmp -s "$SHAPED" "$TEST_ROOT/shaped.json" || fail "git jpblob checkout changed the user's objects"
  assert_clean_status
  ! grep -q conversations "$(git rev-parse --git-dir)/jpblob/committed-form" || fail "the record still lists restored files"
}
case_ "after JPBLOB_SKIP_SMUDGE=1, status is clean and git jpblob checkout restores the user's objects" \
  skipped_checkout_stays_committed

# The merge driver merges two sides line by line in JP's form, where the
# user's objects stand bare, and cleans the result reading JP's form.
merge_keeps_them() {
  git checkout -q -b side
  sed -i 's/"name": "remember"/"name": "recall"/' "$SHAPED"
  git commit -qam "side: rename the tool"
  git checkout -q -
  sed -i 's/"is_error": false/"is_error": true/' "$SHAPED"
  git commit -qam "main: an error after all"
  git merge -q --no-edit side 2> "$TEST_ROOT/merge.err" || fail "the merge failed: $(cat "$TEST_ROOT/merge.err")"
  sed 's/"name": "remember"/"name": "recall"/; s/"is_error": false/"is_error": true/' "$TEST_ROOT/shaped.json" \
    > "$TEST_ROOT/merged.json"
  cmp -s "$SHAPED" "$TEST_ROOT/merged.json" || fail "the merge changed the user's objects: $(diff "$SHAPED" "$TEST_ROOT/merged.json")"
  git show "HEAD:$SHAPED" | grep -q '"missing": {"\$jpblob-literal":' ||
    fail "the merge committed the user's objects as references: $(git show "HEAD:$SHAPED")"
  rm "$SHAPED"
  git checkout -- "$SHAPED"
  cmp -s "$SHAPED" "$TEST_ROOT/merged.json" || fail "checkout after the merge changed the user's objects"
  assert_clean_status
}
case_ "a line merge by the merge driver keeps the user's objects as they were" merge_keeps_them

# Issue 44. Plain reference-shaped objects ({"$blob": <hex>, "size": N},
# no encoding) in an agent's arguments and in metadata are the agent's
# data too: clean never writes one there, so nothing requires their blob.
# Before, the hook refused every commit of one naming a blob that never
# existed ("missing, run repair"), and so did pre-push, pre-receive and
# verify --history. And RFD 066's content objects inside arguments were
# taken for hand-edited payloads: every clone got a reference where JP
# wrote the text.
NOTHING_ARGS=$(printf 'issue 44: no such blob, in arguments' | sha256sum | cut -c1-64)
NOTHING_META=$(printf 'issue 44: no such blob, in metadata' | sha256sum | cut -c1-64)
NOTHING_ALL=$(printf 'issue 44: no such blob, by commit -a' | sha256sum | cut -c1-64)
NOTHING_PATH=$(printf 'issue 44: no such blob, by commit <path>' | sha256sum | cut -c1-64)
NOTHING_PUSH=$(printf 'issue 44: no such blob, pushed' | sha256sum | cut -c1-64)
PLAIN=.jp/conversations/3-plain/events.json
PUSHED=.jp/conversations/4-pushed/events.json
CONTENT=.jp/conversations/5-content/events.json
LONG_TEXT="fn main() {\\n    println!(\\\"the agent's own text: a whole file it asked to write, far longer than the reference that could stand for it\\\");\\n}\\n"

# A conversation whose tool arguments and metadata name blobs that never
# existed, spelled as people write JSON; `extra` digests add one more tool
# call each.
write_plain_shaped() {
  local file=$1 args=$2 meta=$3 extra
  shift 3
  mkdir -p "$(dirname "$file")"
  {
    cat <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_3",
    "name": "fetch",
    "arguments": {
      "cached": {"\$blob": "$args", "size": 5},
      "path": "src/main.rs"
    }
  },
  {
    "timestamp": "2026-04-10 17:04:25.000000",
    "type": "chat_response",
    "message": "done",
    "metadata": {"cache": [{ "size": 5, "\$blob": "$meta" }]}
  }
JSON
    for extra in "$@"; do
      printf '  ,{"type": "tool_call_request", "id": "toolu_%s", "name": "again", "arguments": {"x": {"$blob": "%s", "size": 5}}}\n' \
        "${extra:0:6}" "$extra"
    done
    echo "]"
  } > "$file"
}

# A HOME of its own, with git-jpblob installed as a teammate has it.
other_home() {
  local h="$TEST_ROOT/$1"
  mkdir -p "$h"
  (
    cd "$h"
    export HOME="$h"
    git config --global user.name "teammate"
    git config --global user.email "teammate@example.com"
    git config --global init.defaultBranch main
    lean_mode || git config --global jpblob.lean false
    install_jpblob
  )
  echo "$h"
}

# The clone, in another HOME, gives back $1 byte for byte as $2.
clone_elsewhere_matches() {
  local from=$1 file=$2 expected=$3 h
  h=$(other_home "home-$(basename "$from")")
  HOME="$h" git clone -q "$from" "$TEST_ROOT/clone-$(basename "$from")" 2> "$TEST_ROOT/clone.err" ||
    fail "the clone failed: $(cat "$TEST_ROOT/clone.err")"
  cd "$TEST_ROOT/clone-$(basename "$from")"
  cmp -s "$file" "$expected" || fail "the clone changed the agent's data: $(diff "$expected" "$file" | head -8)"
  [ -z "$(HOME="$h" git status --porcelain)" ] || fail "status in the clone: $(HOME="$h" git status --porcelain)"
}

plain_shaped_commit() {
  new_installed_repo plain
  write_plain_shaped "$PLAIN" "$NOTHING_ARGS" "$NOTHING_META"
  cp "$PLAIN" "$TEST_ROOT/plain.json"
  git add .jp/conversations
  git commit -qm "plain reference-shaped data" 2> "$TEST_ROOT/commit.err" ||
    fail "git commit refused the agent's data: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$PLAIN" | cmp -s - "$TEST_ROOT/plain.json" ||
    fail "the committed form changed the agent's data: $(git show "HEAD:$PLAIN" | diff "$TEST_ROOT/plain.json" - | head -8)"
  assert_clean_status
}
case_ "git add + git commit of arguments and metadata naming blobs that never existed goes through" plain_shaped_commit

plain_shaped_commit_all() {
  cd "$TEST_ROOT/plain"
  write_plain_shaped "$PLAIN" "$NOTHING_ARGS" "$NOTHING_META" "$NOTHING_ALL"
  git commit -qam "one more, by commit -a" 2> "$TEST_ROOT/commit.err" ||
    fail "git commit -a refused the agent's data: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$PLAIN" | grep -q "$NOTHING_ALL" || fail "git commit -a did not commit the change"
  assert_clean_status
}
case_ "git commit -a of one more goes through" plain_shaped_commit_all

plain_shaped_commit_path() {
  cd "$TEST_ROOT/plain"
  write_plain_shaped "$PLAIN" "$NOTHING_ARGS" "$NOTHING_META" "$NOTHING_ALL" "$NOTHING_PATH"
  cp "$PLAIN" "$TEST_ROOT/plain.json"
  git commit -qm "one more, by commit <path>" -- "$PLAIN" 2> "$TEST_ROOT/commit.err" ||
    fail "git commit <path> refused the agent's data: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$PLAIN" | cmp -s - "$TEST_ROOT/plain.json" || fail "git commit <path> did not commit the file as written"
  assert_clean_status
}
case_ "git commit <path> of one more goes through, the committed file as written" plain_shaped_commit_path

plain_shaped_clone() {
  clone_elsewhere_matches "$TEST_ROOT/plain" "$PLAIN" "$TEST_ROOT/plain.json"
}
case_ "a clone on another HOME checks the file out byte for byte" plain_shaped_clone

plain_shaped_verify() {
  cd "$TEST_ROOT/plain"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify failed: $(cat "$TEST_ROOT/verify.out")"
  grep -q "^note: .*$PLAIN.*$NOTHING_ARGS" "$TEST_ROOT/verify.out" ||
    fail "no note naming the conversation and the digest: $(cat "$TEST_ROOT/verify.out")"
  ! grep -q "^problem:" "$TEST_ROOT/verify.out" || fail "verify calls it a problem: $(cat "$TEST_ROOT/verify.out")"
  git jpblob verify --history > "$TEST_ROOT/history.out" 2>&1 || fail "verify --history failed: $(cat "$TEST_ROOT/history.out")"
}
case_ "git jpblob verify exits 0 with a note naming the conversation; verify --history accepts" plain_shaped_verify

plain_shaped_gc_keeps() {
  cd "$TEST_ROOT/plain"
  local named file
  printf 'kept!' > "$TEST_ROOT/named"
  named=$(git jpblob store "$TEST_ROOT/named" | sed "s/^blob:sha256://; s/ .*//")
  file=$(new_blob_file "$named")
  [ -f "$file" ] || fail "git jpblob store wrote no $file"
  write_plain_shaped .jp/conversations/6-named/events.json "$named" "$named"
  git add .jp/conversations
  git commit -qm "an argument naming a stored blob" 2> "$TEST_ROOT/commit.err" || fail "commit: $(cat "$TEST_ROOT/commit.err")"
  touch -d '2 days ago' "$file"
  git jpblob gc --prune=now > /dev/null 2> "$TEST_ROOT/gc.err" || fail "gc failed: $(cat "$TEST_ROOT/gc.err")"
  [ -f "$file" ] || fail "gc deleted the blob a tool argument names"
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || fail "verify failed: $(cat "$TEST_ROOT/verify.out")"
  ! grep -q "$named" "$TEST_ROOT/verify.out" || fail "verify notes a blob that exists: $(cat "$TEST_ROOT/verify.out")"
}
case_ "gc keeps a blob that only the agent's data names, when it exists" plain_shaped_gc_keeps

# Each line behind the hook, on a commit the hook never saw (--no-verify),
# so that each is tried on its own.
plain_shaped_push() {
  cd "$TEST_ROOT/plain"
  grep -q "git-jpblob pre-push hook" .git/hooks/pre-push || fail "no pre-push hook"
  git init -q --bare "$TEST_ROOT/plain-remote.git"
  write_plain_shaped "$PUSHED" "$NOTHING_PUSH" "$NOTHING_PUSH"
  git add .jp/conversations
  git commit -q --no-verify -m "pushed past the pre-commit hook"
  git push -q "$TEST_ROOT/plain-remote.git" main 2> "$TEST_ROOT/push.err" ||
    fail "pre-push refused the agent's data: $(cat "$TEST_ROOT/push.err")"
  git -C "$TEST_ROOT/plain-remote.git" jpblob verify --history > "$TEST_ROOT/history.out" 2>&1 ||
    fail "verify --history in the bare remote: $(cat "$TEST_ROOT/history.out")"
}
case_ "pre-push to a bare remote accepts it, and verify --history there" plain_shaped_push

plain_shaped_pre_receive() {
  cd "$TEST_ROOT/plain"
  git init -q --bare "$TEST_ROOT/plain-server.git"
  printf '#!/bin/sh\nexec git jpblob pre-receive\n' > "$TEST_ROOT/plain-server.git/hooks/pre-receive"
  chmod +x "$TEST_ROOT/plain-server.git/hooks/pre-receive"
  git show HEAD:"$PUSHED" > /dev/null || fail "no commit to push"
  git push -q --no-verify "$TEST_ROOT/plain-server.git" main 2> "$TEST_ROOT/push.err" ||
    fail "pre-receive refused the agent's data: $(cat "$TEST_ROOT/push.err")"
}
case_ "git jpblob pre-receive accepts it" plain_shaped_pre_receive

# RFD 066's content objects are payloads only at content positions; inside
# arguments and metadata the same shapes are the agent's.
content_shaped_arguments() {
  new_installed_repo content
  mkdir -p "$(dirname "$CONTENT")"
  cat > "$CONTENT" <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_5",
    "name": "write_file",
    "arguments": {
      "path": "src/main.rs",
      "content": {"text": "$LONG_TEXT"},
      "mode": {"text": "0644"},
      "raw": {"content": {"blob": "aGVsbG8sIHRoZSBhZ2VudCdzIG93biBieXRlcywgYmFzZTY0LWVuY29kZWQsIGxvbmcgZW5vdWdo"}}
    },
    "metadata": {"content": {"text": "short"}}
  }
]
JSON
  cp "$CONTENT" "$TEST_ROOT/content.json"
  git add .jp/conversations
  git commit -qm "content-shaped arguments" 2> "$TEST_ROOT/commit.err" || fail "commit: $(cat "$TEST_ROOT/commit.err")"
  git show "HEAD:$CONTENT" > "$TEST_ROOT/content.committed"
  rm "$CONTENT"
  git checkout -- "$CONTENT"
  cmp -s "$CONTENT" "$TEST_ROOT/content.json" || fail "checkout changed the agent's data: $(diff "$TEST_ROOT/content.json" "$CONTENT")"
  assert_clean_status
  clone_elsewhere_matches "$TEST_ROOT/content" "$CONTENT" "$TEST_ROOT/content.json"
  # An argument string like any other: moved out where the reference pays.
  grep -q '"content": {"text": {"\$blob":"[0-9a-f]*","size":[0-9]*,"encoding":"text"}}' "$TEST_ROOT/content.committed" ||
    fail "the long text was not moved out as an argument string: $(cat "$TEST_ROOT/content.committed")"
  grep -q '"metadata": {"content": {"text": "short"}}' "$TEST_ROOT/content.committed" ||
    fail "a short metadata string did not stay as written: $(cat "$TEST_ROOT/content.committed")"
}
case_ "tool arguments holding {\"content\": {\"text\": …}} come back byte for byte, in a clone too" content_shaped_arguments

pass
