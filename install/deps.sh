#!/usr/bin/env bash
# Installs every package git-jpblob needs to build and test, on Debian 12.
# Safe to run again: apt-get skips what is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgit2-dev libssl-dev zlib1g-dev
  nlohmann-json3-dev libcli11-dev
  libdeflate-dev  # blob compression, two to three times faster than zlib (README, "Libraries")
  libgtest-dev libgmock-dev
  clang libclang-rt-dev
  python3 bsdutils  # bsdutils: script(1), a terminal for the e2e tests
  git-lfs  # the e2e tests of .jp/blobs kept in git-lfs
  man-db  # `git help jpblob` and `git jpblob --help` show the manual page
  pre-commit  # the hook managers' e2e tests: the pre-commit framework
  lighttpd  # e2e servers: git http-backend behind a web server, for the pre-receive hook
  git-filter-repo  # e2e purge: the README's recipe for removing a leaked conversation from history
  dpkg-dev  # dpkg-shlibdeps: the Debian package's Depends (install/package.sh, e2e package)
)
# npm, for husky and lefthook (install/hook-managers.sh), unless a Node.js
# is already there.
command -v npm > /dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
