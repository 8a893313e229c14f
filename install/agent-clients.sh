#!/usr/bin/env bash
# Installs the coding agents whose session files git-jpblob keeps small,
# from the npm registry into build/agent-clients, for the e2e test that
# loads a cleaned session with the real client (tests/e2e/
# session_real_client.sh): oh-my-pi (@oh-my-pi/pi-coding-agent, TypeScript
# run by bun) and bun itself, whose npm package ships its binary.
# Best effort: the suite skips when they are missing, so a failed install
# warns and never fails the caller. Safe to run again.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/build/agent-clients"
# 18.2.3: the newest release whose @oh-my-pi/* dependencies are all
# published (18.3.4 names an @oh-my-pi/omp-stats that is not).
omp_version=18.2.3
have_bun() { ls "$dest"/node_modules/@oven/bun-linux-*/bin/bun > /dev/null 2>&1; }
have_omp() {
  [ -f "$dest/node_modules/@oh-my-pi/pi-coding-agent/package.json" ] &&
    grep -q "\"version\": \"$omp_version\"" "$dest/node_modules/@oh-my-pi/pi-coding-agent/package.json"
}
if have_bun && have_omp; then exit 0; fi
command -v npm > /dev/null || { echo "agent-clients: npm is missing; the real-client e2e test will skip" >&2; exit 0; }
mkdir -p "$dest"
# --ignore-scripts: nothing of theirs runs at install; bun's binary comes in
# its platform package (@oven/bun-linux-*), found there by the test.
if ! npm install --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error \
    "@oh-my-pi/pi-coding-agent@$omp_version" bun@1 > /dev/null; then
  echo "agent-clients: npm could not install oh-my-pi and bun; the real-client e2e test will skip" >&2
fi
exit 0
