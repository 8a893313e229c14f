#!/usr/bin/env bash
# Configures and builds git-jpblob into build/ (Release, tests included).
# Usage: install/build.sh [extra cmake options…]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > /dev/null
cmake --build "$root/build" -j "$(nproc)"
