#!/usr/bin/env bash
# --store DIR uses a plain JP storage folder outside any repository.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "no repository here has git-jpblob's hooks or install (the one-shot filter, or no git at all), so no repository is ever lean: both modes would run the same"
export GIT_CEILING_DIRECTORIES="$TEST_ROOT"
mkdir -p "$TEST_ROOT/local/conversations/1-x" "$TEST_ROOT/elsewhere"
cd "$TEST_ROOT/elsewhere"
printf '[{"type":"tool_call_response","content":"%s"}]' "$(printf 'local only' | base64 -w0)" > in.json
digest=$(printf 'local only' | sha256sum | cut -c1-64)

clean_into_store() {
  "$JPBLOB_BIN" clean --store "$TEST_ROOT/local" < in.json > out.json
  [ -f "$TEST_ROOT/local/blobs/${digest:0:2}/${digest:2:2}/$digest.blob.gz" ] || fail "blob not in --store"
  [ ! -e .jp ] || fail "wrote a store in the current folder"
  verify_blobs "$TEST_ROOT/local/blobs"
}
case_ "clean --store writes a sound blob there, not in the current folder" clean_into_store

smudge_from_store() {
  "$JPBLOB_BIN" smudge --store "$TEST_ROOT/local" < out.json | cmp - in.json || fail "round trip"
}
case_ "smudge --store gives the input back" smudge_from_store
pass
