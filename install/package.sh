#!/usr/bin/env bash
# Builds git-jpblob's Debian package on Debian 12: installs the build's
# dependencies, builds a Release binary into build/ (tests off, as
# install/setup.sh does), and packs it with CPack's DEB generator
# (cmake/package.cmake). The last line printed is the .deb's path; install
# it with `sudo apt install ./git-jpblob_<version>_amd64.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

"$root/install/deps.sh"
"$root/install/build.sh" -DJPBLOB_TESTS=OFF
# Only the package's own file is looked for: build/ may hold an older one.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpack -G DEB --config "$root/build/CPackConfig.cmake" -B "$out" > "$out/cpack.log" 2>&1 || {
  cat "$out/cpack.log" >&2
  exit 1
}
debs=("$out"/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || {
  echo "package.sh: cpack made no single .deb in $out" >&2
  cat "$out/cpack.log" >&2
  exit 1
}
mv -f "${debs[0]}" "$root/build/"
echo "$root/build/$(basename "${debs[0]}")"
