#!/usr/bin/env bash
# The server's line: `git jpblob pre-receive` in a bare repository's
# pre-receive hook, behind real servers this suite starts on 127.0.0.1:
# `git daemon` with receive-pack enabled, and `git http-backend` behind
# lighttpd. A push of a commit lacking its blob is refused (the objects sit
# in git's quarantine while the hook runs), naming commit, file, digest and
# the mend; the mended push goes through; a push on top of a broken commit
# the server already holds is judged by what it adds; normal and
# --filter=blob:none clones give back every conversation byte for byte.
# The daemon's client keeps its store checked out, the web server's is a
# lean work tree. Every server is stopped by its PID when the suite ends.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "each client sets its own work-tree mode (one --no-lean, one --lean), so the suite covers both in one run"

use_servers

# Waits until `git ls-remote` reaches $1: the server is up.
wait_for_server() {
  local tries=0
  until git ls-remote "$1" > /dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || fail "no server answers at $1: $(cat "$TEST_ROOT"/*.log 2>/dev/null | tail -5)"
    sleep 0.05
  done
}

# A bare repository whose pre-receive hook is the README's line.
new_server_repo() {
  local dir="$TEST_ROOT/srv/$1"
  git init -q --bare "$dir"
  git -C "$dir" config http.receivepack true
  git -C "$dir" config uploadpack.allowFilter true
  git -C "$dir" config uploadpack.allowAnySHA1InWant true
  printf '#!/bin/sh\nexec git jpblob pre-receive\n' > "$dir/hooks/pre-receive"
  chmod +x "$dir/hooks/pre-receive"
}
mkdir -p "$TEST_ROOT/srv"
new_server_repo daemon.git
new_server_repo http.git

port=$(free_port)
git daemon --base-path="$TEST_ROOT/srv" --export-all --enable=receive-pack --reuseaddr \
  --listen=127.0.0.1 --port="$port" --informative-errors "$TEST_ROOT/srv" 2> "$TEST_ROOT/daemon.log" &
SERVER_PIDS+=($!)
DAEMON_URL="git://127.0.0.1:$port/daemon.git"
wait_for_server "$DAEMON_URL"

HTTP_URL=""
if command -v lighttpd > /dev/null; then
  port=$(free_port)
  mkdir -p "$TEST_ROOT/www"
  cat > "$TEST_ROOT/lighttpd.conf" <<CONF
server.modules = ("mod_alias", "mod_cgi", "mod_setenv")
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$TEST_ROOT/www"
server.errorlog = "$TEST_ROOT/lighttpd.log"
alias.url = ("/git" => "$(git --exec-path)/git-http-backend")
\$HTTP["url"] =~ "^/git" {
  cgi.assign = ("" => "")
  setenv.add-environment = (
    "GIT_PROJECT_ROOT" => "$TEST_ROOT/srv",
    "GIT_HTTP_EXPORT_ALL" => "",
    "PATH" => "$PATH",
    "HOME" => "$HOME",
    "GIT_CONFIG_NOSYSTEM" => "1"
  )
}
CONF
  lighttpd -D -f "$TEST_ROOT/lighttpd.conf" 2> "$TEST_ROOT/lighttpd-start.log" &
  SERVER_PIDS+=($!)
  HTTP_URL="http://127.0.0.1:$port/git/http.git"
  wait_for_server "$HTTP_URL"
fi

# The pusher's clone: $1 names it, $2 is the server's URL, $3 install's
# lean option.
client() {
  new_installed_repo "client-$1"
  git jpblob install "$3" > /dev/null
  git remote add origin "$2"
}
client daemon "$DAEMON_URL" --no-lean
[ -z "$HTTP_URL" ] || client http "$HTTP_URL" --lean

good_push() {
  cd "$TEST_ROOT/client-$1"
  commit_conversation 1-good "output the server accepts ($1)"
  git push -q origin main 2> "$TEST_ROOT/err" || fail "a good push was refused: $(cat "$TEST_ROOT/err")"
}

missing_blob_refused() {
  cd "$TEST_ROOT/client-$1"
  local text="never committed ($1)" digest commit before
  digest=$(printf '%s' "$text" | sha256sum | cut -c1-64)
  write_conversation 2-unverified "$text"
  git add .jp/conversations/2-unverified
  git commit -q --no-verify -m "no blob"
  commit=$(git rev-parse --short=12 HEAD)
  before=$(git ls-remote origin refs/heads/main)
  # --no-verify: as a client without git-jpblob's pre-push hook would push.
  if git push -q --no-verify origin main 2> "$TEST_ROOT/err"; then fail "the server accepted it"; fi
  grep -q "remote: git-jpblob: commit $commit: .jp/conversations/2-unverified/events.json references blob $digest, which that commit does not contain" \
    "$TEST_ROOT/err" || fail "message: $(cat "$TEST_ROOT/err")"
  grep -q 'git jpblob repair' "$TEST_ROOT/err" || fail "the message does not say how to mend it: $(cat "$TEST_ROOT/err")"
  if grep -q -e '--no-verify' "$TEST_ROOT/err"; then fail "the message suggests --no-verify"; fi
  [ "$(git ls-remote origin refs/heads/main)" = "$before" ] || fail "the server's branch moved"
}

mended_push() {
  cd "$TEST_ROOT/client-$1"
  git jpblob repair > /dev/null  # writes the blob again and stages it, lean or not
  git commit -q --amend --no-edit
  git push -q origin main 2> "$TEST_ROOT/err" || fail "the mended push was refused: $(cat "$TEST_ROOT/err")"
  [ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse HEAD)" ] || fail "the server did not take it"
}

# A broken commit the server took before its hook was installed: a push on
# top that does not touch it is judged by what it adds, and a commit that
# holds the missing blob mends it.
held_broken_commit() {
  cd "$TEST_ROOT/client-$1"
  local hook="$TEST_ROOT/srv/$1.git/hooks/pre-receive"
  mv "$hook" "$hook.off"
  write_conversation 3-held "taken before the hook ($1)"
  git add .jp/conversations/3-held
  git commit -q --no-verify -m "taken before the hook"
  git push -q --no-verify origin main
  mv "$hook.off" "$hook"
  commit_conversation 4-teammate "a teammate's own work ($1)"
  git push -q origin main 2> "$TEST_ROOT/err" || fail "a push on top of the held commit was refused: $(cat "$TEST_ROOT/err")"
  # What the messages name: repair stages the blob from its copy (a lean
  # tree has no blob file to add), the next commit holds it.
  git jpblob repair > /dev/null
  git ls-files --error-unmatch "$(blob_of "taken before the hook ($1)")" > /dev/null 2>&1 || fail "repair did not stage the blob"
  git commit -q -m "the blob the held commit lacks"
  git push -q origin main 2> "$TEST_ROOT/err" || fail "the mending push was refused: $(cat "$TEST_ROOT/err")"
  [ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse HEAD)" ] || fail "the server did not take it"
  assert_blobs_committed
  # CI's check of a pushed range (README, "CI on a hosted server") looks at that range only.
  git jpblob verify --history HEAD~1..HEAD > "$TEST_ROOT/out" || fail "the mending commit did not verify: $(cat "$TEST_ROOT/out")"
  grep -q "in 1 commit(s): all good" "$TEST_ROOT/out" || fail "verify --history HEAD~1..HEAD: $(cat "$TEST_ROOT/out")"
  if git jpblob verify --history > "$TEST_ROOT/out"; then fail "verify --history passed the held broken commit"; fi
}

# $2: extra clone options.
clone_byte_for_byte() {
  local dest="$TEST_ROOT/clone-$1${2:+-partial}"
  git clone -q ${2:+"$2"} "$3" "$dest" 2> "$TEST_ROOT/err" || fail "clone failed: $(cat "$TEST_ROOT/err")"
  diff -r "$TEST_ROOT/client-$1/.jp/conversations" "$dest/.jp/conversations" > /dev/null ||
    fail "the clone's conversations differ from the pusher's"
  [ -z "$2" ] || [ "$(git -C "$dest" config remote.origin.partialclonefilter)" = "blob:none" ] ||
    fail "not a partial clone"
  cd "$dest"
  assert_no_changes
}

for_server() {
  local name=$1 url=$2
  case_ "$name: a good push is accepted" good_push "$name"
  case_ "$name: a commit lacking its blob is refused in quarantine, naming commit, file, digest and git jpblob repair" \
    missing_blob_refused "$name"
  case_ "$name: the mended commit is accepted" mended_push "$name"
  case_ "$name: a broken commit the server holds does not block pushes on top, and a commit holding its blob mends it" \
    held_broken_commit "$name"
  case_ "$name: a clone gives back every conversation byte for byte" clone_byte_for_byte "$name" "" "$url"
  case_ "$name: a --filter=blob:none clone gives back every conversation byte for byte" \
    clone_byte_for_byte "$name" "--filter=blob:none" "$url"
}
for_server daemon "$DAEMON_URL"
if [ -n "$HTTP_URL" ]; then
  for_server http "$HTTP_URL"
else
  echo "skip - http: lighttpd is not installed (install/deps.sh)"
fi
pass
