#!/usr/bin/env bash
# Command one: on a fresh Debian 12 machine, install the dependencies, build,
# install git-jpblob on PATH and run the demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

"$root/install/deps.sh"
"$root/install/build.sh" -DJPBLOB_TESTS=OFF
$sudo cmake --install "$root/build" --prefix /usr/local > /dev/null
# The manual page is in /usr/local/share/man/man1, where man looks already;
# indexing it (for apropos) takes a moment, so only that folder.
if command -v mandb > /dev/null; then $sudo mandb -q /usr/local/share/man > /dev/null 2>&1 || true; fi
echo "installed $(command -v git-jpblob): $(git-jpblob --version)"
"$root/install/demo.sh"
