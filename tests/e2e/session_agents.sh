#!/usr/bin/env bash
# Claude Code transcripts and today's oh-my-pi sessions through real git:
# their images are committed as blob:sha256: references with their blobs,
# named as oh-my-pi names them, and come back byte for byte in a clone.
. "$(dirname "$0")/lib.sh"

# A Claude Code transcript as Claude Code writes it (~/.claude/projects/
# <project>/<session>.jsonl): a summary, a pasted screenshot, a Read tool
# call whose result holds the picture, a tiny image, and other lines.
write_claude_transcript() {
  python3 - "$1" <<'PY'
import base64, json, os, random, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
rng = random.Random(26)
pic = lambda n: base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()
def image(data, mime="image/png"):
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
common = {"isSidechain": False, "userType": "external", "cwd": "/home/u/proj", "sessionId": "5c1e0b7a",
          "version": "1.0.98", "gitBranch": "main"}
shot, pasted, tiny = pic(40 * 1024), pic(6000), pic(50)
lines = [
    {"type": "summary", "summary": "Fix the login page", "leafUuid": "u3"},
    dict(common, parentUuid=None, type="user", uuid="u1", timestamp="2026-11-20T10:00:00.000Z",
         message={"role": "user", "content": [{"type": "text", "text": "what is wrong here?"}, image(pasted, "image/jpeg")]}),
    dict(common, parentUuid="u1", type="assistant", uuid="u2", timestamp="2026-11-20T10:00:01.000Z",
         message={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                  "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/home/u/proj/shot.png"}}],
                  "stop_reason": "tool_use", "usage": {"input_tokens": 12, "output_tokens": 7}}),
    dict(common, parentUuid="u2", type="user", uuid="u3", timestamp="2026-11-20T10:00:02.000Z",
         message={"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result",
                                               "content": [image(shot), image(tiny), image(pasted, "image/jpeg")]}]}),
]
with open(path, "w") as f:
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
PY
}

new_installed_repo origin
transcript=.claude/projects/-home-u-proj/5c1e0b7a-1111-2222-3333-444455556666.jsonl
omp=.jp/sessions/omp/2026-11-20T10-00-00_0b7a.jsonl
write_claude_transcript "$transcript"
write_omp_session "$omp" | sort > "$TEST_ROOT/omp-digests"
cp "$transcript" "$TEST_ROOT/transcript.jsonl"
cp "$omp" "$TEST_ROOT/omp.jsonl"
refs_in() { git cat-file -p "HEAD:$1" | grep -o 'blob:sha256:[0-9a-f]\{64\}' | cut -c13- | sort -u; }

install_routes_claude() {
  grep -qx '.claude/projects/\*\*/\*.jsonl filter=jpblob merge=jpblob -text' .gitattributes ||
    fail "install does not route Claude Code transcripts: $(cat .gitattributes)"
  [ "$(git check-attr filter -- "$transcript")" = "$transcript: filter: jpblob" ] || fail "git does not route the transcript"
}
case_ "install routes .claude/projects/**/*.jsonl to the filter" install_routes_claude

commit_claude() {
  git add "$transcript" .gitattributes
  git commit -qm "a Claude Code transcript"
  [ "$(refs_in "$transcript" | wc -l)" -eq 3 ] || fail "the transcript does not reference three images"
  [ "$(git cat-file -p "HEAD:$transcript" | grep -c '"type":"base64","media_type":"image/[a-z]*","data":"blob:sha256:')" -eq 2 ] ||
    fail "the images are not references in both messages"
  [ "$(git cat-file -s "HEAD:$transcript")" -lt 3000 ] || fail "the committed transcript is not small"
  local d
  for d in $(refs_in "$transcript"); do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "blob $d is not in the commit"
  done
  cmp -s "$transcript" "$TEST_ROOT/transcript.jsonl" || fail "the work tree file changed"
  assert_no_changes
}
case_ "a Claude Code transcript commits its three images as references, with their blobs" commit_claude

commit_omp() {
  git add "$omp"
  git commit -qm "an oh-my-pi session"
  refs_in "$omp" > "$TEST_ROOT/omp-refs"
  diff "$TEST_ROOT/omp-digests" "$TEST_ROOT/omp-refs" > /dev/null ||
    fail "the references are not the names oh-my-pi gives: $(diff "$TEST_ROOT/omp-digests" "$TEST_ROOT/omp-refs")"
  git cat-file -p "HEAD:$omp" | grep -q '"image_url":"blob:sha256:' || fail "the data URL is not a reference"
  local url_digest
  url_digest=$(tail -n 1 <<< "$(write_omp_session "$TEST_ROOT/again.jsonl")")
  [ "$(git jpblob cat "blob:sha256:$url_digest")" = "$(grep -o 'data:image/png;base64,[A-Za-z0-9+/=]*' "$TEST_ROOT/omp.jsonl")" ] ||
    fail "the data URL's blob does not hold the URL's text"
  [ "$(head -c 256 "$omp" | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ] || fail "the title slot moved"
  assert_no_changes
}
case_ "an oh-my-pi session's four image sources become the blobs oh-my-pi would name" commit_omp

clone_restores() {
  git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/clone"
  cd "$TEST_ROOT/clone"
  cmp "$transcript" "$TEST_ROOT/transcript.jsonl" || fail "the clone's transcript differs"
  cmp "$omp" "$TEST_ROOT/omp.jsonl" || fail "the clone's oh-my-pi session differs"
  rm "$transcript" "$omp"
  git checkout -q -- .
  cmp -s "$transcript" "$TEST_ROOT/transcript.jsonl" || fail "checkout did not restore the transcript"
  cmp -s "$omp" "$TEST_ROOT/omp.jsonl" || fail "checkout did not restore the oh-my-pi session"
  assert_clean_status
}
case_ "a clone, and a checkout, give both sessions back byte for byte" clone_restores

gc_and_verify() {
  cd "$TEST_ROOT/clone"
  git jpblob gc --prune=now > /dev/null
  [ "$(held_blobs)" -eq 7 ] || fail "gc left $(held_blobs) of the 7 blobs"
  git jpblob verify > /dev/null || fail "verify failed"
  git jpblob verify --history > /dev/null || fail "verify --history failed"
  git jpblob ls-files | grep -q "^$transcript" || fail "ls-files does not list the transcript: $(git jpblob ls-files)"
}
case_ "gc keeps the blobs the transcript references; verify and ls-files see it" gc_and_verify

# Only what the transcript references is committed: a blob of a working
# copy never added stays out, and gc in a work tree keeps the staged
# transcript's blobs.
new_image_staged() {
  cd "$TEST_ROOT/clone"
  python3 - "$transcript" <<'PY'
import base64, json, random, sys
rng = random.Random(99)
data = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(5000))).decode()
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"type": "user", "uuid": "u4", "message": {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]}},
        separators=(",", ":")) + "\n")
PY
  git add "$transcript"
  git jpblob gc --prune=now > /dev/null
  git commit -qm "one more screenshot"
  [ "$(refs_in "$transcript" | wc -l)" -eq 4 ] || fail "the new image is not a reference"
  local d
  d=$(comm -13 <(git cat-file -p "HEAD~1:$transcript" | grep -o 'blob:sha256:[0-9a-f]\{64\}' | cut -c13- | sort -u) <(refs_in "$transcript"))
  git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "the new blob is not in the commit"
  assert_no_changes
}
case_ "a new image in the transcript: staged, kept by gc before the commit, committed with it" new_image_staged

# .claude is the user's too: a link there (to a configuration shared by
# several projects) holds nothing git tracks, and is passed over; a link
# where a transcript would be read is refused, as below .jp.
claude_links() {
  git init -q "$TEST_ROOT/linked" && cd "$TEST_ROOT/linked"
  mkdir -p "$TEST_ROOT/shared-claude/projects/p"
  cp "$TEST_ROOT/transcript.jsonl" "$TEST_ROOT/shared-claude/projects/p/s.jsonl"
  ln -s "$TEST_ROOT/shared-claude" .claude
  git jpblob stats > stats.out 2>&1 || fail "stats failed beside a linked .claude: $(cat stats.out)"
  git jpblob gc --prune=now > gc.out 2>&1 || fail "gc failed beside a linked .claude: $(cat gc.out)"
  git jpblob verify > /dev/null 2>&1 || fail "verify failed beside a linked .claude"
  rm .claude && mkdir -p .claude/projects/p
  ln -s "$TEST_ROOT/shared-claude/projects/p/s.jsonl" .claude/projects/p/s.jsonl
  if git jpblob gc --prune=now > gc.out 2>&1; then fail "gc read a transcript through a link"; fi
  grep -q "refusing .claude/projects/p/s.jsonl: it is a symbolic link" gc.out || fail "gc: $(cat gc.out)"
}
case_ "a linked .claude is passed over; a linked transcript below .claude/projects is refused" claude_links
# Claude Code's heavy parts beyond its image blocks (issue #47): a Read of
# a picture keeps it twice (the tool_result and toolUseResult.file.base64),
# a PDF comes as a `document` block, and a file read holds the text twice
# (numbered in the tool_result, raw in toolUseResult.file.content).
write_claude_reads() {
  python3 - "$1" <<'PY'
import base64, json, os, random, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
rng = random.Random(47)
png = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(50 * 1024))).decode()
pdf = base64.b64encode(b"%PDF-1.4\n" + bytes(rng.getrandbits(8) for _ in range(8000))).decode()
src = "".join("int f%d(int x) { return x * %d; } // \"why\"\n" % (i, rng.randrange(1000)) for i in range(2000))
numbered = "".join("%6d\t%s\n" % (i + 1, l) for i, l in enumerate(src.splitlines()))
common = {"isSidechain": False, "userType": "external", "cwd": "/home/u/proj", "sessionId": "47", "version": "2.0.28"}
def result(uuid, content, tool_use_result):
    return dict(common, type="user", uuid=uuid, message={"role": "user", "content": [
        {"tool_use_id": "toolu_" + uuid, "type": "tool_result", "content": content}]}, toolUseResult=tool_use_result)
lines = [
    result("r1", [{"type": "image", "source": {"type": "base64", "data": png, "media_type": "image/png"}}],
           {"type": "image", "file": {"base64": png, "type": "image/png", "originalSize": 51200}}),
    result("r2", [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}],
           {"type": "pdf", "file": {"filePath": "/home/u/proj/a.pdf", "base64": pdf, "originalSize": 8009}}),
    result("r3", numbered, {"type": "text", "file": {"filePath": "/home/u/proj/f.c", "content": src,
                                                     "numLines": 2000, "startLine": 1, "totalLines": 2000}}),
]
with open(path, "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False, separators=(",", ":")) + "\n")
PY
}

claude_heavy_parts() {
  new_installed_repo heavy
  local t=.claude/projects/-home-u-proj/47.jsonl
  write_claude_reads "$t"
  cp "$t" "$TEST_ROOT/heavy.jsonl"
  git add "$t" && git commit -qm "a transcript with a read image, a PDF and a file read"
  local size committed
  size=$(wc -c < "$t")
  committed=$(git cat-file -s "HEAD:$t")
  [ "$committed" -lt $((size / 10)) ] || fail "committed $committed bytes of $size: not under a tenth"
  [ "$(refs_in "$t" | wc -l)" -eq 4 ] || fail "expected 4 distinct blobs (the image and the PDF once each), got $(refs_in "$t" | wc -l)"
  git cat-file -p "HEAD:$t" | grep -q '"base64":"blob:sha256:' || fail "toolUseResult.file.base64 stayed inline"
  git clone -q "$TEST_ROOT/heavy" "$TEST_ROOT/heavy-clone"
  cmp "$TEST_ROOT/heavy-clone/$t" "$TEST_ROOT/heavy.jsonl" || fail "the clone's transcript differs"
  rm "$t" && git checkout -q -- "$t"
  cmp "$t" "$TEST_ROOT/heavy.jsonl" || fail "checkout did not restore the transcript byte for byte"
  assert_no_changes
}
case_ "a read image (both copies), a PDF and a file read commit at under a tenth, and come back byte for byte" claude_heavy_parts
# A session oh-my-pi wrote with references: its writer keeps each image in
# its own store (<agent dir>/blobs/<hex>, raw bytes) and writes
# blob:sha256:<hex> in the session. That form is clean's
# (session_real_client.sh has oh-my-pi's own writer check it), so a clean
# outside any repository makes it here. $1: the session, $2: the agent's
# blob folder, $3: the images' seed (write_omp_session's). The inline
# original is left in $TEST_ROOT/omp-inline.jsonl.
write_omp_with_references() {
  local s=$1 store=$2 scratch d
  scratch=$(mktemp -d "$TEST_ROOT/omp-writer.XXXXXX")
  write_omp_session "$scratch/inline.jsonl" "${3:-3}" > /dev/null
  cp "$scratch/inline.jsonl" "$TEST_ROOT/omp-inline.jsonl"
  mkdir -p "$(dirname "$s")" "$store" "$scratch/jp"
  (cd "$scratch" && "$JPBLOB_BIN" clean "$s" --store "$scratch/jp") < "$scratch/inline.jsonl" > "$s"
  for d in $(grep -o 'blob:sha256:[0-9a-f]\{64\}' "$s" | cut -c13- | sort -u); do
    gzip -dc "$scratch/jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" > "$store/$d"
  done
  rm -rf "$scratch"
}

omp_session=.jp/sessions/omp/2026-11-21T09-00-00_5c1e.jsonl
omp_references_commit() {
  new_installed_repo omprefs
  write_omp_with_references "$omp_session" "$HOME/.omp/agent/blobs"
  cp "$omp_session" "$TEST_ROOT/omp-written.jsonl"
  [ "$(grep -o 'blob:sha256:[0-9a-f]\{64\}' "$omp_session" | sort -u | wc -l)" -eq 4 ] ||
    fail "the session oh-my-pi wrote does not reference its four images"
  git add "$omp_session"
  # `git commit <paths>`: the hook's staging must reach both indexes
  # (session_real_client.sh commits the plain way).
  git commit -qm "a session oh-my-pi wrote with references" -- "$omp_session" 2> "$TEST_ROOT/omprefs.err" ||
    fail "the commit was refused: $(cat "$TEST_ROOT/omprefs.err")"
  [ ! -s "$TEST_ROOT/omprefs.err" ] || fail "the commit printed: $(cat "$TEST_ROOT/omprefs.err")"
  [ "$(git ls-files -s .jp/blobs | wc -l)" -eq 4 ] || fail "the index does not hold the four blobs"
  local d
  for d in $(refs_in "$omp_session"); do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "blob $d is not in the commit"
  done
  [ "$(git cat-file -p "HEAD:$omp_session" | cmp - "$TEST_ROOT/omp-written.jsonl" && echo same)" = same ] ||
    fail "the committed session is not the form oh-my-pi wrote"
  cmp -s "$omp_session" "$TEST_ROOT/omp-written.jsonl" || fail "the work tree file changed"
  git jpblob verify > /dev/null || fail "verify failed"
  assert_no_changes
}
case_ "a session oh-my-pi wrote with references commits with no extra command, its blobs from oh-my-pi's store" omp_references_commit

# The teammate: a clone on another HOME, whose oh-my-pi store is empty.
omp_references_teammate() {
  local home2=$TEST_ROOT/teammate-home
  mkdir -p "$home2"
  cp "$HOME/.gitconfig" "$home2/"
  HOME=$home2 git clone -q "$TEST_ROOT/omprefs" "$TEST_ROOT/omprefs-clone"
  cd "$TEST_ROOT/omprefs-clone"
  cmp "$omp_session" "$TEST_ROOT/omp-inline.jsonl" ||
    fail "the teammate's session does not hold every image inline, as oh-my-pi wrote them before storing them"
  [ ! -e "$home2/.omp" ] || fail "the checkout wrote into the teammate's oh-my-pi folder"
  HOME=$home2 git status --porcelain | grep . && fail "the teammate's clone shows changes"
  return 0
}
case_ "a teammate's clone holds the images inline, which oh-my-pi loads, and writes nothing into ~/.omp" omp_references_teammate

# The teammate's own oh-my-pi writes a session with references in that
# clone, the kind `git clone` makes after `git jpblob install` (lean, in
# the default mode): it commits from the teammate's store as it does in the
# adopting repository, and no blob file comes into the work tree.
omp_references_in_clone() {
  local home2=$TEST_ROOT/teammate-home s=.jp/sessions/omp/2026-11-22T08-00-00_77aa.jsonl
  cd "$TEST_ROOT/omprefs-clone"
  if lean_mode; then [ "$(git config --get core.sparseCheckout)" = true ] || fail "the clone is not lean"; fi
  HOME=$home2 write_omp_with_references "$s" "$home2/.omp/agent/blobs" 13
  HOME=$home2 git add "$s"
  HOME=$home2 git commit -qm "the teammate's session" 2> "$TEST_ROOT/clone-commit.err" ||
    fail "the commit was refused: $(cat "$TEST_ROOT/clone-commit.err")"
  local d
  for d in $(refs_in "$s"); do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "blob $d is not in the commit"
  done
  if lean_mode && [ -d .jp/blobs ]; then
    [ -z "$(find .jp/blobs -type f)" ] || fail "the lean clone got blob files: $(find .jp/blobs -type f | head -3)"
  fi
  HOME=$home2 git jpblob verify > /dev/null || fail "verify failed in the clone"
}
case_ "in a teammate's lean clone, a session their oh-my-pi wrote with references commits from their store" omp_references_in_clone

# $PI_CODING_AGENT_DIR moves oh-my-pi's store; a copy there that is not the
# blob its name says is passed over, and the refusal says where it looked.
omp_references_refused() {
  new_installed_repo ompbad
  rm -rf "$HOME/.omp"  # the earlier cases' store: every folder oh-my-pi may use is looked in
  export PI_CODING_AGENT_DIR=$TEST_ROOT/agent-dir
  write_omp_with_references "$omp_session" "$PI_CODING_AGENT_DIR/blobs"
  local blobs=("$PI_CODING_AGENT_DIR"/blobs/*) rc=0
  printf 'not the image' > "${blobs[0]}"
  rm "${blobs[1]}"
  git add "$omp_session"
  git commit -qm "broken" 2> "$TEST_ROOT/ompbad.err" || rc=$?
  unset PI_CODING_AGENT_DIR
  [ "$rc" -eq 1 ] || fail "the commit was not refused (exit $rc)"
  grep -q "not in oh-my-pi's blob store either: $TEST_ROOT/agent-dir/blobs" "$TEST_ROOT/ompbad.err" ||
    fail "the refusal does not say where it looked: $(cat "$TEST_ROOT/ompbad.err")"
  grep -q "does not hold the blob its name says" "$TEST_ROOT/ompbad.err" ||
    fail "the refusal does not name the copy that is not the blob: $(cat "$TEST_ROOT/ompbad.err")"
  [ "$(git rev-list --count HEAD)" -eq 1 ] || fail "a commit was made"
}
case_ "\$PI_CODING_AGENT_DIR/blobs is looked in; a wrong copy there is refused, a missing one named" omp_references_refused
# repair looks in oh-my-pi's store too: what verify names as missing before
# the commit is written from there, and the commit then needs it no more.
omp_references_repair() {
  new_installed_repo omprepair
  rm -rf "$HOME/.omp"
  write_omp_with_references "$omp_session" "$HOME/.omp/agent/blobs"
  git add "$omp_session"
  local rc=0
  git jpblob verify > "$TEST_ROOT/verify.out" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || fail "verify did not find the blobs missing (exit $rc): $(cat "$TEST_ROOT/verify.out")"
  git jpblob repair > "$TEST_ROOT/repair.out" 2>&1 || fail "repair failed: $(cat "$TEST_ROOT/repair.out")"
  git jpblob verify > /dev/null 2>&1 || fail "verify still fails after repair"
  mv "$HOME/.omp" "$TEST_ROOT/omp-moved"
  git commit -qm "repaired" 2> "$TEST_ROOT/repaired.err" || fail "the commit was refused: $(cat "$TEST_ROOT/repaired.err")"
  mv "$TEST_ROOT/omp-moved" "$HOME/.omp"
  if lean_mode && [ -d .jp/blobs ]; then
    [ -z "$(find .jp/blobs -type f)" ] || fail "a lean work tree kept blob files: $(find .jp/blobs -type f | head -3)"
  fi
}
case_ "repair writes the blobs verify names missing from oh-my-pi's store" omp_references_repair

# A session of many images, as oh-my-pi writes one with references: $1
# the session, $2 the agent's blob folder, $3 how many. The digests, in
# the session's order, are printed.
write_omp_many_references() {
  python3 - "$1" "$2" "$3" <<'PY'
import hashlib, json, os, random, sys
path, store, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(os.path.dirname(path), exist_ok=True)
os.makedirs(store, exist_ok=True)
rng = random.Random(n)
lines = [{"type": "session", "version": 3, "id": "9d1e", "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/u/proj"}]
for i in range(n):
    image = rng.randbytes(2000)
    digest = hashlib.sha256(image).hexdigest()
    with open(os.path.join(store, digest), "wb") as f:
        f.write(image)
    print(digest)
    lines.append({"type": "message", "id": f"m{i}", "parentId": f"m{i - 1}" if i else None, "message": {
        "role": "user", "content": [{"type": "image", "data": "blob:sha256:" + digest, "mimeType": "image/png"}]}})
with open(path, "w") as f:
    for line in lines:
        f.write(json.dumps(line, separators=(",", ":")) + "\n")
PY
}

# A session oh-my-pi wrote under a profile (`omp --profile work`) keeps its
# blobs in that profile's folder; the shell that commits need not name it.
# Of 300 images, the one whose copy there is wrong is the one refused,
# whichever of the many read together it is; mended, all 300 commit.
omp_references_profile() {
  new_installed_repo ompprofile
  rm -rf "$HOME/.omp"
  local store=$HOME/.omp/profiles/work/agent/blobs bad
  write_omp_many_references "$omp_session" "$store" 300 > "$TEST_ROOT/many-digests"
  bad=$(sed -n 137p "$TEST_ROOT/many-digests")
  mv "$store/$bad" "$TEST_ROOT/bad-image"
  echo "not the image" > "$store/$bad"
  git add "$omp_session"
  local rc=0
  env -u OMP_PROFILE -u PI_PROFILE git commit -qm "many" 2> "$TEST_ROOT/many.err" || rc=$?
  [ "$rc" -eq 1 ] || fail "a wrong copy was committed (exit $rc)"
  [ "$(grep -c 'referenced by' "$TEST_ROOT/many.err")" -eq 1 ] ||
    fail "not only the one wrong copy was refused: $(head -c 2000 "$TEST_ROOT/many.err")"
  grep -q "blob $bad referenced by .*does not hold the blob its name says" "$TEST_ROOT/many.err" ||
    fail "the refusal does not name the wrong copy: $(head -c 2000 "$TEST_ROOT/many.err")"
  mv "$TEST_ROOT/bad-image" "$store/$bad"
  env -u OMP_PROFILE -u PI_PROFILE git commit -qm "many" 2> "$TEST_ROOT/many.err" ||
    fail "the commit was refused: $(head -c 2000 "$TEST_ROOT/many.err")"
  [ "$(refs_in "$omp_session" | wc -l)" -eq 300 ] || fail "the session lost references"
  for d in $(refs_in "$omp_session"); do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" || fail "blob $d is not in the commit"
  done
  git jpblob verify > /dev/null || fail "verify finds problems after the commit"
  assert_no_changes
}
case_ "a session oh-my-pi wrote under a profile commits its 300 images; only a wrong copy among them is refused" omp_references_profile

# A conversation may name a blob only oh-my-pi's store holds: content
# addressed, it is the one right blob, and is taken. A reference whose
# size is not that copy's is refused, saying so rather than that the store
# has no copy.
omp_store_conversation() {
  new_installed_repo ompconv
  python3 - "$HOME/.omp/agent/blobs" <<'PY'
import hashlib, json, os, random, sys
store = sys.argv[1]
os.makedirs(store, exist_ok=True)
for name, seed, size in (("1-right", 5, 3000), ("2-wrong-size", 6, 2999)):
    data = random.Random(seed).randbytes(3000)
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(store, digest), "wb") as f:
        f.write(data)
    os.makedirs(f".jp/conversations/{name}", exist_ok=True)
    events = [{"timestamp": "2025-12-17 13:17:47.941846", "type": "chat_request", "content": "hi"},
              {"timestamp": "2025-12-17 13:17:48.941846", "type": "tool_call_response", "id": "t1",
               "content": {"$blob": digest, "size": size}}]
    with open(f".jp/conversations/{name}/events.json", "w") as f:
        json.dump(events, f, indent=2)
PY
  git add .jp
  local rc=0
  git commit -qm "conversations" 2> "$TEST_ROOT/ompconv.err" || rc=$?
  [ "$rc" -eq 1 ] || fail "a reference of the wrong size was committed (exit $rc)"
  grep -q "2-wrong-size.*holds 3000 bytes where the reference says 2999" "$TEST_ROOT/ompconv.err" ||
    fail "the refusal does not say the copy's size differs: $(cat "$TEST_ROOT/ompconv.err")"
  git rm -q --cached .jp/conversations/2-wrong-size/events.json
  git commit -qm "conversation" 2> "$TEST_ROOT/ompconv.err" || fail "refused: $(cat "$TEST_ROOT/ompconv.err")"
  [ "$(git ls-tree -r --name-only HEAD .jp/blobs | wc -l)" -eq 1 ] || fail "the blob was not committed"
}
case_ "a conversation's blob only oh-my-pi's store holds is taken; one of another size is refused, saying so" omp_store_conversation
pass
