#!/usr/bin/env bash
# The README's first command ends in install/demo.sh: it must show the main
# job, a conversation committed as references with its blobs, and give the
# file back byte for byte. (It once read core/*.cpp, found nothing after
# core/ became rooms, and showed an empty conversation without failing.)
. "$(dirname "$0")/lib.sh"
only_in_mode lean "the demo makes its own repository with install --local; both modes would run the same"
export PATH="$(dirname "$JPBLOB_BIN"):$PATH"

demo_shows_the_main_job() {
  JPBLOB_DEMO_DIR="$TEST_ROOT/demo" bash "$E2E_DIR/../../install/demo.sh" > "$TEST_ROOT/out" 2>&1 ||
    fail "the demo failed: $(tail -3 "$TEST_ROOT/out")"
  local files
  files=$(sed -n 's/^blob files committed: *\([0-9]*\) files.*/\1/p' "$TEST_ROOT/out")
  [ "${files:-0}" -gt 10 ] || fail "the demo committed ${files:-no} blob files: $(head -12 "$TEST_ROOT/out")"
  grep -q '"\$blob"' "$TEST_ROOT/out" || fail "the demo shows no reference"
  grep -q "byte-identical" "$TEST_ROOT/out" || fail "the demo did not check the file out byte for byte"
}
case_ "install/demo.sh commits a real conversation as references and blobs, and checks it out byte for byte" \
  demo_shows_the_main_job
pass
