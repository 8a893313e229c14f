# Shared set-up for the end-to-end tests: each test sources this, gets a
# fresh temporary HOME, and calls `pass` at the end.
#
# Named cases. A suite sets up what its cases share at top level, then runs
# each check as
#   case_ "what it shows" fn [args...]
# which calls the shell function fn in a subshell with set -e, and prints
#   ok - what it shows
# or
#   FAIL - what it shows: <why>
# where <why> is the message given to `fail`, or the command that failed
# unexpectedly. Either way the suite goes on to its next case: `fail`
# inside a case ends only that case (outside any case it ends the suite).
# Cases may share files on disk (a repository one case commits to and the
# next reads), but a variable or a `cd` set inside a case is gone when it
# ends: compute what several cases need at top level, before them. Steps
# that depend on each other belong in one case. `pass`, the last line of
# every suite, prints "N passed, M failed" and exits 1 when any case failed.
set -euo pipefail

: "${JPBLOB_BIN:?JPBLOB_BIN must name the git-jpblob binary}"
FIXTURES="${JPBLOB_FIXTURES:-}"

TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/jpblob-e2e-XXXXXX")
SUITE_DONE=0
on_exit() {
  [ "$1" -eq 0 ] || [ "$SUITE_DONE" -eq 1 ] || echo "FAIL: $(basename "$0") stopped outside any case (exit $1)" >&2
  chmod -R u+w "$TEST_ROOT" 2>/dev/null
  rm -rf "$TEST_ROOT"
}
trap 'on_exit $?' EXIT
CASES_PASSED=0
CASES_FAILED=0
CASE_NAME=""                       # set inside a case's subshell only
CASE_WHY="$TEST_ROOT/.case-why"    # the last command that failed in a case
CASE_FAIL="$TEST_ROOT/.case-fail"  # the message of `fail`, which wins

# The ERR trap of a case: the last unexpected failure is the one that
# ended it (an earlier one inside a test or a command substitution did not).
case_error() {
  printf 'command failed (exit %s, line %s): %s\n' "$1" "$2" "${BASH_COMMAND%%$'\n'*}" > "$CASE_WHY"
}

case_() {
  local name=$1 fn=$2 rc why started=$EPOCHREALTIME
  shift 2
  rm -f "$CASE_WHY" "$CASE_FAIL"
  # errexit is off around the subshell so that it can fail without ending
  # the suite, and on again inside it; -E hands the ERR trap to functions.
  set +e
  (
    set -eE
    CASE_NAME=$name
    trap 'case_error $? $LINENO' ERR
    "$fn" "$@"
  )
  rc=$?
  set -e
  # Each line ends with the case's seconds, so a slow case shows in the log.
  local took
  took=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" -eq 0 ]; then
    echo "ok - $name (${took}s)"
    CASES_PASSED=$((CASES_PASSED + 1))
  else
    why=$(cat "$CASE_FAIL" 2>/dev/null || cat "$CASE_WHY" 2>/dev/null || echo "exit $rc")
    echo "FAIL - $name (${took}s): $why"
    CASES_FAILED=$((CASES_FAILED + 1))
  fi
}

export HOME="$TEST_ROOT/home"
mkdir -p "$HOME"
# The manual pages this build made (build/man), never ones installed from
# another build; shown without a pager.
export MANPATH="${JPBLOB_MAN_DIR:-$TEST_ROOT/no-man}" MANPAGER=cat
# python3 itself, not a version manager's shim: pyenv's is a shell script
# that costs a few tenths of a second a call (over a second under load),
# and the suites call python3 hundreds of times.
if JPBLOB_PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) && [ -x "$JPBLOB_PYTHON" ]; then
  mkdir -p "$TEST_ROOT/bin"
  ln -s "$JPBLOB_PYTHON" "$TEST_ROOT/bin/python3"
  export PATH="$TEST_ROOT/bin:$PATH"
fi
# Start in the suite's own folder: ctest runs it from the build folder,
# which may sit inside this project's own git repository. E2E_DIR is this
# folder, for suites that read files beside them.
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$TEST_ROOT"
export GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE JPBLOB_SKIP_SMUDGE JPBLOB_SKIP_SMUDGE_ERRORS GIT_CONFIG_PARAMETERS
# oh-my-pi's blob store is then ~/.omp/agent/blobs, below this HOME.
unset PI_CODING_AGENT_DIR PI_CONFIG_DIR XDG_DATA_HOME
git config --global user.name "e2e"
git config --global user.email "e2e@example.com"
git config --global init.defaultBranch main
git config --global advice.detachedHead false
# A commit of many objects may start `git gc --auto`; detached, it can still
# be writing below .git while the suite removes its folder.
git config --global gc.autoDetach false

# The work-tree mode (tests/CMakeLists.txt): JPBLOB_TEST_LEAN=1, the
# default, is what `git jpblob install` gives every repository that holds
# conversations (lean); 0 checks the store out everywhere, as a user who
# set jpblob.lean=false has it.
JPBLOB_TEST_LEAN=${JPBLOB_TEST_LEAN:-1}
if [ "$JPBLOB_TEST_LEAN" = 0 ]; then
  git config --global jpblob.lean false
fi
lean_mode() { [ "$JPBLOB_TEST_LEAN" != 0 ]; }

# A case meaningful in one mode only: `case_in_mode lean|full "why not in
# the other" "what it shows" fn [args...]` runs it as case_ does in that
# mode, and in the other prints "skip - what it shows: why" and counts it
# as skipped.
CASES_SKIPPED=0
case_in_mode() {
  local want=$1 why=$2 have=full
  shift 2
  lean_mode && have=lean
  if [ "$want" = "$have" ]; then
    case_ "$@"
  else
    echo "skip - $1: $why (this run is $have mode)"
    CASES_SKIPPED=$((CASES_SKIPPED + 1))
  fi
}

# Bash completion through git's own completion script: the candidates for
# the last of the words given (the command line so far).
complete_words() {
  bash -c '
    . /usr/share/bash-completion/completions/git
    . "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    __git_func_wrap __git_main
    printf "%s\n" "${COMPREPLY[@]}"' _ "${JPBLOB_SOURCE_DIR:-$E2E_DIR/../..}/install/git-jpblob-completion.bash" "$@"
}

# Blobs held in the work tree's store or, for a lean tree's committed ones
# (skip-worktree, no file), by the index: what gc must keep in either mode.
# blob_held PATH: that blob file is there, or the index keeps it out of the
# work tree; held_blobs: how many blobs are held either way.
# A lean tree's blobs not committed yet are in the git folder (new_blob_file).
blob_held() {
  [ -f "$1" ] || new_blob_held "$(basename "$1" .blob.gz)" || git ls-files -t -- "$1" | grep -q '^S '
}
held_blobs() {
  {
    find .jp/blobs -name '*.blob.gz' 2> /dev/null | sed 's|^\./||'
    git ls-files -t .jp/blobs | sed -n 's/^S //p'
    if lean_mode; then
      {
        find "$(git rev-parse --git-common-dir)/jpblob/kept" -name '*.blob.gz' -printf '%f\n' 2> /dev/null
        pending_digests | sed 's/$/.blob.gz/'
      } | sed -E 's|^((..)(..).*)$|.jp/blobs/\2/\3/\1|'
    fi
  } | sort -u | wc -l
}

# New blobs a lean tree's clean wrote into git's objects (core/lean/pending_packs):
# the records' digests, and the object id of one.
pending_records() { cat "$(git rev-parse --git-common-dir)"/jpblob/pending/*.list 2> /dev/null; }
pending_digests() { pending_records | cut -d' ' -f1; }
pending_id() { pending_records | awk -v d="$1" '$1 == d { print $2; exit }'; }

# new_blob_file DIGEST: where a blob not committed yet lives: its store
# file or, in a lean tree (which never has a blob file, SPEC §2), its copy
# in the git folder, which the pre-commit hook stages from.
new_blob_file() {
  local file=".jp/blobs/${1:0:2}/${1:2:2}/$1.blob.gz" kept id
  kept="$(git rev-parse --git-common-dir)/jpblob/kept/$1.blob.gz"
  if [ -f "$file" ] || ! lean_mode; then echo "$file"; return; fi
  echo "$kept"
}
# new_blob_held DIGEST: a blob not committed yet is held: a file, or a
# pending pack's object.
new_blob_held() {
  [ -f "$(new_blob_file "$1")" ] && return 0
  local id record
  id=$(pending_id "$1")
  [ -n "$id" ] || return 1
  # Its pack in the git folder, or admitted into git's objects by a hook.
  record=$(grep -l "^$1 " "$(git rev-parse --git-common-dir)"/jpblob/pending/*.list | head -1)
  [ -f "${record%.list}.pack" ] || git cat-file -e "$id" 2> /dev/null
}
# age_all_blobs DATE: every blob file and kept copy, and every pending
# pack's record, made as old as DATE.
age_all_blobs() {
  local home homes=() common
  common=$(git rev-parse --git-common-dir)
  for home in .jp/blobs "$common/jpblob/kept" "$common/jpblob/pending"; do [ -d "$home" ] && homes+=("$home"); done
  [ ${#homes[@]} -eq 0 ] || find "${homes[@]}" -type f \( -name '*.blob.gz' -o -name '*.list' -o -name '*.used' \) \
    -exec touch -d "$1" {} +
}
# age_new_blob DIGEST DATE: makes a blob not committed yet as old as DATE
# (touch -d): its file, or the record of the pending pack holding it.
age_new_blob() {
  local file
  file=$(new_blob_file "$1")
  if [ -f "$file" ]; then touch -d "$2" "$file"; return; fi
  local record
  for record in $(grep -l "^$1 " "$(git rev-parse --git-common-dir)"/jpblob/pending/*.list 2> /dev/null); do
    touch -d "$2" "$record"
    [ ! -e "${record%.list}.used" ] || touch -d "$2" "${record%.list}.used"
  done
}

# New blobs stay files (kept copies) in a lean tree where git-jpblob does
# not write packs itself: a repository shared by a group (core.sharedRepository),
# whose files git's own index-pack gives the group's permissions. For the
# cases that change or age a new blob's file.
keep_new_blobs_as_files() { git config core.sharedRepository group; }

# The gzip bytes of every blob held: store files, and the index's
# skip-worktree blobs (a lean tree's committed ones) as git holds them.
held_blob_bytes() {
  {
    find .jp/blobs -name '*.blob.gz' -printf '%s\n' 2> /dev/null
    git ls-files -s -t .jp/blobs | awk '$1 == "S" { print $3 }' | git cat-file --batch-check='%(objectsize)'
  } | awk '{ s += $1 } END { print s + 0 }'
}

# A suite meaningless in one mode calls this first: `only_in_mode lean
# "why"` or `only_in_mode full "why"`. In the other mode it prints the
# reason and exits 77, which ctest reports as skipped.
only_in_mode() {
  local want=$1 why=$2 have=full
  lean_mode && have=lean
  [ "$want" = "$have" ] && return 0
  echo "SKIP: $(basename "$0") in $have mode: $why"
  SUITE_DONE=1
  exit 77
}

fail() {
  if [ -n "$CASE_NAME" ]; then
    printf '%s\n' "$*" > "$CASE_FAIL"
  else
    echo "FAIL: $*" >&2
  fi
  exit 1
}

# Configures the one-shot filter in the current repository, with the
# absolute, quoted program path (install names git-jpblob on PATH instead;
# tests/e2e/found_on_path.sh).
use_oneshot_filter() {
  local bin
  bin=$(printf '%q' "$JPBLOB_BIN")
  git config filter.jpblob.clean "$bin clean %f"
  git config filter.jpblob.smudge "$bin smudge %f"
  git config filter.jpblob.required true
  cat >> .gitattributes <<'ATTR'
.jp/conversations/**/events.json filter=jpblob -text
.jp/blobs/** -text -diff
ATTR
}

new_repo() {
  local dir="$TEST_ROOT/${1:-repo}"
  git init -q "$dir"
  cd "$dir"
  use_oneshot_filter
}

# The tool call's argument in write_conversation: long enough for its
# reference to pay (docs/FORMAT.md, "Payload positions"), so each such
# conversation stores two blobs, its output and this.
CONVERSATION_ARGUMENT="jp_cli --all-features --manifest-path crates/jp_cli/Cargo.toml --message-format json"

# A conversation with tool output in today's JP format.
write_conversation() {
  local dir=".jp/conversations/${1:-17758406187-demo}"
  local text="${2:-cargo check finished without errors}"
  mkdir -p "$dir"
  local b64
  b64=$(printf '%s' "$text" | base64 -w0)
  cat > "$dir/events.json" <<JSON
[
  {
    "timestamp": "2026-04-10 17:04:20.531236",
    "type": "chat_request",
    "content": "Does it build?"
  },
  {
    "timestamp": "2026-04-10 17:04:24.859153",
    "type": "tool_call_request",
    "id": "toolu_1",
    "name": "cargo_check",
    "arguments": {
      "package": "$(printf '%s' "$CONVERSATION_ARGUMENT" | base64 -w0)"
    }
  },
  {
    "timestamp": "2026-04-10 17:04:24.923537",
    "type": "tool_call_response",
    "id": "toolu_1",
    "content": "$b64",
    "is_error": false
  }
]
JSON
  echo '{"title":"demo"}' > "$dir/metadata.json"
}

# Every blob file's content must match its name.
verify_blobs() {
  local root="${1:-.jp/blobs}" bad
  [ -d "$root" ] || return 0
  # One process for them all (four a blob cost the fixture suites a minute).
  bad=$(python3 - "$root" <<'PY'
import gzip, hashlib, os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".blob.gz"):
            path = os.path.join(folder, name)
            with gzip.open(path) as f:
                if hashlib.sha256(f.read()).hexdigest() != name[: -len(".blob.gz")]:
                    print(path)
PY
) || fail "cannot read the blobs under $root"
  [ -z "$bad" ] || fail "blob $(echo "$bad" | head -1) does not match its name"
}

assert_clean_status() {
  local s
  s=$(git status --porcelain)
  [ -z "$s" ] || fail "git status is not clean: $s"
}

pass() {
  SUITE_DONE=1
  if [ "$CASES_SKIPPED" -gt 0 ]; then
    echo "$CASES_PASSED passed, $CASES_FAILED failed, $CASES_SKIPPED skipped"
  else
    echo "$CASES_PASSED passed, $CASES_FAILED failed"
  fi
  [ "$CASES_FAILED" -eq 0 ] || exit 1
}

# Puts git-jpblob on PATH and installs it (global config, and the
# repository's attributes and hook when run inside one).
export PATH="$(dirname "$JPBLOB_BIN"):$PATH"
install_jpblob() {
  git jpblob install "$@" > /dev/null
}

# A repository with git-jpblob installed, as a team member would have it.
new_installed_repo() {
  local dir="$TEST_ROOT/${1:-repo}"
  git init -q "$dir"
  cd "$dir"
  install_jpblob
  git add .gitattributes
  git commit -qm "git-jpblob attributes"
}

# The same, made lean before it holds any conversation (`install --lean`),
# in either mode.
new_lean_repo() {
  new_installed_repo "$@"
  git jpblob install --lean > /dev/null
}

# No tracked file differs from the index, nor the index from HEAD.
assert_no_changes() {
  local s
  s=$(git status --porcelain --untracked-files=no)
  [ -z "$s" ] || fail "git status shows changes: $s"
}

# Appends an event to a conversation, keeping JP's formatting.
grow_conversation() {
  local file="$1" text="$2"
  python3 - "$file" "$text" <<'PY'
import base64, json, sys
path, text = sys.argv[1], sys.argv[2]
events = json.load(open(path))
events.append({"timestamp": "2026-05-01 10:00:00.000000", "type": "tool_call_response",
               "id": "toolu_" + str(len(events)), "content": base64.b64encode(text.encode()).decode(),
               "is_error": False})
with open(path, "w") as f:
    json.dump(events, f, indent=2)
    f.write("\n")
PY
}

# Appends one tool turn to a conversation the way JP does: the file's
# bytes stay as they are and the event goes before the closing bracket.
# append_turn FILE TIMESTAMP TEXT (the tool output, stored base64).
append_turn() {
  python3 - "$1" "$2" "$3" <<'PY'
import base64, json, sys
path, stamp, text = sys.argv[1:4]
data = open(path, "rb").read()
end = data.rstrip().rfind(b"]")
body = data[:end].rstrip()
event = {"type": "tool_call_response", "timestamp": stamp, "id": "toolu_" + stamp[-6:],
         "content": base64.b64encode(text.encode()).decode(), "is_error": False}
lines = json.dumps(event, indent=2).splitlines()
block = "\n".join("  " + l for l in lines).encode()
open(path, "wb").write(body + b",\n" + block + b"\n" + data[end:])
PY
}

# Fails when any blob the conversations in HEAD reference is not in HEAD.
assert_blobs_committed() {
  local missing
  # One ls-tree for them all (a cat-file a blob cost the fixture suites a minute).
  missing=$(comm -23 \
    <(git ls-tree -r -z --name-only HEAD -- .jp/conversations | grep -z '/events.json$' |
      xargs -0 -I{} git cat-file -p "HEAD:{}" |
      python3 -c '
import re, sys
print("\n".join(sorted(set(re.findall(r"\"\$blob\"\s*:\s*\"([0-9a-f]{64})\"", sys.stdin.read())))))') \
    <(git ls-tree -r --name-only HEAD -- .jp/blobs | sed -n 's|.*/\([0-9a-f]\{64\}\)\.blob\.gz$|\1|p' | sort))
  [ -z "$missing" ] || fail "referenced blobs are missing from HEAD: $(echo $missing | head -c 300)"
}

# The store path of the blob holding exactly the text $1.
# Makes blobs nowhere but in git: their work-tree files and the copies
# kept in the git folder (core/lean/kept_copies). Arguments: digests.
remove_blob_files() {
  local d kept pending
  kept="$(git rev-parse --git-common-dir)/jpblob/kept"
  pending="$(git rev-parse --git-common-dir)/jpblob/pending"
  for d in "$@"; do
    rm -f ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" "$kept/$d.blob.gz"
    # A pending pack's blob: its record forgets it (the object stays, unreachable).
    [ -d "$pending" ] && find "$pending" -name '*.list' -exec sed -i "/^$d /d" {} +
  done
  return 0
}
# The same for the whole work-tree store.
remove_store() {
  rm -rf .jp/blobs "$(git rev-parse --git-common-dir)/jpblob/kept" "$(git rev-parse --git-common-dir)/jpblob/pending"
}
blob_of() {
  local h
  h=$(printf '%s' "$1" | sha256sum | cut -c1-64)
  echo ".jp/blobs/${h:0:2}/${h:2:2}/$h.blob.gz"
}
# The same for a blob not committed yet: where it lives (new_blob_file).
new_blob_of() { new_blob_file "$(printf '%s' "$1" | sha256sum | cut -c1-64)"; }

# Writes conversation $1 holding tool output $2, adds and commits it.
commit_conversation() {
  write_conversation "$1" "$2"
  git add ".jp/conversations/$1"
  git commit -qm "$1"
}

# An oh-my-pi session in its current format (title slot, version 3 header,
# id/parentId): an image block, `images`, an OpenAI image_generation_call
# and an image_url data URL. Prints the digests oh-my-pi would name, one a
# line: of decoded base64, and of the data URL's text. $2: the seed of the
# images' bytes (3 unless given).
write_omp_session() {
  python3 - "$1" "${2:-3}" <<'PY'
import base64, hashlib, json, os, random, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
rng = random.Random(int(sys.argv[2]))
raw = lambda n: bytes(rng.getrandbits(8) for _ in range(n))
block, attached, generated = raw(9000), raw(4000), raw(12000)
url = "data:image/png;base64," + base64.b64encode(raw(40)).decode()
b64 = lambda b: base64.b64encode(b).decode()
title = '{"type":"title","v":1,"title":"","updatedAt":"2026-11-20T10:00:00.000Z","pad":"'
title += " " * (255 - len(title) - 2) + '"}'
lines = [
    {"type": "session", "version": 3, "id": "0b7a", "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/u/proj"},
    {"type": "message", "id": "e1", "parentId": None, "message": {"role": "user", "content": [
        {"type": "text", "text": "look"}, {"type": "image", "data": b64(block), "mimeType": "image/png"}],
        "images": [{"data": b64(attached), "mimeType": "image/webp"}]}},
    {"type": "message", "id": "e2", "parentId": "e1", "message": {"role": "assistant", "content": [{"type": "text", "text": "drawn"}],
        "providerPayload": {"type": "openaiResponsesHistory", "items": [
            {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": b64(generated)},
            {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": url, "detail": "auto"}]}]}}},
]
with open(path, "w") as f:
    f.write(title + "\n")
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
for b in (block, attached, generated, url.encode()):
    print(hashlib.sha256(b).hexdigest())
PY
}

# PATH as a teammate without git-jpblob has it: this build's folder left
# out, and any other folder that holds a git-jpblob (one installed by
# install/setup.sh, the README's first command, in /usr/local/bin) stood in
# for by a folder of links to everything else in it.
path_without_jpblob() {
  local dir f out="" n=0 shadow IFS=:
  for dir in $PATH; do
    [ -n "$dir" ] && [ "$dir" != "$(dirname "$JPBLOB_BIN")" ] || continue
    if [ -e "$dir/git-jpblob" ]; then
      n=$((n + 1))
      shadow="$TEST_ROOT/path-without-jpblob.$n"
      mkdir -p "$shadow"
      for f in "$dir"/*; do
        case ${f##*/} in git-jpblob*) ;; *) ln -sf "$f" "$shadow/" ;; esac
      done
      dir=$shadow
    fi
    out=${out:+$out:}$dir
  done
  printf '%s' "$out"
}

# For suites that start servers on 127.0.0.1 (git daemon, http-backend):
# `use_servers` makes each pid added to SERVER_PIDS stopped when the suite
# ends, and free_port names a port nothing listens on.
use_servers() {
  SERVER_PIDS=()
  trap 'rc=$?; stop_servers; on_exit $rc' EXIT
}
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
