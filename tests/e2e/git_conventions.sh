#!/usr/bin/env bash
# git's conventions: the manual page behind --help and `git help`, bash
# completion, "did you mean" for a mistyped command, and a closed pipe that
# ends a command quietly (except the filters, where it means git died).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$E2E_DIR/../.." && pwd)

# A manual folder holding only our page, as `cmake --install` lays it out.
MANDIR="$TEST_ROOT/man"
mkdir -p "$MANDIR/man1" "$TEST_ROOT/noman"
cp "$SRC/docs/git-jpblob.1" "$MANDIR/man1/"
export MANPAGER=cat PAGER=cat MANWIDTH=80

git_help_shows_the_page() {
  command -v man > /dev/null || fail "man is not installed (install/deps.sh installs man-db)"
  local out
  out=$(MANPATH="$MANDIR" git help jpblob 2>&1) || fail "git help jpblob failed: $out"
  grep -q "git-jpblob - keep JP conversations small" <<<"$out" || fail "no NAME line: $out"
  grep -q "^COMMANDS" <<<"$out" || fail "no COMMANDS section"
  out=$(MANPATH="$MANDIR" git jpblob --help 2>&1) || fail "git jpblob --help failed: $out"
  grep -q "^EXIT STATUS" <<<"$out" || fail "git jpblob --help shows no page: $out"
}
case_ "git help jpblob and git jpblob --help show the manual page" git_help_shows_the_page

direct_help() {
  local out
  out=$(MANPATH="$MANDIR" git-jpblob --help 2>&1) || fail "git-jpblob --help failed"
  grep -q "^SYNOPSIS" <<<"$out" || fail "git-jpblob --help does not show the page: $out"
  out=$(MANPATH="$TEST_ROOT/noman" git-jpblob --help 2>&1) || fail "--help without a page failed"
  grep -q "^Usage: git-jpblob" <<<"$out" || fail "no built-in help without a page: $out"
  out=$(PATH="$(dirname "$JPBLOB_BIN")" "$JPBLOB_BIN" --help 2>&1) || fail "--help without man failed"
  grep -q "^Usage: git-jpblob" <<<"$out" || fail "no built-in help without man: $out"
  out=$(MANPATH="$MANDIR" git-jpblob -h 2>&1) || fail "-h failed"
  grep -q "^Usage: git-jpblob" <<<"$out" || fail "-h is not the short help: $out"
}
case_ "git-jpblob --help shows the page when man finds it, its own help otherwise; -h stays short" direct_help

every_command_in_the_page() {
  local cmd missing=""
  for cmd in $("$JPBLOB_BIN" -h | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }'); do
    # A line of the page starting "\fB<cmd>\fR", roff spelling a hyphen "\-".
    PAT="\\fB${cmd//-/\\-}\\fR" awk 'index($0, ENVIRON["PAT"]) == 1 { found = 1 } END { exit !found }' \
      "$SRC/docs/git-jpblob.1" || missing+=" $cmd"
  done
  [ -z "$missing" ] || fail "commands missing from COMMANDS in docs/git-jpblob.1:$missing"
}
case_ "the page's COMMANDS covers every command" every_command_in_the_page

did_you_mean() {
  local out rc
  set +e; out=$(git jpblob verfy 2>&1); rc=$?; set -e
  [ "$rc" -eq 1 ] || fail "exit $rc, not 1"
  [ "$out" = "git-jpblob: 'verfy' is not a git-jpblob command. See 'git jpblob --help'.

The most similar command is
	verify" ] || fail "unexpected: $out"
  set +e; out=$(git jpblob zzzzzz 2>&1); rc=$?; set -e
  [ "$rc" -eq 1 ] && [ "$out" = "git-jpblob: 'zzzzzz' is not a git-jpblob command. See 'git jpblob --help'." ] ||
    fail "far from every command: exit $rc: $out"
}
case_ "a mistyped command names the one meant, exit 1" did_you_mean

# Bash completion, through git's own completion script.
completion() {
  [ -f /usr/share/bash-completion/completions/git ] || fail "git's bash completion is not installed"
  local out
  out=$(complete_words git jpblob ver)
  grep -qx "verify " <<<"$out" || fail "git jpblob ver<TAB>: $out"
  out=$(complete_words git jpblob "")
  for c in install gc stats print filter-process; do grep -qx "$c " <<<"$out" || fail "no $c in: $out"; done
  out=$(complete_words git jpblob gc --d)
  grep -qx -- "--dry-run " <<<"$out" || fail "git jpblob gc --d<TAB>: $out"
  out=$(complete_words git jpblob install --)
  grep -qx -- "--force " <<<"$out" || fail "git jpblob install --<TAB>: $out"
  ! grep -qx -- "--json " <<<"$out" || fail "install offers gc's flags: $out"
  out=$(complete_words git jpblob "")
  for c in env version ls-files help; do grep -qx "$c " <<<"$out" || fail "no $c in: $out"; done
  out=$(complete_words git jpblob env --)
  grep -qx -- "--json " <<<"$out" || fail "git jpblob env --<TAB>: $out"
  out=$(complete_words git jpblob help ver)
  grep -qx "verify " <<<"$out" || fail "git jpblob help ver<TAB>: $out"
  out=$(complete_words git jpblob purge)
  grep -qx "purge-list " <<<"$out" || fail "git jpblob purge<TAB>: $out"
  out=$(complete_words git jpblob purge-list --)
  grep -qx -- "--json " <<<"$out" || fail "git jpblob purge-list --<TAB>: $out"
}
case_ "bash completion: commands and each command's flags" completion

# A closed pipe: a conversation whose print is far larger than a pipe's
# buffer, so the writer meets the closed pipe whatever head does.
new_installed_repo
big=$(head -c 600000 /dev/zero | tr '\0' 'x')
write_conversation 17758406187-big "$big"
git add .jp/conversations && git commit -qm big

# Runs a command with standard output a pipe whose reader has gone; prints
# "<status> <stderr>" (status 141 for death by SIGPIPE, as a shell says).
with_closed_stdout() {
  python3 - "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
status = 128 - p.returncode if p.returncode < 0 else p.returncode
print(status, p.stderr.decode().strip())
PY
}

closed_pipe_quiet() {
  local out status
  out=$(git jpblob print 17758406187 2>"$TEST_ROOT/print.err" | head -1; echo "${PIPESTATUS[0]}")
  status=${out##*$'\n'}
  [ "$status" -eq 141 ] || fail "print | head -1: exit $status"
  [ ! -s "$TEST_ROOT/print.err" ] || fail "print | head -1 said: $(cat "$TEST_ROOT/print.err")"
  local d
  d=$(printf '%s' "$big" | sha256sum | cut -c1-64)
  for args in "print 17758406187" "cat $d" "files 17758406187" "stats" "verify --json" "stats --json"; do
    # shellcheck disable=SC2086
    out=$(with_closed_stdout "$JPBLOB_BIN" $args)
    [ "$out" = "141 " ] || fail "$args with a closed pipe: $out"
  done
}
case_ "a closed pipe ends print, cat, files, stats and verify quietly, as git (status 141)" closed_pipe_quiet

closed_pipe_filters_report() {
  local out
  out=$(with_closed_stdout sh -c "exec '$JPBLOB_BIN' clean .jp/conversations/17758406187-big/events.json < .jp/conversations/17758406187-big/events.json")
  [[ "$out" == "1 git-jpblob: "*"Broken pipe"* ]] || fail "clean with a closed pipe: $out"
  out=$(with_closed_stdout sh -c "git cat-file blob HEAD:.jp/conversations/17758406187-big/events.json | '$JPBLOB_BIN' smudge x")
  [[ "$out" == "1 git-jpblob: "*"Broken pipe"* ]] || fail "smudge with a closed pipe: $out"
}
case_ "clean and smudge still report a closed pipe: it means git died" closed_pipe_filters_report
pass
