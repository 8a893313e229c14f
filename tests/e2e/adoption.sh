#!/usr/bin/env bash
# Adopting git-jpblob in a repository that already holds conversations
# inline: install, then `git add --renormalize .jp`, then commit. Tested on
# the real 28-commit history. The work tree does not change, history is
# left as it is, and every later clone gets JP's form back.
. "$(dirname "$0")/lib.sh"
bundle="${JPBLOB_FIXTURES:+$(dirname "$JPBLOB_FIXTURES")/jp-conversations-history.bundle}"
if [ -z "$bundle" ] || [ ! -f "$bundle" ]; then
  echo "SKIP: ../shared/fixtures is absent"
  exit 0
fi
git clone -q "$bundle" "$TEST_ROOT/team"   # before git-jpblob is set up: all inline
cd "$TEST_ROOT/team"
sums() { (cd "$1" && find .jp -type f -not -path '.jp/blobs/*' -print0 | sort -z | xargs -0 sha256sum); }
sums . > "$TEST_ROOT/before"
before_commits=$(git rev-list --count HEAD)
git jpblob install > /dev/null

renormalize_adopts() {
  cd "$TEST_ROOT/team"
  git add .gitattributes
  git add --renormalize .jp 2> "$TEST_ROOT/err" || fail "renormalize failed: $(cat "$TEST_ROOT/err")"
  git commit -qm "Move JP payloads to .jp/blobs" || fail "the adoption commit failed"
  sums . | cmp -s - "$TEST_ROOT/before" || fail "the work tree changed"
  assert_clean_status
  assert_blobs_committed
  [ "$(git rev-list --count HEAD)" -eq $((before_commits + 1)) ] || fail "history was rewritten"
  local inline refs
  refs=$(git grep -c '"\$blob"' HEAD -- '.jp/conversations/*/events.json' | wc -l)
  [ "$refs" -gt 0 ] || fail "no committed conversation holds references"
  git jpblob verify --history > "$TEST_ROOT/out" || fail "verify --history: $(cat "$TEST_ROOT/out")"
}
case_ "install, git add --renormalize .jp, commit: references committed with their blobs, the work tree untouched" renormalize_adopts

clone_gets_jp_form() {
  git clone -q "$TEST_ROOT/team" "$TEST_ROOT/mate" 2> "$TEST_ROOT/err" || fail "clone failed: $(cat "$TEST_ROOT/err")"
  sums "$TEST_ROOT/mate" | cmp -s - "$TEST_ROOT/before" || fail "a clone's conversations differ from the originals"
  cd "$TEST_ROOT/mate" && assert_clean_status
}
case_ "a teammate's clone checks out every conversation byte for byte" clone_gets_jp_form

pass
