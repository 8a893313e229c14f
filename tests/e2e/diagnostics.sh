#!/usr/bin/env bash
# Diagnostics, as git-lfs has them (issue 26, item 4): `git jpblob` alone
# lists the commands, `version`, `env` (text and --json), `help <command>`,
# `ls-files [<commit>]`, and gc's --json counting each conversation once.
. "$(dirname "$0")/lib.sh"
new_installed_repo
commit_conversation 1-a "alpha tool output"
commit_conversation 2-b "beta tool output"
repo=$PWD

bare_lists_commands() {
  local out
  out=$(git jpblob) || fail "bare git jpblob exited $?"
  for cmd in install uninstall gc verify stats files print cat env version ls-files help; do
    printf '%s\n' "$out" | grep >/dev/null -E "^  $cmd( |$)" || fail "no line for $cmd in: $out"
  done
  printf '%s\n' "$out" | grep >/dev/null "required" && fail "still says a subcommand is required: $out"
  true
}
case_ "git jpblob alone lists every command, one line each, and exits 0" bare_lists_commands

version_names_three() {
  local out flag git_version
  out=$(git jpblob version)
  flag=$(git jpblob --version)
  [ "$out" = "$flag" ] || fail "version and --version differ: '$out' / '$flag'"
  git_version=$(git --version | sed 's/^git version //')
  printf '%s\n' "$out" | grep >/dev/null -E '^git-jpblob [0-9]+\.[0-9]+\.[0-9]+$' || fail "no git-jpblob version: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF "git $git_version" || fail "no git version $git_version: $out"
  printf '%s\n' "$out" | grep >/dev/null -E '^libgit2 [0-9]+\.[0-9]+\.[0-9]+$' || fail "no libgit2 version: $out"
}
case_ "version (and --version) names git-jpblob's, git's and libgit2's versions" version_names_three

env_text() {
  local out
  out=$(git jpblob env)
  printf '%s\n' "$out" | grep >/dev/null -v '^[a-z][a-z0-9_.-]*=' && fail "a line that is not key=value: $out"
  want() { printf '%s\n' "$out" | grep >/dev/null -xF "$1" || fail "no line '$1' in: $out"; }
  want "binary=$(command -v git-jpblob)"
  want "on_path=$(command -v git-jpblob)"
  want "version=$(git jpblob version | sed -n 's/^git-jpblob //p')"
  want "git=$(git --version | sed 's/^git version //')"
  want "filter.jpblob.process=$(git config --get filter.jpblob.process)"
  want "filter.jpblob.process.scope=global"
  want "filter.jpblob.process.origin=file:$HOME/.gitconfig"
  want "repository=$repo"
  want "store=$repo/.jp/blobs"
  want "kept=$repo/.git/jpblob/kept"
  want "hooks=$repo/.git/hooks"
  want "hook.pre-commit=git-jpblob"
  want "hook.pre-push=git-jpblob"
  want "hook.post-checkout=git-jpblob"
  want "hook_manager=none"
  if lean_mode; then want "lean=true"; want "jpblob.lean="; else want "lean=false"; want "jpblob.lean=false"; fi
}
case_ "env: binary, versions, the filter's config scope, lean, hooks, store and kept folder" env_text

env_sees_local_scope_and_foreign_hooks() {
  local dir="$TEST_ROOT/env-local" out
  git init -q "$dir" && cd "$dir"
  git config filter.jpblob.process "git-jpblob filter-process"
  printf '#!/bin/sh\nexit 0\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
  out=$(git jpblob env)
  printf '%s\n' "$out" | grep >/dev/null -xF "filter.jpblob.process.scope=local" || fail "scope not local: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF "hook.pre-commit=other" || fail "a foreign hook not told apart: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF "hook.pre-push=absent" || fail "a missing hook not told: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF "lean=false" || fail "a fresh repository is not lean: $out"
}
case_ "env: a repository's own config scope, a hook that is not ours, a missing one" env_sees_local_scope_and_foreign_hooks

env_json() {
  git jpblob env --json > "$TEST_ROOT/env.json"
  git jpblob env > "$TEST_ROOT/env.txt"
  python3 - "$TEST_ROOT/env.json" "$TEST_ROOT/env.txt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
text = dict(line.split("=", 1) for line in open(sys.argv[2]).read().splitlines())
assert set(j) == set(text), (sorted(set(j) ^ set(text)))
for k, v in text.items():
    got = j[k]
    got = "" if got is None else ("true" if got is True else "false" if got is False else str(got))
    assert got == v, (k, got, v)
assert isinstance(j["lean"], bool)
PY
}
case_ "env --json holds the same keys and values as the text" env_json

env_outside_repo() {
  local out
  cd "$TEST_ROOT"
  out=$(git jpblob env)
  printf '%s\n' "$out" | grep >/dev/null -xF "repository=" || fail "outside a repository, repository is not empty: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF "filter.jpblob.process.scope=global" || fail "$out"
}
case_ "env outside a repository still reports the machine's set-up" env_outside_repo

help_command() {
  local out
  out=$(git jpblob help gc)
  printf '%s\n' "$out" | grep >/dev/null -- "--prune" || fail "help gc does not show gc's options: $out"
  printf '%s\n' "$out" | grep >/dev/null -- "--history" && fail "help gc shows verify's options: $out"
  out=$(git jpblob help ls-files)
  printf '%s\n' "$out" | grep >/dev/null "commit" || fail "help ls-files: $out"
  set +e
  out=$(git jpblob help verfy 2>&1)
  local rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "help of an unknown command succeeded"
  printf '%s\n' "$out" | grep >/dev/null "verify" || fail "no suggestion for verfy: $out"
}
case_ "help <command> prints that command's help; an unknown one names the closest" help_command

ls_files_index() {
  local out a b
  a=$(blob_of "alpha tool output" | xargs basename | cut -c1-64)
  b=$(blob_of "beta tool output" | xargs basename | cut -c1-64)
  out=$(git jpblob ls-files)
  printf '%s\n' "$out" | grep >/dev/null -xF ".jp/conversations/1-a/events.json" || fail "1-a not listed: $out"
  printf '%s\n' "$out" | grep >/dev/null -xF ".jp/conversations/2-b/events.json" || fail "2-b not listed: $out"
  printf '%s\n' "$out" | grep >/dev/null -E "^  present $a [0-9]+$" || fail "1-a's blob not present: $out"
  printf '%s\n' "$out" | grep >/dev/null -E "^  present $b [0-9]+$" || fail "2-b's blob not present: $out"
  [ "$(git jpblob ls-files HEAD~1)" != "$out" ] || fail "HEAD~1 lists what HEAD does"
  git jpblob ls-files HEAD~1 | grep -q "2-b" && fail "HEAD~1 lists 2-b, committed after it"
  true
}
case_ "ls-files lists each conversation in the index with its blobs, present" ls_files_index

ls_files_missing() {
  local dir="$TEST_ROOT/ls-missing" c out
  git clone -q "$repo" "$dir" && cd "$dir"
  c=$(blob_of "gamma tool output" | xargs basename | cut -c1-64)
  write_conversation 3-c "gamma tool output"
  git add .jp/conversations/3-c
  git commit -q --no-verify -m "3-c without its blob"
  out=$(git jpblob ls-files HEAD)
  printf '%s\n' "$out" | grep >/dev/null -E "^  missing $c [0-9]+$" || fail "the blob HEAD lacks is not missing: $out"
  git jpblob ls-files HEAD --json | C=$c python3 -c '
import json, os, sys
j = json.load(sys.stdin)
docs = {d["path"]: d for d in j["documents"]}
blobs = {b["digest"]: b for b in docs[".jp/conversations/3-c/events.json"]["blobs"]}
assert blobs[os.environ["C"]]["present"] is False, blobs
assert j["commit"], j'
  set +e
  out=$(git jpblob ls-files no-such-commit 2>&1)
  local rc=$?
  set -e
  [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep >/dev/null "no-such-commit" || fail "a bad commit: $rc $out"
}
case_ "ls-files <commit> marks a blob that commit lacks as missing (and --json)" ls_files_missing

gc_counts_once() {
  cd "$repo"
  git jpblob gc --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["conversations"] == 2, j["conversations"]'
}
case_ "gc --json counts each conversation once, not once in the work tree and once staged" gc_counts_once

every_command_has_an_example() {
  local names name n=0
  names=$(git jpblob help -a | sed -n 's/^  \([a-z-]*\) .*/\1/p')
  [ "$(wc -l <<<"$names")" -gt 20 ] || fail "the command list is short: $names"
  for name in $names; do
    # The manual page, and the help printed where no page is installed.
    MANPATH="$JPBLOB_MAN_DIR" MANPAGER=cat git jpblob help "$name" | sed -n '/^EXAMPLES/,/^SEE ALSO/p' |
      grep -q "$name" || fail "the page of $name shows no example naming it"
    MANPATH="$TEST_ROOT/nowhere" "$JPBLOB_BIN" "$name" --help 2> /dev/null | grep -A1 '^Examples:$' | grep -q "$name" ||
      fail "$name --help without a page shows no example naming it"
    n=$((n + 1))
  done
}
case_ "every command's help ends with an example of it" every_command_has_an_example

reporting_commands_speak_json() {
  new_installed_repo json-commands
  write_conversation 1-a "output the json case commits"
  git add .jp/conversations && git commit -qm a
  printf 'stored by the json case' > file.txt
  git jpblob store file.txt --json > "$TEST_ROOT/store.json"
  git jpblob migrate --dry-run --json > "$TEST_ROOT/migrate.json"
  git jpblob checkout --dry-run --json > "$TEST_ROOT/checkout.json"
  git jpblob repair --json > "$TEST_ROOT/repair.json"
  WANT=$(printf 'stored by the json case' | sha256sum | cut -c1-64) python3 - "$TEST_ROOT" <<'PY'
import json, os, sys
d = sys.argv[1]
load = lambda name: json.load(open(os.path.join(d, name + ".json")))
s = load("store")["stored"]
assert [(x["file"], x["url"], x["size"]) for x in s] == [("file.txt", "blob:sha256:" + os.environ["WANT"], 23)], s
m = load("migrate")
assert (m["dry_run"], m["rewritten"], m["unchanged"]) == (True, [".jp/conversations/1-a/events.json"], 0), m
c = load("checkout")
assert (c["dry_run"], c["restored"], c["unchanged"], c["problems"]) == (True, [], 1, []), c
r = load("repair")
assert (r["checked"], r["repaired"], r["unrecoverable"]) == (3, [], []), r
PY
}
case_ "store, migrate, checkout and repair --json: the same counts as their words" reporting_commands_speak_json

out_of_memory_names_the_command() {
  new_installed_repo oom
  # A blob of 400 MB of zeros (under 2 MB of gzip) that smudge restores
  # whole, in a process allowed 300 MB. (verify hashes a blob as it
  # inflates it, and never needs it whole.)
  local d
  d=$(head -c 400000000 /dev/zero | sha256sum | cut -c1-64)
  mkdir -p ".jp/blobs/${d:0:2}/${d:2:2}" .jp/conversations/1-big
  head -c 400000000 /dev/zero | gzip -1 > ".jp/blobs/${d:0:2}/${d:2:2}/$d.blob.gz"
  echo "[{\"type\":\"tool_call_response\",\"id\":\"t\",\"content\":{\"\$blob\":\"$d\",\"size\":400000000,\"encoding\":\"base64\"},\"is_error\":false}]" \
    > "$TEST_ROOT/cleaned.json"
  local rc=0
  (ulimit -v 300000 && git jpblob smudge .jp/conversations/1-big/events.json < "$TEST_ROOT/cleaned.json") \
    > /dev/null 2> "$TEST_ROOT/err" || rc=$?
  [ "$rc" = 128 ] || fail "smudge exited $rc: $(cat "$TEST_ROOT/err")"
  grep -q "out of memory in \`git-jpblob smudge\`" "$TEST_ROOT/err" || fail "the command is not named: $(cat "$TEST_ROOT/err")"
  grep -q "ulimit -v" "$TEST_ROOT/err" || fail "what bounds memory is not said: $(cat "$TEST_ROOT/err")"
  (ulimit -v 300000 && git jpblob verify) > /dev/null 2>&1 || fail "verify of the same blob needs it whole"
  local restored
  restored=$(git jpblob smudge .jp/conversations/1-big/events.json < "$TEST_ROOT/cleaned.json" | wc -c)
  [ "$restored" -gt 533333333 ] || fail "smudge with memory enough gave $restored bytes"
}
case_ "out of memory: the message names the command and what bounds memory" out_of_memory_names_the_command

pass
