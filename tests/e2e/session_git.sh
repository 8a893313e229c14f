#!/usr/bin/env bash
# Agent session files through git: images in session JSONL are
# committed as blob:sha256: references with their blobs, and come back
# byte-identical in a clone; gc keeps their blobs; the hook handles
# sessions kept outside .jp too.
. "$(dirname "$0")/lib.sh"

# A session with three 50 KB images, one of them twice, and a cut-off last
# line as a killed agent leaves it.
write_session() {
  python3 - "$1" <<'PY'
import base64, json, os, random, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
rng = random.Random(7)
imgs = [base64.b64encode(bytes(rng.getrandbits(8) for _ in range(50 * 1024))).decode() for _ in range(3)]
lines = [{"type": "session", "version": 3, "id": "abc123", "cwd": "/work"}]
for i, img in enumerate(imgs + [imgs[0]]):
    lines.append({"type": "message", "id": "m%d" % i, "message": {"role": "user", "content": [
        {"type": "text", "text": "screenshot %d" % i}, {"type": "image", "data": img, "mimeType": "image/png"}]}})
with open(path, "w") as f:
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
    f.write('{"type":"message","id":"m9","message":{"role":"assi')
PY
}

# Appends a line with a new 4 KB image, chosen by a seed.
add_image_line() {
  python3 - "$1" "$2" <<'PY'
import base64, json, random, sys
rng = random.Random(int(sys.argv[2]))
img = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(4096))).decode()
with open(sys.argv[1], "a") as f:
    f.write("\n" + json.dumps({"type": "message", "content": [{"type": "image", "data": img}]}))
PY
}

new_installed_repo origin
session=.jp/sessions/work/2026-11-22T10-00-00_abc123.jsonl
session_blobs() { git cat-file -p "HEAD:$session" | grep -o 'blob:sha256:[0-9a-f]\{64\}' | sort -u | wc -l; }
write_session "$session"
cp "$session" "$TEST_ROOT/original.jsonl"

install_routes_sessions() {
  grep -q '^.jp/sessions/\*\*/\*.jsonl filter=jpblob' .gitattributes || fail "install does not route sessions"
}
case_ "install routes sessions to the filter" install_routes_sessions

add_warns_and_commits() {
  git add "$session" 2> add.err
  grep -q "not valid JSON" add.err || fail "no warning about the cut-off line: $(cat add.err)"
  git commit -qm "a session"
  assert_no_changes
}
case_ "adding warns about the cut-off line; the commit leaves status clean" add_warns_and_commits

committed_as_references() {
  local committed
  committed=$(git cat-file -p "HEAD:$session")
  [ "$(grep -o 'blob:sha256:[0-9a-f]\{64\}' <<< "$committed" | sort -u | wc -l)" -eq 3 ] ||
    fail "the committed session does not reference three blobs"
  [ "$(git cat-file -s "HEAD:$session")" -lt 4000 ] || fail "the committed session is not small"
  [ "$(git ls-tree -r --name-only HEAD -- .jp/blobs | wc -l)" -eq 3 ] || fail "the hook did not commit three blobs"
  cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "the work tree file changed"
  verify_blobs
}
case_ "the session commits as three blob references under 4 KB, with its three blobs" committed_as_references

# Each commit mode stages the blobs of a new image, followed by a clean status.
new_image_in_mode() {
  local mode=$1 before d
  before=$(session_blobs)
  add_image_line "$session" "$RANDOM"
  case $mode in
    plain) git add "$session" 2> /dev/null && git commit -qm "image ($mode)" ;;
    all) git commit -qam "image ($mode)" 2> /dev/null ;;
    paths) git commit -qm "image ($mode)" -- "$session" 2> /dev/null ;;
  esac
  [ "$(session_blobs)" -eq $((before + 1)) ] || fail "$mode: the new image is not a reference"
  for d in $(git cat-file -p "HEAD:$session" | grep -o 'blob:sha256:[0-9a-f]\{64\}' | cut -c13- | sort -u); do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "$mode: blob $d is not in the commit"
  done
  assert_no_changes
}
case_ "git commit stages a new image's blob" new_image_in_mode plain
case_ "git commit -a stages a new image's blob" new_image_in_mode all
case_ "git commit <paths> stages a new image's blob" new_image_in_mode paths
cp "$session" "$TEST_ROOT/original.jsonl"

clone_gets_session() {
  # A clone that checks the store out (install --no-lean): gc has files to weigh.
  git clone -q -c jpblob.lean=false "$TEST_ROOT/origin" "$TEST_ROOT/clone"
  cd "$TEST_ROOT/clone"
  cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "the clone's session differs"
  assert_clean_status
}
case_ "a clone gets the session back byte for byte" clone_gets_session

stash_and_checkout_exact() {
  cd "$TEST_ROOT/clone"
  printf '{"type":"message","id":"m10"}\n' >> "$session"
  git stash -q
  cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "stash did not restore the session"
  git stash pop -q
  git checkout -q -- "$session"
  cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "checkout did not restore the session"
}
case_ "stash, and checkout of the committed state, keep the session exact" stash_and_checkout_exact

gc_keeps_session_blobs() {
  cd "$TEST_ROOT/clone"
  git jpblob gc --prune=now > /dev/null
  [ "$(held_blobs)" -eq 6 ] || fail "gc deleted a session's blob"
  git jpblob verify > /dev/null || fail "verify failed"
  git jpblob verify --history > /dev/null || fail "verify --history failed"
}
case_ "gc keeps every blob a session references, and verify sees them" gc_keeps_session_blobs

# The blob is in no commit (the session was committed with --no-verify)
# and its file is gone.
missing_blob_kept_as_reference() {
  cd "$TEST_ROOT/clone"
  local lost=.jp/sessions/work/2026-11-22T11-00-00_lost.jsonl committed_lost missing blob
  python3 - "$lost" "$TEST_ROOT/original.jsonl" <<'PY'
import base64, json, random, sys
rng = random.Random(11)
lost = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(2048))).decode()
kept = json.loads(open(sys.argv[2]).readlines()[1])["message"]["content"][1]["data"]  # committed long ago
with open(sys.argv[1], "w") as f:
    for i, img in enumerate([lost, kept, lost]):
        f.write(json.dumps({"type": "message", "id": "l%d" % i, "message": {"role": "user", "content": [
            {"type": "image", "data": img, "mimeType": "image/png"}]}}, separators=(",", ":")) + "\n")
PY
  git add "$lost"
  git commit -q --no-verify -m "lose a blob"
  committed_lost=$(git cat-file -p "HEAD:$lost")
  missing=$(grep -o 'blob:sha256:[0-9a-f]\{64\}' <<< "$committed_lost" | head -n 1 | cut -c13-)
  rm "$lost"
  remove_blob_files "$missing"
  git checkout -q -- "$lost" 2> checkout.err
  grep -q "blob $missing referenced by $lost is missing; left as a reference" checkout.err ||
    fail "no warning for the missing blob: $(cat checkout.err)"
  [ "$(grep -c "is missing" checkout.err)" -eq 1 ] || fail "more than one warning for one blob used twice: $(cat checkout.err)"
  grep -q "blob:sha256:$missing" "$lost" || fail "the reference was not kept"
  [ "$(grep -c '"data":"blob:sha256:' "$lost")" -eq 2 ] || fail "the other image was not loaded"
  if git jpblob verify > /dev/null 2>&1; then fail "verify did not report the missing blob"; fi
}
case_ "a missing blob: the session checks out with the reference kept and one warning" missing_blob_kept_as_reference

outside_jp() {
  cd "$TEST_ROOT/origin"
  echo 'agent-sessions/*.jsonl filter=jpblob -text' >> .gitattributes
  write_session agent-sessions/2026-11-23T09-00-00_def456.jsonl
  python3 - agent-sessions/2026-11-23T09-00-00_def456.jsonl <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace("screenshot", "capture")  # same images, one new by a changed byte below
s = s.replace('"data":"', '"data":"AAAA', 1)
open(p, "w").write(s)
PY
  git add .gitattributes agent-sessions 2> /dev/null
  git commit -qm "a session outside .jp"
  [ "$(git ls-tree -r --name-only HEAD -- .jp/blobs | wc -l)" -eq 7 ] || fail "the outside session's new blob was not committed"
  git jpblob gc --prune=now > /dev/null
  [ "$(held_blobs)" -eq 7 ] || fail "gc deleted a blob of a session outside .jp"
}
case_ "a session outside .jp, routed by the user's own line: its blobs are committed and kept" outside_jp

# The agent already externalized an image to its own global store.
agent_reference_needs_store() {
  cd "$TEST_ROOT/origin"
  python3 - "$TEST_ROOT/agent-blob.png" <<'PY'
import random, sys
rng = random.Random(11)
open(sys.argv[1], "wb").write(bytes(rng.getrandbits(8) for _ in range(3000)))
PY
  local digest
  digest=$(sha256sum "$TEST_ROOT/agent-blob.png" | cut -c1-64)
  printf '{"type":"message","content":[{"type":"image","data":"blob:sha256:%s","mimeType":"image/png"}]}\n' "$digest" \
    > .jp/sessions/agent-ref.jsonl
  git add .jp/sessions/agent-ref.jsonl
  if git commit -qm "agent's reference" 2> commit.err; then fail "a commit without the agent's blob went through"; fi
  grep -q "git jpblob store <file>" commit.err || fail "the refusal does not say how to fix it: $(cat commit.err)"
  [ "$(git jpblob store "$TEST_ROOT/agent-blob.png")" = "blob:sha256:$digest  $TEST_ROOT/agent-blob.png" ] ||
    fail "store did not print the blob URL"
  git commit -qm "agent's reference"
  git cat-file -e "HEAD:.jp/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz" || fail "the stored blob was not committed"
  rm .jp/sessions/agent-ref.jsonl && git checkout -q -- .jp/sessions/agent-ref.jsonl
  grep -q "\"data\":\"$(base64 -w0 "$TEST_ROOT/agent-blob.png")\"" .jp/sessions/agent-ref.jsonl ||
    fail "checkout did not put the agent's image inline"
}
case_ "an agent's own blob reference: refused until git jpblob store puts the bytes in .jp/blobs" agent_reference_needs_store

# A teammate who never installed. Last: it takes the filter out of the
# global config every case shares.
hook_without_filter() {
  git init -q "$TEST_ROOT/nofilter" && cd "$TEST_ROOT/nofilter"
  git jpblob install --local > /dev/null
  git config --local --unset-all filter.jpblob.process || true
  git config --local --unset-all filter.jpblob.clean || true
  git config --local --unset-all filter.jpblob.smudge || true
  git config --local --unset-all filter.jpblob.required || true
  git config --global --unset-all filter.jpblob.process || true
  git config --global --unset-all filter.jpblob.clean || true
  git config --global --unset-all filter.jpblob.smudge || true
  git config --global --unset-all filter.jpblob.required || true
  write_session .jp/sessions/s.jsonl
  git add .gitattributes .jp/sessions/s.jsonl
  git commit -qm "inline session"
  [ "$(git cat-file -s HEAD:.jp/sessions/s.jsonl)" -lt 4000 ] || fail "the hook did not externalize the images"
  [ "$(git ls-tree -r --name-only HEAD -- .jp/blobs | wc -l)" -eq 3 ] || fail "the hook did not commit the blobs"
}
case_ "without the filter, the hook externalizes the images of a staged session itself" hook_without_filter
pass
