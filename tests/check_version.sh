#!/usr/bin/env bash
# ctest `version`: the version is set once, in CMakeLists.txt's project(),
# and everything a user reads it from agrees: CHANGELOG.md's newest entry,
# `git-jpblob version` and `--version` (the package takes it from the same
# project() and e2e package compares them), the pre-commit framework
# recipe's `rev:`, the release's tag v<version>, and the package file the
# docs name.
# Usage: check_version.sh <project version> <git-jpblob binary> <source dir>
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: check_version.sh <version> <binary> <source dir>" >&2; exit 2; }
version=$1 binary=$2 src=$3
failed=0
problem() {
  echo "version: $*" >&2
  failed=1
}

# The newest entry is the first second-level heading; it must be this
# version's, dated: "## [1.2.3] - 2026-11-28".
newest=$(grep -m1 '^## ' "$src/CHANGELOG.md" || true)
if [[ ! $newest =~ ^'## ['([^]]+)'] - '[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
  problem "CHANGELOG.md's newest heading is '$newest', not '## [$version] - <YYYY-MM-DD>'"
elif [ "${BASH_REMATCH[1]}" != "$version" ]; then
  problem "CHANGELOG.md's newest entry is ${BASH_REMATCH[1]}, the project's version (CMakeLists.txt) $version"
fi

for args in version --version; do
  first=$("$binary" "$args")
  first=${first%%$'\n'*}
  [ "$first" = "git-jpblob $version" ] || problem "\`git-jpblob $args\` prints '$first', not 'git-jpblob $version'"
done

# Each `rev:` the docs give for this repository names the release tag.
while IFS= read -r line; do
  [ "$(sed -E 's/.*rev: *([^ ]*).*/\1/' <<<"$line")" = "v$version" ] || problem "$line: the release's tag is v$version"
done < <(grep -n -H -E '^\s*rev: ' "$src/README.md" "$src/docs/TEAM.md" || true)
grep -q -E "^\s*rev: v$version( |\$)" "$src/README.md" || problem "README.md's pre-commit recipe names no 'rev: v$version'"

# The package file the docs tell a user to install is this version's.
while IFS= read -r hit; do
  [ "${hit##*:}" = "git-jpblob_${version}_" ] || problem "$hit: the package of this version is git-jpblob_${version}_<arch>.deb"
done < <(grep -o -H -E 'git-jpblob_[^_ ]+_' "$src/README.md" "$src/docs/TEAM.md" || true)

[ "$failed" -eq 0 ] && echo "version $version: CHANGELOG.md, git-jpblob version, the pre-commit recipe and the package's name agree"
exit "$failed"
