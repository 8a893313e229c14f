# bash completion for git-jpblob: `git jpblob <TAB>` and `git-jpblob <TAB>`.
#
# git's own completion calls _git_jpblob for `git jpblob …`, after
# bash-completion loads this file (installed as
# share/bash-completion/completions/git-jpblob) on demand. It runs with
# git's variables set: cur, prev, words, cword and __git_cmd_idx.

__git_jpblob_commands="install uninstall clean smudge filter-process pre-commit pre-push pre-receive post-checkout purge-retired gc verify
files purge-list print cat store run artifacts migrate checkout repair stats textconv merge status ls-files env version help"

# The flags of one command, each ending in "=" when it takes a value.
__git_jpblob_flags () {
	case "$1" in
	install)                echo "--local --global --system --force --lean --no-lean" ;;
	uninstall)              echo "--local --global --system" ;;
	clean|smudge|filter-process) echo "--store=" ;;
	gc)                     echo "--dry-run --prune= --store= --json" ;;
	verify)                 echo "--history --store= --json" ;;
	cat)                    echo "--session= --offset= --limit=" ;;
	store)                  echo "--store=" ;;
	run)                    echo "--session= --tool= --threshold= --json" ;;
	artifacts)              echo "--session= --expired --dry-run --json" ;;
	migrate|checkout)       echo "--dry-run" ;;
	stats)                  echo "--json --store=" ;;
	ls-files|env|status|purge-list) echo "--json" ;;
	esac
}

# The ids of the work tree's conversations, for files, print and purge-list.
__git_jpblob_conversations () {
	local top dir
	top=$(git rev-parse --show-toplevel 2>/dev/null) || return 0
	for dir in "$top"/.jp/conversations/*/; do
		[ -d "$dir" ] || continue
		dir=${dir%/}
		dir=${dir##*/}
		echo "${dir%%-*}"
	done
}

_git_jpblob () {
	local subcommand
	subcommand=$(__git_find_on_cmdline "$__git_jpblob_commands")
	if [ -z "$subcommand" ]; then
		case "$cur" in
		-*) __gitcomp "--help --version" ;;
		*)  __gitcomp "$__git_jpblob_commands" ;;
		esac
		return
	fi
	case "$cur" in
	--*=*)
		# A value (a folder, a session file, a number): bash's default
		# completion takes over.
		COMPREPLY=()
		;;
	-*)
		__gitcomp "$(__git_jpblob_flags "$subcommand") --help"
		;;
	*)
		case "$subcommand" in
		files|print|purge-list) __gitcomp_nl "$(__git_jpblob_conversations)" ;;
		help) __gitcomp "$__git_jpblob_commands" ;;
		artifacts) [ -n "$(__git_find_on_cmdline "gc stats")" ] || __gitcomp "gc stats" ;;
		ls-files) __git_complete_refs ;;
		*) COMPREPLY=() ;;  # files: bash's default completion takes over
		esac
		;;
	esac
}

# `git-jpblob <TAB>` run directly: git's completion wraps _git_jpblob when it
# is loaded (bash-completion loads it on demand).
if ! declare -F __git_complete > /dev/null 2>&1 && declare -F __load_completion > /dev/null 2>&1; then
	__load_completion git
fi
if declare -F __git_complete > /dev/null 2>&1; then
	__git_complete git-jpblob _git_jpblob
fi
