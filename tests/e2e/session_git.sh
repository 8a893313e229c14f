#!/usr/bin/env bash
# Agent session files through git: images in session JSONL are
# committed as blob:sha256: references with their blobs, and come back
# byte-identical in a clone; gc keeps their blobs; the hook handles
# sessions kept outside .jp too.
. "$(dirname "$0")/lib.sh"
subcase "Agent session files through git: images in session JSONL are committed as blob:sha256:…"

subcase "A session with three 50 KB images, one of them twice, and a cut-off last line as a killed agent…"
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

new_installed_repo origin
grep -q '^.jp/sessions/\*\*/\*.jsonl filter=jpblob' .gitattributes || fail "install does not route sessions"
session=.jp/sessions/work/2026-11-22T10-00-00_abc123.jsonl
write_session "$session"
cp "$session" "$TEST_ROOT/original.jsonl"
git add "$session" 2> add.err
grep -q "not valid JSON" add.err || fail "no warning about the cut-off line: $(cat add.err)"
git commit -qm "a session"
assert_no_changes

committed=$(git cat-file -p "HEAD:$session")
[ "$(grep -o 'blob:sha256:[0-9a-f]\{64\}' <<< "$committed" | sort -u | wc -l)" -eq 3 ] ||
  fail "the committed session does not reference three blobs"
[ "$(git cat-file -s "HEAD:$session")" -lt 4000 ] || fail "the committed session is not small"
[ "$(git ls-tree -r --name-only HEAD -- .jp/blobs | wc -l)" -eq 3 ] || fail "the hook did not commit three blobs"
cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "the work tree file changed"
verify_blobs

subcase "Each commit mode stages the blobs of a new image: git commit, git commit -a and git commit…"
# Each commit mode stages the blobs of a new image: git commit, git commit
# -a and git commit <paths>, each followed by a clean status.
add_image_line() {
  python3 - "$1" "$2" <<'PY'
import base64, json, random, sys
rng = random.Random(int(sys.argv[2]))
img = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(4096))).decode()
with open(sys.argv[1], "a") as f:
    f.write("\n" + json.dumps({"type": "message", "content": [{"type": "image", "data": img}]}))
PY
}
session_blobs() { git cat-file -p "HEAD:$session" | grep -o 'blob:sha256:[0-9a-f]\{64\}' | sort -u | wc -l; }
for mode in plain all paths; do
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
done
cp "$session" "$TEST_ROOT/original.jsonl"
committed=$(git cat-file -p "HEAD:$session")

subcase "A clone gets the session back byte for byte"
# A clone gets the session back byte for byte.
git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone"
cd "$TEST_ROOT/clone"
cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "the clone's session differs"
assert_clean_status

subcase "Checkout of an older state and back, and stash, keep it exact"
# Checkout of an older state and back, and stash, keep it exact.
printf '{"type":"message","id":"m10"}\n' >> "$session"
git stash -q
cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "stash did not restore the session"
git stash pop -q
git checkout -q -- "$session"
cmp -s "$session" "$TEST_ROOT/original.jsonl" || fail "checkout did not restore the session"

subcase "gc keeps every blob a session references, and verify sees them"
# gc keeps every blob a session references, and verify sees them.
git jpblob gc --prune=now > /dev/null
[ "$(find .jp/blobs -name '*.blob.gz' | wc -l)" -eq 6 ] || fail "gc deleted a session's blob"
git jpblob verify > /dev/null || fail "verify failed"
git jpblob verify --history > /dev/null || fail "verify --history failed"

subcase "A missing blob: the session still checks out, with the reference kept and one warning, instead…"
# A missing blob: the session still checks out, with the reference kept
# and one warning, instead of failing the checkout. The blob is in no
# commit (the session was committed with --no-verify) and its file is gone.
lost=.jp/sessions/work/2026-11-22T11-00-00_lost.jsonl
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
blob=".jp/blobs/${missing:0:2}/${missing:2:2}/$missing.blob.gz"
rm "$lost" "$blob"
git checkout -q -- "$lost" 2> checkout.err
grep -q "blob $missing referenced by $lost is missing; left as a reference" checkout.err ||
  fail "no warning for the missing blob: $(cat checkout.err)"
[ "$(grep -c "is missing" checkout.err)" -eq 1 ] || fail "more than one warning for one blob used twice: $(cat checkout.err)"
grep -q "blob:sha256:$missing" "$lost" || fail "the reference was not kept"
[ "$(grep -c '"data":"blob:sha256:' "$lost")" -eq 2 ] || fail "the other image was not loaded"
git jpblob verify > /dev/null 2>&1 && fail "verify did not report the missing blob"

subcase "A session outside .jp, routed by the user's own attribute line: the hook still commits its blobs"
# A session outside .jp, routed by the user's own attribute line: the hook
# still commits its blobs.
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
[ "$(find .jp/blobs -name '*.blob.gz' | wc -l)" -eq 7 ] || fail "gc deleted a blob of a session outside .jp"

subcase "A session whose agent already externalized an image to its own global store: the commit is…"
# A session whose agent already externalized an image to its own global
# store: the commit is refused until the bytes are in .jp/blobs, and
# `git jpblob store` puts them there under the same name.
python3 - "$TEST_ROOT/agent-blob.png" <<'PY'
import random, sys
rng = random.Random(11)
open(sys.argv[1], "wb").write(bytes(rng.getrandbits(8) for _ in range(3000)))
PY
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

subcase "Without the filter (a teammate who never installed), the hook externalizes the images of a…"
# Without the filter (a teammate who never installed), the hook
# externalizes the images of a staged session itself.
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
pass
