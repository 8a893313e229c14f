#!/usr/bin/env bash
# The Debian package (install/package.sh, cmake/package.cmake), made from
# this build by cpack as package.sh makes it, unpacked into a fresh root
# with dpkg-deb -x: its contents, its control fields (the version
# `git jpblob version` prints, Depends on git and the libraries the binary
# links), and a clone, a commit and a verify run by the packaged binary,
# which shows its own manual.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "the packaged binary is the one e2e.* tests in both modes; one package is enough"
BUILD=${JPBLOB_BUILD_DIR:-$(dirname "$JPBLOB_BIN")}
skip() {
  echo "SKIP: $(basename "$0"): $1"
  SUITE_DONE=1
  exit 77
}
command -v dpkg-deb > /dev/null || skip "no dpkg-deb: not a Debian machine"
command -v dpkg-shlibdeps > /dev/null || skip "no dpkg-shlibdeps: install dpkg-dev (install/deps.sh does)"
[ -f "$BUILD/CPackConfig.cmake" ] || skip "$BUILD has no CPackConfig.cmake"

cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$TEST_ROOT/package" > "$TEST_ROOT/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -20 "$TEST_ROOT/cpack.log")"
DEBS=("$TEST_ROOT"/package/*.deb)
[ ${#DEBS[@]} -eq 1 ] && [ -f "${DEBS[0]}" ] || fail "cpack made no single .deb: $(cat "$TEST_ROOT/cpack.log")"
DEB=${DEBS[0]}
ROOT="$TEST_ROOT/root"
dpkg-deb -x "$DEB" "$ROOT"
# The packaged binary and its manual, before the build's (lib.sh's PATH).
export PATH="$ROOT/usr/bin:$PATH" MANPATH="$ROOT/usr/share/man" MANPAGER=cat PAGER=cat
field() { dpkg-deb -f "$DEB" "$1"; }

contents() {
  [ "$(command -v git-jpblob)" = "$ROOT/usr/bin/git-jpblob" ] || fail "git-jpblob on PATH is $(command -v git-jpblob)"
  [ -x "$ROOT/usr/bin/git-jpblob" ] || fail "no executable /usr/bin/git-jpblob"
  [ -f "$ROOT/usr/share/bash-completion/completions/git-jpblob" ] || fail "no bash completion"
  [ -x "$ROOT/usr/share/git-jpblob/ci-verify.sh" ] || fail "no executable ci-verify.sh for a CI job"
  local built packaged
  built=$(cd "${JPBLOB_MAN_DIR:-$BUILD/man}/man1" && ls)
  packaged=$(cd "$ROOT/usr/share/man/man1" && ls)
  [ -n "$built" ] && [ "$built" = "$packaged" ] ||
    fail "manual pages: built $(tr '\n' ' ' <<<"$built"), packaged $(tr '\n' ' ' <<<"$packaged")"
  # Everything under /usr, nothing else.
  local outside
  outside=$(dpkg-deb -c "$DEB" | awk '{ print $6 }' | grep -v -E '^\./(usr(/.*)?)?$' || true)
  [ -z "$outside" ] || fail "files outside /usr: $outside"
}
case_ "the package holds /usr/bin/git-jpblob, every manual page, the bash completion and ci-verify.sh" contents

control() {
  local version depends
  version=$(git jpblob version | sed -n 's/^git-jpblob //p')
  [ -n "$version" ] && [ "$(field Version)" = "$version" ] ||
    fail "the package's version $(field Version), git jpblob version's '$version'"
  [ "$(basename "$DEB")" = "git-jpblob_${version}_$(dpkg --print-architecture).deb" ] || fail "file name $(basename "$DEB")"
  [ "$(field Package)" = git-jpblob ] || fail "Package: $(field Package)"
  [ "$(field Section)" = vcs ] || fail "Section: $(field Section)"
  # Here-strings, not pipes: grep -q stops reading, and pipefail would
  # count dpkg-deb's broken pipe as the failure.
  grep -q '^Seed e6c9f8b0 maintainers <maintainers@' <<<"$(field Maintainer)" || fail "Maintainer: $(field Maintainer)"
  grep -q '^ .*JP conversations' <<<"$(field Description)" || fail "no long Description: $(field Description)"
  depends=$(field Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//')
  for want in git 'libgit2-[0-9.]*' 'libdeflate[0-9]*' 'libssl[0-9.]*' 'zlib1g'; do
    grep -qx "$want" <<<"$depends" || fail "Depends lacks $want: $(field Depends)"
  done
}
case_ "its version is git jpblob version's; Depends names git, libgit2, libdeflate, OpenSSL and zlib" control

clone_commit_verify() {
  git init -q --bare "$TEST_ROOT/server.git"
  new_installed_repo
  local env
  env=$(git jpblob env)
  grep -qx "binary=$ROOT/usr/bin/git-jpblob" <<<"$env" || fail "env: $env"
  write_conversation 1-packaged "the packaged binary's output"
  git add .jp/conversations/1-packaged
  git commit -q -m "a conversation"
  git remote add origin "$TEST_ROOT/server.git"
  git push -q origin main
  git clone -q "$TEST_ROOT/server.git" "$TEST_ROOT/clone"
  cmp .jp/conversations/1-packaged/events.json "$TEST_ROOT/clone/.jp/conversations/1-packaged/events.json" ||
    fail "the clone's conversation differs"
  cd "$TEST_ROOT/clone"
  grep -q '"$blob":"' <<<"$(git show HEAD:.jp/conversations/1-packaged/events.json)" || fail "the commit holds no reference"
  git jpblob verify --history > "$TEST_ROOT/out" || fail "verify: $(cat "$TEST_ROOT/out")"
  grep -q "all good" "$TEST_ROOT/out" || fail "verify: $(cat "$TEST_ROOT/out")"
  # A CI job's check of the first push, as docs/TEAM.md's jobs run it.
  "$ROOT/usr/share/git-jpblob/ci-verify.sh" 0000000000000000000000000000000000000000 HEAD main > "$TEST_ROOT/out" 2>&1 ||
    fail "ci-verify.sh: $(cat "$TEST_ROOT/out")"
}
case_ "the packaged binary commits, pushes, clones and verifies a conversation" clone_commit_verify

manual() {
  local out
  out=$(git jpblob gc --help 2>&1) || fail "gc --help: $out"
  grep -q "^NAME" <<<"$out" && grep -q "git-jpblob-gc \+- " <<<"$out" || fail "gc --help shows no page: $out"
  [ "$(man -w git-jpblob-gc)" = "$ROOT/usr/share/man/man1/git-jpblob-gc.1" ] || fail "man finds $(man -w git-jpblob-gc)"
  out=$(man git-jpblob 2>&1) || fail "man git-jpblob: $out"
  grep -q "$(field Version)" <<<"$out" || fail "the overview page does not name version $(field Version)"
}
case_ "git jpblob gc --help shows the packaged manual page, which names the version" manual

pass
