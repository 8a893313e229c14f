#!/usr/bin/env bash
# git-jpblob is found on PATH, as git-lfs is (issue 26, item 5): the config
# and the hooks name `git-jpblob`, never this machine's path to it, so a
# binary that moves (a package upgrade, a new prefix) keeps working; a hook
# that cannot find it says so in one line; install warns when the binary it
# runs as is not the one git will find; and what an earlier install wrote
# with an absolute path is upgraded in place, and still uninstalled.
. "$(dirname "$0")/lib.sh"
only_in_mode lean "it checks how install names the binary and how hooks find it on PATH, which no work-tree mode changes"
BIN_DIR=$(dirname "$JPBLOB_BIN")
# PATH without any folder holding a git-jpblob: git and the rest of the system.
BARE_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r d; do
  [ -n "$d" ] && [ ! -e "$d/git-jpblob" ] && printf '%s\n' "$d"
done | paste -sd: -)

# What an earlier install wrote: config entries and hooks with the
# absolute, quoted path of the binary.
old_config() {  # scope
  git config "$1" filter.jpblob.process "'$JPBLOB_BIN' filter-process"
  git config "$1" filter.jpblob.clean "'$JPBLOB_BIN' clean %f"
  git config "$1" filter.jpblob.smudge "'$JPBLOB_BIN' smudge %f"
  git config "$1" filter.jpblob.required true
  git config "$1" diff.jpblob.textconv "'$JPBLOB_BIN' textconv"
  git config "$1" merge.jpblob.name "JP conversations and blobs (git-jpblob)"
  git config "$1" merge.jpblob.driver "'$JPBLOB_BIN' merge %O %A %B %L %P"
}
old_hook() {  # folder name
  cat > "$1/$2" <<HOOK
#!/bin/sh
# git-jpblob $2 hook: stages the blobs each committed conversation
# references and verifies them. \`git jpblob uninstall\` removes it and puts
# back the hook it chained, if any.
chained="\$(dirname "\$0")/$2.jpblob-chained"
if [ -x "\$chained" ]; then
  "\$chained" "\$@" || exit \$?
fi
exec '$JPBLOB_BIN' $2 "\$@"
HOOK
  chmod +x "$1/$2"
}

new_installed_repo
repo=$PWD

config_names_the_program() {
  local key want
  while IFS='|' read -r key want; do
    [ "$(git config --global "$key")" = "$want" ] || fail "$key is '$(git config --global "$key")', not '$want'"
  done <<'EOF'
filter.jpblob.process|git-jpblob filter-process
filter.jpblob.clean|git-jpblob clean %f
filter.jpblob.smudge|git-jpblob smudge %f
filter.jpblob.required|true
diff.jpblob.textconv|git-jpblob textconv
merge.jpblob.driver|git-jpblob merge %O %A %B %L %P
EOF
  ! git config --global --get-regexp '^(filter|diff|merge)\.jpblob\.' | grep -qF "$BIN_DIR" ||
    fail "an absolute path in the config: $(git config --global --get-regexp jpblob)"
}
case_ "install writes git-jpblob, not its absolute path, into the git config" config_names_the_program

hooks_name_the_program() {
  local hook
  for hook in pre-commit pre-push post-checkout; do
    [ -x ".git/hooks/$hook" ] || fail "no $hook hook"
    ! grep -qF "$BIN_DIR" ".git/hooks/$hook" || fail "$hook names the absolute path: $(cat ".git/hooks/$hook")"
    grep -q "git-jpblob $hook" ".git/hooks/$hook" || fail "$hook does not run git-jpblob $hook: $(cat ".git/hooks/$hook")"
  done
}
case_ "the hooks run git-jpblob from PATH" hooks_name_the_program

binary_moves() {
  local old="$TEST_ROOT/prefix-old/bin" new="$TEST_ROOT/prefix-new/bin" dir="$TEST_ROOT/moved"
  mkdir -p "$old" "$new"
  cp "$JPBLOB_BIN" "$old/git-jpblob"
  git init -q "$dir" && cd "$dir"
  PATH="$old:$BARE_PATH" git-jpblob install > /dev/null
  PATH="$old:$BARE_PATH" git add .gitattributes
  PATH="$old:$BARE_PATH" git commit -qm attributes
  # A package upgrade: the old prefix is gone, the binary is elsewhere.
  mv "$old/git-jpblob" "$new/git-jpblob"
  export PATH="$new:$BARE_PATH"
  write_conversation 1-moved "output written after the binary moved"
  git add .jp/conversations
  git commit -qm moved
  assert_blobs_committed
  git status --porcelain > /dev/null
  git clone -q "$dir" "$TEST_ROOT/moved-clone"
  cmp "$TEST_ROOT/moved-clone/.jp/conversations/1-moved/events.json" .jp/conversations/1-moved/events.json ||
    fail "the clone did not restore the conversation"
}
case_ "after the binary moves, add, commit, status and clone still work" binary_moves

hook_not_on_path() {
  local out rc lines
  cd "$repo"
  echo change >> notes.txt
  git add notes.txt
  set +e
  out=$(PATH="$BARE_PATH" git commit -qm "no git-jpblob on PATH" 2>&1)
  rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "the commit went through without its check"
  lines=$(printf '%s\n' "$out" | grep -c .)
  [ "$lines" -eq 1 ] || fail "not one line: $out"
  printf '%s\n' "$out" | grep >/dev/null "git-jpblob.*not.*PATH" || fail "does not say git-jpblob is not on PATH: $out"
  printf '%s\n' "$out" | grep >/dev/null -- "--no-verify\|install" || fail "names no way out: $out"
  git reset -q notes.txt
}
case_ "a hook whose git-jpblob is not on PATH fails with one clear line" hook_not_on_path

install_warns_when_shadowed() {
  local shadow="$TEST_ROOT/shadow" out
  mkdir -p "$shadow"
  printf '#!/bin/sh\nexit 0\n' > "$shadow/git-jpblob"
  chmod +x "$shadow/git-jpblob"
  cd "$repo"
  out=$(PATH="$shadow:$PATH" "$JPBLOB_BIN" install 2>&1)
  printf '%s\n' "$out" | grep >/dev/null "warning:.*$shadow/git-jpblob" || fail "no warning naming the shadowing binary: $out"
  out=$(PATH="$BARE_PATH" "$JPBLOB_BIN" install 2>&1)
  printf '%s\n' "$out" | grep >/dev/null "warning:.*not on PATH" || fail "no warning when not on PATH: $out"
  out=$("$JPBLOB_BIN" install 2>&1)
  ! printf '%s\n' "$out" | grep >/dev/null "warning" || fail "a warning when it is the first on PATH: $out"
}
case_ "install warns when the binary it runs as is not the first git-jpblob on PATH" install_warns_when_shadowed

upgrade_in_place() {
  local dir="$TEST_ROOT/upgrade" out hook
  git init -q "$dir" && cd "$dir"
  git jpblob install --local > /dev/null
  old_config --local
  for hook in pre-commit pre-push post-checkout; do old_hook .git/hooks "$hook"; done
  out=$(git jpblob install --local)
  [ "$(git config --local filter.jpblob.process)" = "git-jpblob filter-process" ] ||
    fail "process not upgraded: $(git config --local filter.jpblob.process)"
  [ "$(git config --local merge.jpblob.driver)" = "git-jpblob merge %O %A %B %L %P" ] || fail "merge driver not upgraded"
  for hook in pre-commit pre-push post-checkout; do
    ! grep -qF "$JPBLOB_BIN" ".git/hooks/$hook" || fail "$hook still names the absolute path"
    [ ! -e ".git/hooks/$hook.jpblob-chained" ] || fail "the old $hook was chained, not upgraded"
  done
  printf '%s\n' "$out" | grep >/dev/null "PATH" || fail "install does not say it now names git-jpblob on PATH: $out"
  git jpblob install --local | grep -qx "Nothing to change." || fail "a second install changed something"
}
case_ "install upgrades an earlier install's absolute config and hooks in place" upgrade_in_place

uninstall_either_form() {
  local dir="$TEST_ROOT/uninstall-old" hook
  git init -q "$dir" && cd "$dir"
  git jpblob install --local > /dev/null
  old_config --local
  for hook in pre-commit pre-push post-checkout; do old_hook .git/hooks "$hook"; done
  git jpblob uninstall --local > /dev/null
  [ -z "$(git config --local --get-regexp '^(filter|diff|merge)\.jpblob\.' || true)" ] ||
    fail "uninstall left: $(git config --local --get-regexp jpblob)"
  for hook in pre-commit pre-push post-checkout; do [ ! -e ".git/hooks/$hook" ] || fail "uninstall left $hook"; done
  git jpblob install --local > /dev/null
  git jpblob uninstall --local > /dev/null
  [ -z "$(git config --local --get-regexp '^(filter|diff|merge)\.jpblob\.' || true)" ] || fail "uninstall left the new form"
  for hook in pre-commit pre-push post-checkout; do [ ! -e ".git/hooks/$hook" ] || fail "uninstall left new $hook"; done
}
case_ "uninstall removes what an earlier install wrote with an absolute path, and the new form" uninstall_either_form

pass
