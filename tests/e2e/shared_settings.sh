#!/usr/bin/env bash
# Settings that change committed bytes come from the committed
# .jpblobconfig, so a teammate's personal jpblob.minSize cannot make an
# unchanged conversation look modified.
. "$(dirname "$0")/lib.sh"
new_installed_repo team
printf '[jpblob]\n\tminSize = 40\n' > .jpblobconfig
write_conversation 1-mixed "a tool output long enough to be stored as a blob"
# A second, short payload: under 40 bytes, kept inline by the team's setting.
grow_conversation .jp/conversations/1-mixed/events.json "short"
git add .jpblobconfig .jp && git commit -qm "team settings"
git clone -q "$TEST_ROOT/team" "$TEST_ROOT/mate"

no_phantom_changes() {
  cd "$TEST_ROOT/mate"
  git config jpblob.minSize 1000   # the teammate's own setting: would keep everything inline
  touch .jp/conversations/1-mixed/events.json   # make git ask the filter again
  assert_clean_status
  git diff --quiet || fail "git diff shows a change"
  # What the teammate commits is the team's bytes, whatever they set.
  git config jpblob.minSize 1      # would store even a 4-byte payload
  grow_conversation .jp/conversations/1-mixed/events.json "tiny"
  git add .jp && git commit -qm mate
  git show HEAD:.jp/conversations/1-mixed/events.json | grep -q "$(printf 'tiny' | base64 -w0)" ||
    fail "a payload under the team's minSize was stored as a blob by the personal setting"
}
case_ "a teammate's personal jpblob.minSize changes nothing: no phantom modification, the team's bytes committed" no_phantom_changes

personal_without_shared_file() {
  cd "$TEST_ROOT/mate"
  git rm -q .jpblobconfig && git commit -qm "no shared settings"
  git config jpblob.minSize 1
  write_conversation 2-personal "tiny"
  git add .jp && git commit -qm personal
  ! git show HEAD:.jp/conversations/2-personal/events.json | grep -q "$(printf 'tiny' | base64 -w0)" ||
    fail "without .jpblobconfig the personal setting was not used"
}
case_ "without .jpblobconfig, the personal setting applies" personal_without_shared_file

# A committed .jpblobconfig is someone else's file: whatever it holds, git
# keeps working in every clone. Each bad kind is committed on its own
# branch of the team's repository; a clone of it, a switch to main and
# back, status and a commit all work. Cleaning gives one warning naming the
# file and the key (or what is wrong with it) and uses the personal or
# default value; a checkout never reads the file, so it says nothing.
cd "$TEST_ROOT/team"
git checkout -q -b base-for-bad
# 1-mixed was committed under minSize = 40: the default would clean it to
# other bytes, so it has no place here.
git rm -rq .jpblobconfig .jp/conversations/1-mixed && git commit -qm "no shared settings"
# Committed with the default settings, which a bad file leaves in force.
write_conversation 2-default "an output committed with the default settings"
grow_conversation .jp/conversations/2-default/events.json "short"
git add .jp && git commit -qm "a conversation under the default settings"
cp .jp/conversations/2-default/events.json "$TEST_ROOT/2-default.json"
bad_branch() {
  local name=$1
  cd "$TEST_ROOT/team"
  git checkout -q -b "bad-$name" base-for-bad
  case $name in
    level) printf '[jpblob]\n\tcompressionLevel = 10\n' > .jpblobconfig ;;
    novalue) printf '[jpblob]\n\tminSize\n' > .jpblobconfig ;;
    syntax) printf '[jpblob\n\tminSize = 1k\n' > .jpblobconfig ;;
    oversized) { printf '[jpblob]\n\tminSize = 1k\n'; head -c 1100000 /dev/zero | tr '\0' '#'; } > .jpblobconfig ;;
    folder) mkdir .jpblobconfig && echo x > .jpblobconfig/inside ;;
    link) ln -s /etc/passwd .jpblobconfig ;;
  esac
  # Committing it is a commit like any other (the hook reads it too).
  git add .jpblobconfig
  git commit -qm "a bad .jpblobconfig: $name" 2> "$TEST_ROOT/bad-$name.commit" ||
    fail "committing the file failed: $(cat "$TEST_ROOT/bad-$name.commit")"
  git checkout -q base-for-bad
}
for kind in level novalue syntax oversized folder link; do bad_branch "$kind"; done
cd "$TEST_ROOT/team"
git checkout -q main

# $1: the kind; $2: what the warning names beside the file.
bad_file_never_breaks_git() {
  local name=$1 names=$2 clone="$TEST_ROOT/clone-$1" n
  git clone -q -b "bad-$name" "$TEST_ROOT/team" "$clone" 2> "$TEST_ROOT/clone.err" ||
    fail "the clone failed: $(cat "$TEST_ROOT/clone.err")"
  ! grep -q jpblobconfig "$TEST_ROOT/clone.err" || fail "a checkout read the shared file: $(cat "$TEST_ROOT/clone.err")"
  cd "$clone"
  cmp -s .jp/conversations/2-default/events.json "$TEST_ROOT/2-default.json" ||
    fail "the conversation was not restored"
  assert_clean_status
  # A status that must clean the file again: one warning, naming file and key.
  touch .jp/conversations/2-default/events.json
  git status --porcelain > "$TEST_ROOT/status.out" 2> "$TEST_ROOT/status.err" ||
    fail "git status failed: $(cat "$TEST_ROOT/status.err")"
  [ ! -s "$TEST_ROOT/status.out" ] || fail "git status shows changes: $(cat "$TEST_ROOT/status.out")"
  n=$(grep -c "warning: .*\.jpblobconfig" "$TEST_ROOT/status.err" || true)
  [ "$n" -eq 1 ] || fail "expected one warning, got $n: $(cat "$TEST_ROOT/status.err")"
  grep -q -- "$names" "$TEST_ROOT/status.err" || fail "the warning does not name '$names': $(cat "$TEST_ROOT/status.err")"
  git checkout -q main 2> "$TEST_ROOT/switch.err" || fail "checkout of main failed: $(cat "$TEST_ROOT/switch.err")"
  git checkout -q "bad-$name" 2> "$TEST_ROOT/switch.err" || fail "checkout back failed: $(cat "$TEST_ROOT/switch.err")"
  assert_clean_status
  # A commit cleans with the default minSize (0): even a 4-byte payload
  # becomes a blob.
  write_conversation 9-new "tiny"
  git add .jp && git commit -qm "after the bad file" 2> "$TEST_ROOT/commit.err" ||
    fail "the commit failed: $(cat "$TEST_ROOT/commit.err")"
  ! git show HEAD:.jp/conversations/9-new/events.json | grep -q "$(printf 'tiny' | base64 -w0)" ||
    fail "the default minSize was not used"
  assert_blobs_committed
  git jpblob verify > /dev/null 2> "$TEST_ROOT/verify.err" || fail "verify failed: $(cat "$TEST_ROOT/verify.err")"
  grep -q -- "$names" "$TEST_ROOT/verify.err" || fail "verify gave no warning naming '$names'"
}
case_ "compressionLevel = 10 in .jpblobconfig: clone, switch, status and commit work, one warning names the key" \
  bad_file_never_breaks_git level "jpblob.compressionLevel"
case_ "a key with no value in .jpblobconfig: one warning naming the key, the default applies" \
  bad_file_never_breaks_git novalue "jpblob.minSize"
case_ "a .jpblobconfig that does not parse: one warning naming its line" \
  bad_file_never_breaks_git syntax ".jpblobconfig, line 1"
case_ "a .jpblobconfig over 1 MiB is ignored with one warning" \
  bad_file_never_breaks_git oversized "larger than"
case_ "a folder named .jpblobconfig is ignored with one warning" \
  bad_file_never_breaks_git folder "not a regular file"
case_ "a symbolic link named .jpblobconfig is ignored with one warning, never followed" \
  bad_file_never_breaks_git link "symbolic link"

unreadable_file() {
  cd "$TEST_ROOT/clone-level"
  printf '[jpblob]\n\tminSize = 1k\n' > .jpblobconfig
  chmod 000 .jpblobconfig
  if cat .jpblobconfig > /dev/null 2>&1; then chmod 644 .jpblobconfig; git checkout -q -- .jpblobconfig; return 0; fi  # root reads it anyway
  touch .jp/conversations/2-default/events.json
  git status --porcelain > /dev/null 2> "$TEST_ROOT/status.err" || fail "git status failed: $(cat "$TEST_ROOT/status.err")"
  grep -q "warning: ignoring .jpblobconfig: .*Permission denied" "$TEST_ROOT/status.err" ||
    fail "no warning: $(cat "$TEST_ROOT/status.err")"
  chmod 644 .jpblobconfig
  git checkout -q -- .jpblobconfig
}
case_ "an unreadable .jpblobconfig is ignored with one warning (not checkable as root)" unreadable_file

pass
