#!/usr/bin/env bash
# Every real conversation goes through git add / commit / checkout unchanged.
. "$(dirname "$0")/lib.sh"
subcase "Every real conversation goes through git add / commit / checkout unchanged"
if [ -z "$FIXTURES" ] || [ ! -d "$FIXTURES/.jp/conversations" ]; then
  echo "SKIP: ../shared/fixtures is absent"
  exit 0
fi

new_repo
cp -r "$FIXTURES/.jp" .
chmod -R u+w .jp
git add .gitattributes .jp/.id .jp/conversations
git add .jp/blobs
git commit -qm fixtures
assert_clean_status
verify_blobs

before=$(cd "$FIXTURES" && find .jp/conversations -name events.json -exec cat {} + | wc -c)
after=$(git ls-files -s -- '*events.json' | awk '{print $2}' | xargs -n1 git cat-file -s | paste -sd+ | bc)
[ "$after" -lt "$before" ] || fail "committed conversations are not smaller"
echo "committed events.json: $before -> $after bytes"

rm -rf .jp/conversations
git checkout -- .jp/conversations
diff -r "$FIXTURES/.jp/conversations" .jp/conversations || fail "checkout changed a conversation"
assert_clean_status
pass
