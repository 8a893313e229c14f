# Shared set-up for the end-to-end tests: each test sources this, gets a
# fresh temporary HOME and repository, and calls `pass` at the end.
#
# Sub-cases. A suite is a sequence of named cases, each begun by
#   subcase "what it shows"
# An assertion that does not hold calls `fail "why"`: that records the
# failure against the current case and the suite goes on, so one failure
# does not hide the checks after it. A command that fails unexpectedly
# still stops the suite (set -e), and the case it stopped in is named.
# `pass` ends every suite with the line "N passed, M failed" and exits 1
# when any case failed. Failures are kept in a file, so `fail` counts from
# inside a subshell or a pipeline too.
set -euo pipefail

: "${JPBLOB_BIN:?JPBLOB_BIN must name the git-jpblob binary}"
FIXTURES="${JPBLOB_FIXTURES:-}"

TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/jpblob-e2e-XXXXXX")
CASES="$TEST_ROOT/.cases"  # "case <name>" and "fail <name>" lines
: > "$CASES"
CURRENT_CASE="set-up"
SUMMARY_DONE=0

summary() {
  local total failed
  total=$(grep -c '^case ' "$CASES" || true)
  failed=$(grep '^fail ' "$CASES" | sort -u | wc -l)
  [ "$total" -ge "$failed" ] || total=$failed
  echo "$((total - failed)) passed, $failed failed"
  SUMMARY_DONE=1
  [ "$failed" -eq 0 ]
}

on_exit() {
  local rc=$1
  if [ "$rc" -ne 0 ] && [ "$SUMMARY_DONE" -eq 0 ]; then
    echo "FAIL - $CURRENT_CASE: stopped by a command that failed (exit $rc)" >&2
    echo "fail $CURRENT_CASE" >> "$CASES"
    summary || true
  fi
  chmod -R u+w "$TEST_ROOT" 2>/dev/null
  rm -rf "$TEST_ROOT"
}
trap 'on_exit $?' EXIT

subcase() {
  CURRENT_CASE="$*"
  echo "case $CURRENT_CASE" >> "$CASES"
}
export HOME="$TEST_ROOT/home"
mkdir -p "$HOME"
export GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE JPBLOB_SKIP_SMUDGE GIT_CONFIG_PARAMETERS
git config --global user.name "e2e"
git config --global user.email "e2e@example.com"
git config --global init.defaultBranch main
git config --global advice.detachedHead false

fail() {
  echo "FAIL - $CURRENT_CASE: $*" >&2
  echo "fail $CURRENT_CASE" >> "$CASES"
  return 0
}

# Configures the one-shot filter in the current repository, as `install`
# will, with an absolute, quoted program path.
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
      "package": "$(printf 'jp_cli' | base64 -w0)"
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
  local root="${1:-.jp/blobs}" f name
  [ -d "$root" ] || return 0
  while IFS= read -r -d '' f; do
    name=$(basename "$f" .blob.gz)
    [ "$(gzip -dc < "$f" | sha256sum | cut -c1-64)" = "$name" ] || fail "blob $f does not match its name"
  done < <(find "$root" -name '*.blob.gz' -print0)
}

assert_clean_status() {
  local s
  s=$(git status --porcelain)
  [ -z "$s" ] || fail "git status is not clean: $s"
}

pass() {
  if summary; then
    echo "PASS: $(basename "$0")"
  else
    echo "FAIL: $(basename "$0")" >&2
    exit 1
  fi
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

# Fails when any blob the conversations in HEAD reference is not in HEAD.
assert_blobs_committed() {
  local refs missing=0 d
  refs=$(git ls-tree -r -z --name-only HEAD -- .jp/conversations | grep -z '/events.json$' |
    xargs -0 -I{} git cat-file -p "HEAD:{}" |
    python3 -c '
import re, sys
print("\n".join(sorted(set(re.findall(r"\"\$blob\"\s*:\s*\"([0-9a-f]{64})\"", sys.stdin.read())))))')
  for d in $refs; do
    git cat-file -e "HEAD:.jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz" 2>/dev/null || { echo "not committed: $d" >&2; missing=1; }
  done
  [ "$missing" -eq 0 ] || fail "referenced blobs are missing from HEAD"
}
