#!/usr/bin/env bash
# Installs husky and lefthook from the npm registry into build/hook-managers,
# for the e2e tests of the hook managers (the pre-commit framework comes
# from Debian, in deps.sh), and through install/agent-clients.sh oh-my-pi
# and bun into build/agent-clients. Safe to run again: npm skips what is
# there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/build/hook-managers"
# The coding agents for the real-client session test, beside them (best
# effort: that test skips without them).
"$root/install/agent-clients.sh"
mkdir -p "$dest"
if [ -x "$dest/node_modules/.bin/husky" ] && [ -x "$dest/node_modules/.bin/lefthook" ]; then exit 0; fi
# --ignore-scripts: lefthook's postinstall would run `lefthook install` in the
# repository around the current folder (this one); its binary needs no script.
npm install --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error husky@9 lefthook@1 > /dev/null
