#!/usr/bin/env bash
# git's conventions: the command line's one definition (cli/commands.json)
# behind every copy of it (help, -h, the manual pages, completion), git's
# exit statuses (1 a problem, 128 fatal, 129 usage and -h), -q, "did you
# mean" and git-lfs's names, and a closed pipe that ends a command quietly
# (except the filters, where it means git died).
. "$(dirname "$0")/lib.sh"

# The pages the build made (build/man), as `cmake --install` lays them out.
MANDIR=${JPBLOB_MAN_DIR:?the e2e tests need JPBLOB_MAN_DIR, the man folder of the build}
mkdir -p "$TEST_ROOT/noman"
export MANPAGER=cat PAGER=cat MANWIDTH=100

git_help_shows_the_page() {
  command -v man > /dev/null || fail "man is not installed (install/deps.sh installs man-db)"
  local out
  out=$(MANPATH="$MANDIR" git help jpblob 2>&1) || fail "git help jpblob failed: $out"
  grep -q "git-jpblob - keep JP conversations small" <<<"$out" || fail "no NAME line: $out"
  grep -q "^COMMANDS" <<<"$out" || fail "no COMMANDS section"
  grep -q "git-jpblob-gc(1)" <<<"$out" || fail "the overview does not point to git-jpblob-gc(1)"
  out=$(MANPATH="$MANDIR" git jpblob --help 2>&1) || fail "git jpblob --help failed: $out"
  grep -q "^EXIT STATUS" <<<"$out" || fail "git jpblob --help shows no page: $out"
}
case_ "git help jpblob and git jpblob --help show the overview page" git_help_shows_the_page

direct_help() {
  local out rc
  out=$(MANPATH="$MANDIR" git-jpblob --help 2>&1) || fail "git-jpblob --help failed"
  grep -q "^SYNOPSIS" <<<"$out" || fail "git-jpblob --help does not show the page: $out"
  out=$(MANPATH="$TEST_ROOT/noman" git-jpblob --help 2>&1) || fail "--help without a page failed"
  grep -q "^usage: git jpblob <command>" <<<"$out" || fail "no built-in help without a page: $out"
  out=$(PATH="$(dirname "$JPBLOB_BIN")" "$JPBLOB_BIN" --help 2>&1) || fail "--help without man failed"
  grep -q "^usage: git jpblob <command>" <<<"$out" || fail "no built-in help without man: $out"
  set +e; out=$(git-jpblob -h 2>&1); rc=$?; set -e
  [ "$rc" -eq 129 ] && grep -q "^usage: git jpblob <command>" <<<"$out" || fail "-h: exit $rc: $out"
}
case_ "git-jpblob --help shows the page when man finds it, the command list otherwise; -h exits 129" direct_help

# Every command, the ones git runs included, from the program's own list.
all_commands() { git jpblob help -a | sed -n 's/^  \([a-z-]*\)  .*/\1/p'; }

every_command_has_its_page() {
  local cmd out n=0 word
  for cmd in $(all_commands); do
    out=$(MANPATH="$MANDIR" git jpblob "$cmd" --help 2>&1) || fail "$cmd --help failed: $out"
    grep -q "^NAME" <<<"$out" && grep -q "git-jpblob-$cmd \+- " <<<"$out" || fail "$cmd --help shows no page of its own: $out"
    [ "$(MANPATH="$MANDIR" git jpblob help "$cmd" 2>&1)" = "$out" ] || fail "help $cmd is not $cmd --help"
    # The page's synopsis names every option the parser takes.
    for word in $(git-jpblob "$cmd" --git-completion-helper); do
      [ "$cmd" = artifacts ] && continue
      grep -q -- "${word%=}" <<<"$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' <<<"$out")" ||
        fail "$cmd's page does not name $word"
    done
    n=$((n + 1))
  done
  [ "$n" -gt 25 ] || fail "only $n commands"
}
case_ "each command's --help shows its own page, naming every option the parser takes" every_command_has_its_page

help_without_a_page() {
  local out rc
  out=$(MANPATH="$TEST_ROOT/noman" git jpblob gc --help) || fail "gc --help without a page failed"
  grep -q "^usage: git jpblob gc " <<<"$out" && grep -q "^Examples:" <<<"$out" && grep -q -- "--prune <date>" <<<"$out" ||
    fail "gc --help without a page: $out"
  set +e; out=$(git jpblob gc -h); rc=$?; set -e
  [ "$rc" -eq 129 ] || fail "gc -h exited $rc"
  grep -q "^usage: git jpblob gc \[-n | --dry-run\]" <<<"$out" && ! grep -q "^Examples" <<<"$out" || fail "gc -h: $out"
  set +e; out=$(git jpblob artifacts gc -h); rc=$?; set -e
  [ "$rc" -eq 129 ] && grep -q "^usage: git jpblob artifacts gc " <<<"$out" || fail "artifacts gc -h: $rc $out"
}
case_ "without a page, --help prints usage, description and examples; -h the usage, exit 129" help_without_a_page

exit_statuses() {
  local rc
  new_installed_repo exits
  expect_status() {
    local want=$1; shift
    set +e; "$@" > "$TEST_ROOT/out" 2> "$TEST_ROOT/err"; rc=$?; set -e
    [ "$rc" -eq "$want" ] || fail "$* exited $rc, not $want: $(cat "$TEST_ROOT/err")"
  }
  expect_status 129 git jpblob gc --frobnicate
  grep -q "^usage: git jpblob gc" "$TEST_ROOT/err" || fail "a bad option shows no usage: $(cat "$TEST_ROOT/err")"
  expect_status 129 git jpblob cat x --limit=abc
  expect_status 129 git jpblob files
  expect_status 129 git jpblob --frobnicate
  expect_status 128 git jpblob files 999999
  expect_status 128 git jpblob verify --history no-such-commit..HEAD
  expect_status 128 git jpblob ls-files no-such-commit
  (cd "$TEST_ROOT" && expect_status 128 git jpblob status)
  # A commit that lacks its blob (the hook skipped): a problem verify finds.
  write_conversation 1-a "alpha tool output"
  git add .jp/conversations && git commit -q --no-verify -m "1-a without its blob"
  expect_status 1 git jpblob verify --history
  expect_status 1 git jpblob zzzzzz
  expect_status 0 git jpblob version
}
case_ "git's exit statuses: 129 usage, 128 fatal (not found, a bad revision), 1 a problem" exit_statuses

git_lfs_names() {
  local out rc
  set +e; out=$(git jpblob prune 2>&1); rc=$?; set -e
  [ "$rc" -eq 1 ] && [[ "$out" == "git-jpblob: 'prune' is git-lfs's name; git-jpblob's is 'git jpblob gc'"* ]] ||
    fail "prune: $rc $out"
  set +e; out=$(git jpblob fsck 2>&1); set -e
  [[ "$out" == *"'git jpblob verify'"* ]] || fail "fsck: $out"
}
case_ "git-lfs's names (prune, fsck) point to ours" git_lfs_names

help_lists_plumbing_apart() {
  local out
  out=$(git jpblob)
  grep -q "^  gc  " <<<"$out" && grep -q "^  install  " <<<"$out" || fail "the list lacks everyday commands: $out"
  ! grep -q "^  filter-process " <<<"$out" || fail "the everyday list shows the plumbing: $out"
  out=$(git jpblob help -a)
  grep -q "^Run by git" <<<"$out" && grep -q "^  filter-process  " <<<"$out" || fail "help -a lacks the plumbing: $out"
}
case_ "help lists the everyday commands, help -a also what git runs" help_lists_plumbing_apart

quiet() {
  local out
  new_installed_repo quiet-repo
  write_conversation 1-a "alpha tool output" && git add .jp && git commit -qm a
  out=$(git jpblob gc -q 2>&1) && [ -z "$out" ] || fail "gc -q printed: $out"
  out=$(git jpblob gc 2>&1) && [ -n "$out" ] || fail "gc without -q printed nothing: the check above proves nothing"
  out=$(git jpblob verify -q 2>&1) && [ -z "$out" ] || fail "verify -q printed: $out"
  out=$(git jpblob repair -q 2>&1) && [ -z "$out" ] || fail "repair -q printed: $out"
  out=$(git jpblob install --local -q 2>&1) && [ -z "$out" ] || fail "install -q printed: $out"
  out=$(git jpblob uninstall --local --quiet 2>&1) && [ -z "$out" ] || fail "uninstall --quiet printed: $out"
}
case_ "-q: gc, verify, repair, install and uninstall print nothing when all is well" quiet

quiet_clone() {
  new_installed_repo clone-src
  write_conversation 1-a "alpha tool output" && git add .jp && git commit -qm a
  local out
  out=$(cd "$TEST_ROOT" && git clone -q "$TEST_ROOT/clone-src" quiet-clone 2>&1) || fail "clone failed: $out"
  [ -z "$out" ] || fail "git clone -q printed: $out"
  out=$(cd "$TEST_ROOT" && git clone "$TEST_ROOT/clone-src" loud-clone 2>&1) || fail "clone failed: $out"
  ! grep -q "git-jpblob" <<<"$out" || fail "a clone printed git-jpblob lines: $out"
}
case_ "a clone prints nothing of git-jpblob's (git clone -q nothing at all)" quiet_clone

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
  for c in install gc stats print; do grep -qx "$c " <<<"$out" || fail "no $c in: $out"; done
  # What git runs is not offered, as git's completion leaves its plumbing out.
  ! grep -qx "filter-process " <<<"$out" || fail "the plumbing is offered: $out"
  out=$(complete_words git jpblob artifacts "")
  grep -qx "stats " <<<"$out" || fail "git jpblob artifacts <TAB>: $out"
  out=$(complete_words git jpblob artifacts gc --)
  grep -qx -- "--expired " <<<"$out" || fail "git jpblob artifacts gc --<TAB>: $out"
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
  [[ "$out" == "128 git-jpblob: "*"Broken pipe"* ]] || fail "clean with a closed pipe: $out"
  out=$(with_closed_stdout sh -c "git cat-file blob HEAD:.jp/conversations/17758406187-big/events.json | '$JPBLOB_BIN' smudge x")
  [[ "$out" == "128 git-jpblob: "*"Broken pipe"* ]] || fail "smudge with a closed pipe: $out"
}
case_ "clean and smudge still report a closed pipe: it means git died" closed_pipe_filters_report
pass
