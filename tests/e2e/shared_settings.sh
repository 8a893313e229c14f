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

pass
