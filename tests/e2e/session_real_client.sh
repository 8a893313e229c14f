#!/usr/bin/env bash
# The real client: oh-my-pi (npm: @oh-my-pi/pi-coding-agent, run by bun,
# both installed by install/agent-clients.sh) loads, offline, a session
# whose images git-jpblob externalized, once `git jpblob cat` has put the
# blobs in oh-my-pi's own blob folder; every image resolves byte for byte,
# and oh-my-pi's own writer names and fills the same blobs. Skipped when the
# package is not installed.
. "$(dirname "$0")/lib.sh"
# What the client reads is the committed session and the blob bytes, the
# same in either work-tree mode: run once.
only_in_mode lean "the client reads the committed session and blob bytes, which do not depend on the work-tree mode"

clients=${JPBLOB_AGENT_CLIENTS:-${JPBLOB_SOURCE_DIR:-$E2E_DIR/../..}/build/agent-clients}
bun=
for candidate in "$clients"/node_modules/@oven/bun-linux-*/bin/bun; do
  [ -x "$candidate" ] && "$candidate" --version > /dev/null 2>&1 && { bun=$candidate; break; }
done
if [ -z "$bun" ] || [ ! -d "$clients/node_modules/@oh-my-pi/pi-coding-agent/src/session" ]; then
  echo "SKIP: $(basename "$0"): oh-my-pi and bun are not installed in $clients (install/agent-clients.sh)"
  SUITE_DONE=1
  exit 77
fi
# Offline: no network namespace where one can be made (root, or user
# namespaces), so nothing the loader does can reach a model or a registry.
offline=()
unshare -n true 2> /dev/null && offline=(unshare -n)

# oh-my-pi resolves its packages from the script's folder upwards.
mkdir -p "$TEST_ROOT/client"
ln -s "$clients/node_modules" "$TEST_ROOT/client/node_modules"
cp "$E2E_DIR/omp_load_check.ts" "$E2E_DIR/omp_session.ts" "$TEST_ROOT/client/"
export PI_CODING_AGENT_DIR="$TEST_ROOT/omp-agent"
omp_blobs=$(cd "$TEST_ROOT/client" &&
  "${offline[@]}" "$bun" -e 'import { getBlobsDir } from "@oh-my-pi/pi-utils"; console.log(getBlobsDir())')

new_installed_repo origin
session=.jp/sessions/omp/2026-11-20T10-00-00_0b7a.jsonl
write_omp_session "$session" > /dev/null

# The blobs a committed session references, into oh-my-pi's blob folder,
# each by `git jpblob cat`.
export_blobs() {
  local d
  mkdir -p "$omp_blobs"
  for d in $(grep -o 'blob:sha256:[0-9a-f]\{64\}' "$1" | cut -c13- | sort -u); do
    git jpblob cat "blob:sha256:$d" > "$omp_blobs/$d"
  done
}

# Commits session $1 and has oh-my-pi load its committed form.
load_committed() {
  local s=$1 name
  name=$(basename "$s" .jsonl)
  git add "$s"
  git commit -qm "session $name"
  cp "$s" "$TEST_ROOT/$name.original.jsonl"
  git cat-file -p "HEAD:$s" > "$TEST_ROOT/$name.cleaned.jsonl"
  grep -q 'blob:sha256:' "$TEST_ROOT/$name.cleaned.jsonl" || fail "nothing was externalized"
  export_blobs "$TEST_ROOT/$name.cleaned.jsonl"
  mkdir "$TEST_ROOT/$name.writer"
  (cd "$TEST_ROOT/client" && "${offline[@]}" "$bun" omp_load_check.ts "$TEST_ROOT/$name.original.jsonl" \
    "$TEST_ROOT/$name.cleaned.jsonl" "$TEST_ROOT/$name.writer") > "$TEST_ROOT/$name.check" 2>&1 ||
    fail "oh-my-pi's check failed: $(grep -v '^ok' "$TEST_ROOT/$name.check" | head -5)"
}

omp_loads_generated() {
  load_committed "$session"
  grep -q '^ok every entry equals the original' "$TEST_ROOT/2026-11-20T10-00-00_0b7a.check" || fail "no entry check"
}
case_ "oh-my-pi loads, offline, a session git-jpblob cleaned: its four images resolve byte for byte" omp_loads_generated

# A real oh-my-pi session in its current format (title slot, version 3),
# with the image entries appended. Needs ../shared/realdata.
real=${JPBLOB_SOURCE_DIR:-$E2E_DIR/../..}/../shared/realdata/turn3/sessions/oh-my-pi_28997c0d467c_large-session.jsonl
omp_loads_real() {
  local s=.jp/sessions/omp/2026-08-13_real.jsonl
  cp "$real" "$s"
  chmod u+w "$s"
  tail -n 2 "$session" >> "$s"
  load_committed "$s"
}
if [ -f "$real" ]; then
  case_ "oh-my-pi loads a real session of its current format with images git-jpblob externalized" omp_loads_real
else
  echo "skip - a real oh-my-pi session: ../shared/realdata is absent"
fi
# A session oh-my-pi wrote with references itself: its own writer stores
# every image in its store (the author's, $PI_CODING_AGENT_DIR) and writes
# blob:sha256: in the session. It commits with no extra command, and a
# teammate (another HOME, an oh-my-pi store that is empty) loads every
# image of the clone through oh-my-pi's own loader: the checkout holds the
# images inline.
omp_wrote_references() {
  local s=.jp/sessions/omp/2026-11-21T09-00-00_5c1e.jsonl inline=$TEST_ROOT/inline-original.jsonl
  local author=$TEST_ROOT/author-agent teammate=$TEST_ROOT/teammate-home
  cd "$TEST_ROOT/origin"
  write_omp_session "$inline" 11 > /dev/null  # images no earlier case committed
  (cd "$TEST_ROOT/client" && PI_CODING_AGENT_DIR=$author "${offline[@]}" "$bun" omp_session.ts write "$inline" \
    "$TEST_ROOT/origin/$s") > "$TEST_ROOT/write.check" 2>&1 ||
    fail "oh-my-pi's writer failed: $(grep -v '^ok' "$TEST_ROOT/write.check" | head -5)"
  [ "$(ls "$author/blobs" | wc -l)" -ge 4 ] || fail "oh-my-pi's writer stored $(ls "$author/blobs" | wc -l) blobs"
  git add "$s"
  PI_CODING_AGENT_DIR=$author git commit -qm "a session oh-my-pi wrote with references" 2> "$TEST_ROOT/commit.err" ||
    fail "the commit was refused: $(cat "$TEST_ROOT/commit.err")"
  mkdir -p "$teammate"
  cp "$HOME/.gitconfig" "$teammate/"
  HOME=$teammate git clone -q "$TEST_ROOT/origin" "$TEST_ROOT/teammate-clone"
  (cd "$TEST_ROOT/client" && HOME=$teammate PI_CODING_AGENT_DIR=$teammate/.omp/agent "${offline[@]}" "$bun" \
    omp_session.ts read "$inline" "$TEST_ROOT/teammate-clone/$s") > "$TEST_ROOT/read.check" 2>&1 ||
    fail "oh-my-pi could not load the teammate's session: $(grep -v '^ok' "$TEST_ROOT/read.check" | head -5)"
}
case_ "oh-my-pi writes a session with references; it commits as it is, and loads whole in a teammate's clone" omp_wrote_references
pass
