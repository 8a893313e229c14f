# bash completion for git-jpblob: `git jpblob <TAB>` and `git-jpblob <TAB>`.
#
# git's own completion calls _git_jpblob for `git jpblob …`, after
# bash-completion loads this file (installed as
# share/bash-completion/completions/git-jpblob) on demand. It runs with
# git's variables set: cur, prev, words, cword and __git_cmd_idx.

# The commands and each command's options come from git-jpblob itself,
# which makes them from its one definition (cli/commands.json), as git's
# completion asks `git <command> --git-completion-helper`: nothing here can
# drift from the program. Each answer is kept for the shell's life.
__git_jpblob_commands=

__git_jpblob_command_list () {
	[ -n "$__git_jpblob_commands" ] ||
		__git_jpblob_commands=$(git-jpblob --list-cmds 2>/dev/null | tr '\n' ' ')
	echo "$__git_jpblob_commands"
}

# The options of one command (each ending in "=" when it takes a value),
# or the subcommands of one that has them ("artifacts").
__git_jpblob_options () {
	local var="__git_jpblob_opts_${1//[^a-zA-Z0-9]/_}"
	if [ -z "${!var+set}" ]; then
		# shellcheck disable=SC2086 # "artifacts gc" is two words
		printf -v "$var" '%s' "$(git-jpblob $1 --git-completion-helper 2>/dev/null)"
	fi
	echo "${!var}"
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
	subcommand=$(__git_find_on_cmdline "$(__git_jpblob_command_list)")
	if [ -z "$subcommand" ]; then
		case "$cur" in
		-*) __gitcomp "--help --version" ;;
		*)  __gitcomp "$(__git_jpblob_command_list)" ;;
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
		local sub=""
		[ "$subcommand" != artifacts ] || sub=$(__git_find_on_cmdline "$(__git_jpblob_options artifacts)")
		__gitcomp "$(__git_jpblob_options "$subcommand${sub:+ $sub}") --help"
		;;
	*)
		case "$subcommand" in
		files|print|purge-list) __gitcomp_nl "$(__git_jpblob_conversations)" ;;
		help) __gitcomp "$(__git_jpblob_command_list)" ;;
		artifacts)
			[ -n "$(__git_find_on_cmdline "$(__git_jpblob_options artifacts)")" ] ||
				__gitcomp "$(__git_jpblob_options artifacts)" ;;
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
