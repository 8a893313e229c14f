#!/usr/bin/env bash
# The check a hosted server's CI job runs on each push (docs/TEAM.md, "CI on
# a hosted server"): what `git jpblob pre-receive` refuses on a server you
# run, a pushed commit that lacks a blob one of its conversations
# references or holds a corrupt one.
#
# Usage: ci-verify.sh <before> <after> [<branch>]
#   <before>, <after>  the branch's tips before and after the push (GitHub:
#                      github.event.before and .after; GitLab:
#                      CI_COMMIT_BEFORE_SHA and CI_COMMIT_SHA)
#   <branch>           the branch pushed; by default $GITHUB_REF_NAME or
#                      $CI_COMMIT_REF_NAME, which the CI sets
# Run it in a clone that holds every branch of the server (GitHub's
# actions/checkout with fetch-depth: 0; GitLab with GIT_DEPTH 0 and a fetch
# of refs/heads/*), or in the server's bare repository itself.
#
# Which commits: <before>..<after>, the commits the push added over the old
# tip. A new branch's <before> is all zeros, and a force push's old tip may
# be in no branch the clone fetched: then the commits of <after> that no
# other branch holds, which were checked when they were pushed there.
# Exits as verify does: 0 all good (or a deleted branch: nothing to check),
# 1 a problem found, 128 a failure; 129 a usage error.
set -euo pipefail

usage() {
  echo "usage: ci-verify.sh <before> <after> [<branch>]${1:+: $1}" >&2
  exit 129
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
before=$1 after=$2 branch=${3:-${GITHUB_REF_NAME:-${CI_COMMIT_REF_NAME:-}}}
branch=${branch#refs/heads/}
all_zeros() { [[ $1 =~ ^0+$ ]]; }
is_commit() { git rev-parse --verify --quiet "$1^{commit}" > /dev/null; }

if all_zeros "$after"; then
  echo "ci-verify: the push deleted ${branch:-a branch}: nothing to check"
  exit 0
fi
is_commit "$after" || {
  echo "ci-verify: $after is no commit this repository holds (a clone needs fetch-depth 0)" >&2
  exit 128
}

if ! all_zeros "$before" && is_commit "$before"; then
  revisions=("$before..$after")
else
  [ -n "$branch" ] || usage "a new branch (or a force push) needs <branch> to tell the other branches"
  # verify hands its revisions to git rev-list after --end-of-options, so
  # the other branches are excluded one by one (^<tip>), not by --remotes.
  # A symbolic ref (origin/HEAD) is skipped: it may name the branch pushed.
  mapfile -t remotes < <(git remote)
  pushed() {
    local remote
    [ "$1" = "refs/heads/$branch" ] && return 0
    for remote in "${remotes[@]}"; do [ "$1" = "refs/remotes/$remote/$branch" ] && return 0; done
    return 1
  }
  revisions=("$after")
  declare -A excluded=()  # a tip once, though a branch and its remote-tracking ref share it
  while IFS=$'\t' read -r ref tip symref; do
    if [ -z "$symref" ] && ! pushed "$ref" && [ -z "${excluded[$tip]:-}" ]; then
      excluded[$tip]=1
      revisions+=("^$tip")
    fi
  done < <(git for-each-ref --format='%(refname)%09%(objectname)%09%(symref)' refs/heads refs/remotes)
fi
echo "ci-verify: checking the commits of git rev-list ${revisions[*]}"
exec git jpblob verify --history "${revisions[@]}"
