#!/usr/bin/env bash
# gc, verify, files, print, cat, migrate and stats against real repositories.
. "$(dirname "$0")/lib.sh"
new_installed_repo
write_conversation 17758406187-first "first tool output"
write_conversation 17758406188-second "second tool output"
git add .jp/conversations
git commit -qm conversations
digest_of() { printf '%s' "$1" | sha256sum | cut -c1-64; }
blob_path() { echo ".jp/blobs/${1:0:2}/${1:2:2}/$1.blob.gz"; }
make_orphan() {  # content, age in seconds
  local h p
  h=$(digest_of "$1")
  p=$(blob_path "$h")
  mkdir -p "$(dirname "$p")"
  printf '%s' "$1" | gzip -n > "$p"
  touch -d "@$(( $(date +%s) - $2 ))" "$p"
  echo "$p"
}
d_first=$(digest_of 'first tool output')
d_second=$(digest_of 'second tool output')
first=.jp/conversations/17758406187-first/events.json

stats_json() {
  git jpblob stats --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["conversations"] == 2 and s["unique_blobs"] >= 3, s
assert s["stored_bytes"] > 0 and s["inline_payloads"] >= 4, s'
}
case_ "stats and its JSON" stats_json

files_by_every_name() {
  local name out
  for name in 17758406187 jp-c17758406187 .jp/conversations/17758406187-first "$first"; do
    out=$(git jpblob files "$name")
    grep -qx "$first" <<<"$out" || fail "files $name: $out"
    if lean_mode; then
      # git add refuses every path outside a lean tree's sparse patterns.
      ! grep -q "^.jp/blobs/" <<<"$out" || fail "files $name lists a blob in a lean tree: $out"
    else
      grep -qx "$(blob_path "$d_first")" <<<"$out" || fail "files $name lacks the blob: $out"
    fi
  done
  git add $(git jpblob files 17758406188)
}
case_ "files by id, by handle, by folder and by events.json; git add takes them" files_by_every_name

files_of_unknown_id() {
  local rc
  set +e; git jpblob files 99999 > /dev/null 2>&1; rc=$?; set -e
  [ "$rc" -eq 128 ] || fail "files of an unknown id exited $rc"
}
case_ "files of an unknown id exits 128 (fatal, as git's not-found)" files_of_unknown_id

print_decodes() {
  git jpblob print 17758406187 | grep -q '"content": "first tool output"' || fail "print does not decode"
}
case_ "print resolves and decodes" print_decodes

cat_by_url_digest_prefix() {
  [ "$(git jpblob cat "blob:sha256:$d_first")" = "first tool output" ] || fail "cat url"
  [ "$(git jpblob cat "$d_first")" = "first tool output" ] || fail "cat digest"
  [ "$(git jpblob cat "${d_first:0:8}")" = "first tool output" ] || fail "cat prefix"
  local rc
  set +e; git jpblob cat 1234567 > /dev/null 2>&1; rc=$?; set -e
  [ "$rc" -eq 129 ] || fail "cat of a short prefix exited $rc"
}
case_ "cat by URL, digest and prefix; a short prefix is a usage error" cat_by_url_digest_prefix

verify_all_good() {
  git jpblob verify > /dev/null
}
case_ "verify: all good" verify_all_good

# Orphans, old and young, and an old temporary file, for verify and gc.
# gc's default lifetime is git's for an unreachable object (gc.pruneExpire,
# two weeks): three weeks is old, two hours young.
orphan_old=$(make_orphan "old orphan" $((21 * 86400)))
orphan_hours=$(make_orphan "orphan of two hours" 7200)
orphan_young=$(make_orphan "young orphan" 60)
temp_old=".jp/blobs/00/00/.jpblob-tmp-1-1-deadbeef"
mkdir -p "$(dirname "$temp_old")" && echo partial > "$temp_old" && touch -d '3 weeks ago' "$temp_old"

verify_lists_candidates() {
  git jpblob verify | grep -q "unreferenced (gc candidate): $orphan_old" || fail "verify does not list gc candidates"
}
case_ "verify lists an unreferenced blob as a gc candidate" verify_lists_candidates

gc_dry_run() {
  git jpblob gc --dry-run | grep -q "would remove $orphan_old" || fail "dry run"
  [ -f "$orphan_old" ] || fail "the dry run deleted"
}
case_ "gc --dry-run deletes nothing" gc_dry_run

gc_removes_old_only() {
  git jpblob gc > "$TEST_ROOT/gc.out"
  grep -q "Removed 2 file" "$TEST_ROOT/gc.out" || fail "gc: $(cat "$TEST_ROOT/gc.out")"
  grep -q "younger than 2.weeks.ago" "$TEST_ROOT/gc.out" || fail "gc does not name git's lifetime: $(cat "$TEST_ROOT/gc.out")"
  [ ! -e "$orphan_old" ] && [ ! -e "$temp_old" ] || fail "gc kept an old orphan"
  [ -f "$orphan_hours" ] || fail "gc deleted an orphan younger than gc.pruneExpire"
  [ -f "$orphan_young" ] || fail "gc deleted a young orphan"
  blob_held "$(blob_path "$d_first")" || fail "gc deleted a referenced blob"
  git jpblob verify > /dev/null
}
case_ "gc: orphans older than gc.pruneExpire and old temp files go, young and referenced blobs stay" gc_removes_old_only

# gc.pruneExpire is git's setting, read as git reads it (any scope, -c).
gc_reads_prune_expire() {
  git -c gc.pruneExpire=1.hour.ago jpblob gc > "$TEST_ROOT/gc.out"
  [ ! -e "$orphan_hours" ] || fail "gc kept an orphan older than -c gc.pruneExpire: $(cat "$TEST_ROOT/gc.out")"
  [ -f "$orphan_young" ] || fail "gc deleted an orphan younger than gc.pruneExpire"
  git config gc.pruneExpire never
  git jpblob gc --dry-run | grep -q "younger than never" || fail "gc does not read gc.pruneExpire from the config"
  git config --unset gc.pruneExpire
}
case_ "gc's lifetime is gc.pruneExpire, from any scope or git -c" gc_reads_prune_expire

gc_unstages_tracked() {
  git rm -q -r .jp/conversations/17758406188-second
  git commit -qm "drop second"
  [ ! -f "$(blob_path "$d_second")" ] || touch -d '2 hours ago' "$(blob_path "$d_second")"
  git jpblob gc --prune=1.hour.ago > /dev/null
  [ ! -e "$(blob_path "$d_second")" ] || fail "gc kept an unreferenced tracked blob"
  git status --porcelain | grep -q "^D  $(blob_path "$d_second")" || fail "gc did not unstage: $(git status --porcelain)"
  git commit -qm gc
}
case_ "a tracked blob nothing references any more is deleted and unstaged" gc_unstages_tracked

gc_prune_now() {
  git jpblob gc --prune=now > /dev/null
  [ ! -e "$orphan_young" ] || fail "--prune=now kept a young orphan"
}
case_ "gc --prune=now removes a young orphan" gc_prune_now

# `prune_splits DATE OLDER YOUNGER`: gc --prune=DATE removes an orphan
# OLDER seconds old and keeps one YOUNGER seconds old.
prune_splits() {
  local older younger
  older=$(make_orphan "older than $1" "$2")
  younger=$(make_orphan "younger than $1" "$3")
  git jpblob gc --prune="$1" > /dev/null || fail "gc --prune=$1 failed"
  [ ! -e "$older" ] || fail "--prune=$1 kept an orphan $2 s old"
  [ -e "$younger" ] || fail "--prune=$1 deleted an orphan $3 s old"
  git jpblob gc --prune=now > /dev/null
}
gc_prune_takes_gits_dates() {
  local day=86400 ancient rc
  prune_splits "2 weeks ago" $((15 * day)) $((13 * day))
  prune_splits "2.weeks.ago" $((15 * day)) $((13 * day))
  prune_splits "$(date -d '5 days ago' +%F)" $((6 * day)) $((4 * day))
  prune_splits "yesterday" $((2 * day)) 3600
  prune_splits "90" 600 10
  prune_splits "30m" 3600 60
  ancient=$(make_orphan "kept for ever" $((400 * day)))
  git jpblob gc --prune=never > /dev/null
  [ -e "$ancient" ] || fail "--prune=never deleted an orphan"
  for bad in soon 1.5h; do
    set +e; git jpblob gc --prune="$bad" > /dev/null 2> "$TEST_ROOT/err"; rc=$?; set -e
    [ "$rc" -eq 129 ] || fail "gc --prune=$bad exited $rc"
    grep -q "bad --prune '$bad'" "$TEST_ROOT/err" || fail "gc --prune=$bad said: $(cat "$TEST_ROOT/err")"
    [ -e "$ancient" ] || fail "gc --prune=$bad deleted an orphan"
  done
  # git gc's own forms: --no-prune keeps all; --prune alone is gc.pruneExpire.
  git jpblob gc --no-prune > /dev/null
  [ -e "$ancient" ] || fail "--no-prune deleted an orphan"
  git -c gc.pruneExpire=never jpblob gc --prune > /dev/null
  [ -e "$ancient" ] || fail "--prune alone did not read gc.pruneExpire"
  git jpblob gc --prune > /dev/null
  [ ! -e "$ancient" ] || fail "--prune alone kept an orphan older than 2.weeks.ago"
  ancient=$(make_orphan "kept for ever, again" $((400 * day)))
  git jpblob gc --prune=now > /dev/null
  [ ! -e "$ancient" ] || fail "--prune=now kept an old orphan"
}
case_ "gc --prune takes what git gc --prune takes: 2 weeks ago, 2.weeks.ago, a date, never, alone; --no-prune" \
  gc_prune_takes_gits_dates

# The rest of git's dates: a date with a time of day (as `git log` prints
# it, or ISO 8601's), a Unix time, lengths of several units; the same in
# gc.pruneExpire; and --dry-run naming what such a date would remove.
# `dry_run_splits DATE OLDER YOUNGER gc-command...`: the dry run lists the
# OLDER orphan, not the YOUNGER, names DATE and deletes neither.
dry_run_splits() {
  local date=$1 older=$2 younger=$3 out
  shift 3
  out=$("$@")
  grep -qx "would remove $older" <<<"$out" || fail "$* does not list the older orphan: $out"
  ! grep -q "$younger" <<<"$out" || fail "$* lists the younger orphan: $out"
  grep -q "younger than $date\.\$" <<<"$out" || fail "$* does not name the date: $out"
  [ -e "$older" ] && [ -e "$younger" ] || fail "$* deleted"
}
gc_prune_takes_dates_with_times() {
  local day=86400 stamp older younger
  stamp=$(date -d '3 days ago' '+%F %H:%M')
  prune_splits "$stamp" $((4 * day)) $((2 * day))
  prune_splits "$(date -d '3 days ago' '+%FT%T')" $((4 * day)) $((2 * day))
  prune_splits "@$(($(date +%s) - 3 * day))" $((4 * day)) $((2 * day))
  prune_splits "1 week 2 days ago" $((10 * day)) $((8 * day))
  older=$(make_orphan "older than $stamp" $((4 * day)))
  younger=$(make_orphan "younger than $stamp" $((2 * day)))
  dry_run_splits "$stamp" "$older" "$younger" git jpblob gc --dry-run --prune="$stamp"
  dry_run_splits "$stamp" "$older" "$younger" git -c gc.pruneExpire="$stamp" jpblob gc --dry-run
  git jpblob gc --prune=now > /dev/null
}
case_ "gc --prune and gc.pruneExpire take a date with a time, ISO 8601, @<unix time>, 1 week 2 days ago" \
  gc_prune_takes_dates_with_times

gc_leaves_young_temp_file() {
  local temp_young=".jp/blobs/00/00/.jpblob-tmp-2-2-cafef00d"
  mkdir -p "$(dirname "$temp_young")" && echo writing > "$temp_young"
  git jpblob gc --prune=now > /dev/null
  [ -e "$temp_young" ] || fail "gc --prune=now deleted a temporary file being written"
  rm "$temp_young"
}
case_ "a writer's temporary file is never taken from under it, --prune=now or not" gc_leaves_young_temp_file

# The next case breaks the first conversation; it is put back after it.
cp "$first" "$TEST_ROOT/saved.json"
gc_refuses_on_corrupt_conversation() {
  make_orphan "doomed orphan" $((21 * 86400)) > /dev/null
  echo '[{"type": ' > "$first"
  local before rc
  before=$({ find .jp/blobs -type f; git ls-files -s .jp/blobs; } | sort | sha256sum)
  set +e; git jpblob gc > /dev/null 2> "$TEST_ROOT/err"; rc=$?; set -e
  [ "$rc" -eq 128 ] || fail "gc over a corrupt conversation exited $rc"
  grep -q "cannot build the live set: .*17758406187-first/events.json is not valid JSON" "$TEST_ROOT/err" ||
    fail "gc message: $(cat "$TEST_ROOT/err")"
  [ "$({ find .jp/blobs -type f; git ls-files -s .jp/blobs; } | sort | sha256sum)" = "$before" ] ||
    fail "gc deleted or unstaged despite the error"
}
case_ "a corrupt events.json: gc deletes nothing and says why" gc_refuses_on_corrupt_conversation
cp "$TEST_ROOT/saved.json" "$first"

# The next case breaks a blob; it is put back after it.
lean_mode || cp "$(blob_path "$d_first")" "$TEST_ROOT/blob"
verify_names_corrupt_blob() {
  local b rc
  b=$(blob_path "$d_first")
  printf 'x' >> "$b"
  set +e; git jpblob verify > "$TEST_ROOT/out"; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "problem: blob $b is corrupt" "$TEST_ROOT/out" || fail "verify: $rc $(cat "$TEST_ROOT/out")"
}
case_in_mode full "a lean tree has no committed blob file to corrupt (e2e hostile_repos corrupts the index's copy)" \
  "verify names a corrupt blob and exits 1" verify_names_corrupt_blob
lean_mode || cp "$TEST_ROOT/blob" "$(blob_path "$d_first")"

verify_history() {
  write_conversation 3-unstaged "never staged blob"
  git -c filter.jpblob.required=true add .jp/conversations/3-unstaged
  git commit -qm "no blob" --no-verify
  local rc
  set +e; git jpblob verify --history > "$TEST_ROOT/out"; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "references blob .*which that commit does not contain" "$TEST_ROOT/out" ||
    fail "verify --history: $(cat "$TEST_ROOT/out")"
  # The way out in either mode (`git add` of a blob path is refused in a
  # lean tree): repair stages what a staged conversation references.
  git jpblob repair > /dev/null
  git ls-files --error-unmatch "$(blob_path "$(digest_of 'never staged blob')")" > /dev/null ||
    fail "repair did not stage the blob the commit lacks"
  git commit -qm "blob added"
}
case_ "verify --history: a commit whose blob is not in it" verify_history

# JP reads references; checkout gives the inline form back.
migrate() {
  git jpblob migrate --dry-run | grep -q "would rewrite" || fail "migrate dry run"
  git jpblob migrate > /dev/null
  grep -q '"\$blob":"' "$first" || fail "migrate did not rewrite"
  git jpblob migrate | grep -q "Rewrote 0 conversation" || fail "second migrate changed something"
  [ -z "$(git status --porcelain --untracked-files=no)" ] || fail "migrate left changes: $(git status --porcelain)"
}
case_ "migrate rewrites the work tree to references, once, leaving status clean" migrate

store_outside_repository() {
  export GIT_CEILING_DIRECTORIES="$TEST_ROOT"
  mkdir -p "$TEST_ROOT/local/conversations/1-x"
  cp "$first" "$TEST_ROOT/local/conversations/1-x/"
  # The store as JP's user-local folder would hold it, from git (a lean
  # tree has no blob files).
  local p
  for p in $(git ls-files .jp/blobs); do
    mkdir -p "$(dirname "$TEST_ROOT/local/${p#.jp/}")"
    git cat-file blob ":$p" > "$TEST_ROOT/local/${p#.jp/}"
  done
  cd "$TEST_ROOT"
  git jpblob gc --store "$TEST_ROOT/local" --prune=now > /dev/null
  [ -f "$TEST_ROOT/local/$(blob_path "$d_first" | sed 's|^.jp/||')" ] || fail "--store gc deleted a referenced blob"
  [ "$(find "$TEST_ROOT/local/blobs" -name '*.blob.gz' | wc -l)" -eq 2 ] || fail "--store gc kept orphans"
  git jpblob verify --store "$TEST_ROOT/local" > /dev/null
}
case_ "--store on a plain folder, outside any repository" store_outside_repository

store_without_repository_refuses() {
  export GIT_CEILING_DIRECTORIES="$TEST_ROOT"
  mkdir -p "$TEST_ROOT/plain" && cd "$TEST_ROOT/plain"
  echo "some bytes" > file.txt
  local out rc
  set +e; out=$(git jpblob store file.txt 2>&1); rc=$?; set -e
  [ "$rc" -eq 128 ] || fail "store outside a repository exited $rc: $out"
  [[ "$out" == "git-jpblob: "*"not in a git repository; pass --store <folder>" ]] || fail "unexpected: $out"
  set +e; out=$("$JPBLOB_BIN" clean x < "$OLDPWD/$first" 2>&1 > /dev/null); rc=$?; set -e
  [ "$rc" -eq 128 ] && [[ "$out" == *"not in a git repository; pass --store <folder>" ]] || fail "clean: exit $rc: $out"
  [ ! -e .jp ] || fail "wrote $(find .jp) in the current folder"
  mkdir "$TEST_ROOT/plain-store"
  git jpblob store file.txt --store "$TEST_ROOT/plain-store" | grep -q "^blob:sha256:" || fail "--store refused"
}
case_ "a store with no repository refuses to write one in the current folder, unless --store" store_without_repository_refuses
pass
