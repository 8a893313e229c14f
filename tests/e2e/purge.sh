#!/usr/bin/env bash
# Removing a leaked conversation from history (issue 44; README, "Removing
# a leaked conversation from history"): `git jpblob purge-list` names the
# conversation's folders and the blob files only it references, and the
# README's recipe, run line for line with the real git-filter-repo, leaves
# the secret in no commit and no object, while the conversation that shared
# a blob with it still checks out byte for byte.
. "$(dirname "$0")/lib.sh"
SRC=${JPBLOB_SOURCE_DIR:-$E2E_DIR/../..}

if ! command -v git-filter-repo > /dev/null; then
  echo "SKIP: $(basename "$0"): git-filter-repo is not installed (install/deps.sh installs Debian's git-filter-repo)"
  SUITE_DONE=1
  exit 77
fi

ID=17758406187  # the id the README's recipe names
SHARED="cargo check: finished, 0 warnings (read by both conversations)"
SECRET="AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYpurgeE2E"
SECRET2="GITHUB_TOKEN=ghp_purgeE2Eonly0123456789abcdefABCDEF"
SIDE="DATABASE_URL=postgres://admin:s3cr3t-side@db/prod"
OTHER2="the other conversation's later output"

# The team's history: the other conversation and the leaked one share a
# tool output (and the tool argument write_conversation writes); the leaked
# one grows, is renamed on a branch, is tagged, and is deleted at last, so
# that only history holds it.
new_installed_repo work
write_conversation 1-other "$SHARED"
git add .jp && git commit -qm "other conversation"
write_conversation "$ID-secret" "$SHARED"
grow_conversation ".jp/conversations/$ID-secret/events.json" "$SECRET"
git add .jp && git commit -qm "the conversation that leaks"
git branch side
grow_conversation .jp/conversations/1-other/events.json "$OTHER2"
git add .jp && git commit -qm "other grows"
grow_conversation ".jp/conversations/$ID-secret/events.json" "$SECRET2"
git add .jp && git commit -qm "it leaks more"
git tag v1
git rm -rq ".jp/conversations/$ID-secret" && git commit -qm "drop the leaked conversation"
git checkout -q side
git mv ".jp/conversations/$ID-secret" ".jp/conversations/$ID-renamed"
grow_conversation ".jp/conversations/$ID-renamed/events.json" "$SIDE"
git add .jp && git commit -qm "renamed on a branch"
git checkout -q main
cp .jp/conversations/1-other/events.json "$TEST_ROOT/other-events.json"
cp .jp/conversations/1-other/metadata.json "$TEST_ROOT/other-metadata.json"
# Each secret as git held it: its blob file's gzip bytes (the store's form),
# and base64 (JP's inline form).
git cat-file blob "v1:$(blob_of "$SECRET")" > "$TEST_ROOT/secret.gz"
git cat-file blob "side:$(blob_of "$SIDE")" > "$TEST_ROOT/side.gz"
WORK=$PWD
git clone -q --bare "$WORK" "$TEST_ROOT/team.git"
# The README's URL is this suite's server.
git config --global url."file://$TEST_ROOT/team.git".insteadOf https://example.com/team.git

# The README's recipe, as written there.
recipe() {
  awk '/^\*\*Removing a leaked conversation from history\.\*\*/ { s = 1 }
       s && /^```sh$/ { c = 1; next }
       c && /^```$/ { exit }
       c' "$SRC/README.md"
}

# What of the secrets the objects of repository $1 hold, one a line: their
# bytes, their base64, their blob files' gzip bytes.
secrets_in_objects() {
  git -C "$1" cat-file --batch-all-objects --batch |
    python3 -c '
import base64, sys
data = sys.stdin.buffer.read()
for i, s in enumerate(sys.argv[1:4]):
    for form, b in (("raw", s.encode()), ("base64", base64.b64encode(s.encode()))):
        if b in data: print("secret %d (%s) in an object" % (i, form))
for path in sys.argv[4:]:
    if open(path, "rb").read() in data: print("the gzip bytes of " + path + " in an object")
' "$SECRET" "$SECRET2" "$SIDE" "$TEST_ROOT/secret.gz" "$TEST_ROOT/side.gz"
}

# Fails when any object, or any file, below folder $1 holds a secret in any
# form it was stored in.
assert_no_secret_in() {
  local dir=$1 found
  found=$(secrets_in_objects "$dir")
  [ -z "$found" ] || fail "$dir: $found"
  for s in "$SECRET" "$SECRET2" "$SIDE"; do
    for form in "$s" "$(printf '%s' "$s" | base64 -w0)"; do
      found=$(grep -rlaF -- "$form" "$dir" || true)
      [ -z "$found" ] || fail "a file holds a secret: $found"
    done
    found=$(find "$dir" -name "$(basename "$(blob_of "$s")")")
    [ -z "$found" ] || fail "a blob file of a secret is left: $found"
  done
}

purge_list_names_what_only_it_holds() {
  cd "$WORK"
  local want
  want=$(printf '%s\n' ".jp/conversations/$ID-renamed/" ".jp/conversations/$ID-secret/"
    for s in "$SECRET" "$SECRET2" "$SIDE"; do blob_of "$s"; done | sort)
  git jpblob purge-list "$ID" > "$TEST_ROOT/list" 2> "$TEST_ROOT/list.err"
  [ "$(cat "$TEST_ROOT/list")" = "$want" ] || fail "purge-list printed: $(cat "$TEST_ROOT/list") (want: $want)"
  grep -q "^git-jpblob: note: 2 blobs it references stay in history" "$TEST_ROOT/list.err" ||
    fail "no note of the shared blobs: $(cat "$TEST_ROOT/list.err")"
  # The same by the handle, by the renamed folder's path (its id's every
  # folder), and in --json.
  [ "$(git jpblob purge-list "jp-c$ID" 2> /dev/null)" = "$want" ] || fail "by handle"
  git checkout -q side
  [ "$(cd .jp/conversations && git jpblob purge-list "$ID-renamed/events.json" 2> /dev/null)" = "$want" ] ||
    fail "by the renamed folder's events.json"
  git checkout -q main
  git jpblob purge-list --json "$ID" | WANT="$want" SHARED_BLOB=$(blob_of "$SHARED") python3 -c '
import json, os, sys
j = json.load(sys.stdin)
assert j["paths"] == os.environ["WANT"].split("\n"), j["paths"]
assert [s["also_needed_by"] for s in j["shared"]] == [".jp/conversations/1-other/events.json"] * 2, j["shared"]
assert os.environ["SHARED_BLOB"] in [s["path"] for s in j["shared"]], j["shared"]
assert j["commits"] == 7, j["commits"]
assert ".jp/conversations/17758406187-renamed/events.json" in j["documents"], j["documents"]'
}
case_ "purge-list names every folder of the conversation and the blobs only it holds, in history only" \
  purge_list_names_what_only_it_holds

unknown_conversation() {
  cd "$WORK"
  local out rc files_rc
  set +e
  out=$(git jpblob purge-list "$ID" 42 2> "$TEST_ROOT/unknown.err")
  rc=$?
  git jpblob files 42 > /dev/null 2>&1
  files_rc=$?
  set -e
  [ "$rc" -ne 0 ] && [ "$rc" -eq "$files_rc" ] || fail "exit $rc, files exits $files_rc"
  [ -z "$out" ] || fail "a paths file was printed: $out"
  [ "$(wc -l < "$TEST_ROOT/unknown.err")" -eq 1 ] &&
    grep -q "^git-jpblob: no conversation with id 42 " "$TEST_ROOT/unknown.err" ||
    fail "$(cat "$TEST_ROOT/unknown.err")"
}
case_ "an unknown conversation is an error, as files says, and no list" unknown_conversation

# The issue itself: filter-repo dropping the folder alone keeps the secret
# in every commit since, through its blob file.
folder_alone_keeps_the_secret() {
  cd "$TEST_ROOT"
  git clone -q https://example.com/team.git folder-only 2> /dev/null
  cd folder-only
  git filter-repo --invert-paths --path ".jp/conversations/$ID-secret/" --path ".jp/conversations/$ID-renamed/" \
    > /dev/null 2>&1
  git rev-list --all --objects | grep -q "$(basename "$(blob_of "$SECRET")")" || fail "its blob left history"
  grep -q "gzip bytes of $TEST_ROOT/secret.gz" <<<"$(secrets_in_objects .)" || fail "no object holds the secret"
}
case_ "dropping the folder alone leaves the secret's blob in history (the issue)" folder_alone_keeps_the_secret

readme_recipe() {
  local script
  script=$(recipe)
  [ "$(wc -l <<<"$script")" -ge 5 ] && grep -q "purge-list $ID" <<<"$script" || fail "no recipe in the README: $script"
  cd "$TEST_ROOT"
  bash -euo pipefail -c "$script" > "$TEST_ROOT/recipe.log" 2>&1 || fail "the recipe failed: $(tail -5 "$TEST_ROOT/recipe.log")"
  [ -s purge-paths.txt ] || fail "no paths file"
  assert_no_secret_in "$TEST_ROOT/purge"
  cd purge
  local leaked
  leaked=$(git log --all -p | grep -aF -e "$SECRET" -e "$SECRET2" -e "$SIDE" -e "$ID" || true)
  [ -z "$leaked" ] || fail "git log --all -p shows: $leaked"
  leaked=$(git rev-list --all --objects | grep -e "$ID" -e "$(basename "$(blob_of "$SECRET")")" || true)
  [ -z "$leaked" ] || fail "git rev-list --all --objects lists: $leaked"
  cmp .jp/conversations/1-other/events.json "$TEST_ROOT/other-events.json" || fail "the other conversation changed"
  git jpblob verify --history > "$TEST_ROOT/verify.out" || fail "verify --history: $(cat "$TEST_ROOT/verify.out")"
}
case_ "the README's recipe, line for line, leaves the secret nowhere in the rewritten clone" readme_recipe

# What a teammate gets by cloning again once the server dropped the old
# objects (reflogs expired, pruned: what the README asks of the host).
fresh_clone_after_the_server_pruned() {
  git -C "$TEST_ROOT/team.git" reflog expire --expire=now --all
  git -C "$TEST_ROOT/team.git" gc -q --prune=now
  assert_no_secret_in "$TEST_ROOT/team.git"
  cd "$TEST_ROOT"
  git clone -q https://example.com/team.git again 2> /dev/null
  cd again
  cmp .jp/conversations/1-other/events.json "$TEST_ROOT/other-events.json" || fail "events.json differs"
  cmp .jp/conversations/1-other/metadata.json "$TEST_ROOT/other-metadata.json" || fail "metadata.json differs"
  local shared
  shared=$(blob_of "$SHARED")
  [ "$(git cat-file blob "HEAD:$shared" | gunzip)" = "$SHARED" ] || fail "the shared blob is not in HEAD"
  if lean_mode; then
    [ ! -e "$shared" ] || fail "a lean clone checked a blob file out"
  else
    [ "$(gunzip < "$shared")" = "$SHARED" ] || fail "the shared blob file is not checked out"
  fi
  assert_clean_status
  git jpblob verify --history > "$TEST_ROOT/verify2.out" || fail "verify --history: $(cat "$TEST_ROOT/verify2.out")"
  # Every branch and tag came through, rewritten.
  git rev-parse -q --verify origin/side > /dev/null && git rev-parse -q --verify v1 > /dev/null || fail "side or v1 is gone"
  [ "$(git show "v1:.jp/conversations/1-other/events.json" | grep -c '"tool_call_response"')" -eq 2 ] ||
    fail "v1 lost the other conversation's second output"
}
case_ "a new clone of the pushed history: no secret, the other conversation byte for byte with its shared blob" \
  fresh_clone_after_the_server_pruned

pass
