// What install, uninstall and export share of install's knowledge: the
// config entries it writes, and the .gitattributes lines it knows as its
// own. Internal to install/ (installer.cpp defines them).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/git/git_cli.hpp"

namespace jpblob {

// The git config entries install writes (key, value), each naming
// git-jpblob as found on PATH.
std::vector<std::pair<std::string, std::string>> config_entries();

// The lines of a text, each with its '\n' when it has one (only the last
// may lack it), so that joining them gives back the same bytes.
std::vector<std::string> split_lines(const std::string& text);
std::string without_newline(const std::string& line);

// True when `line` (without its newline) is one install writes, or one an
// earlier version wrote (legacy_attribute_lines).
bool is_our_attribute_line(const std::string& line);

// Where install records that it ended the user's last line of
// .gitattributes (local config: .gitattributes belongs to the repository,
// whatever the scope), so that uninstall gives back the original bytes.
inline constexpr const char* kNewlineKey = "jpblob.attributesNewlineAdded";

// The repository around cwd, if any, asked of git itself so that
// core.hooksPath and linked worktrees resolve exactly as git resolves them.
std::optional<RepoLayout> find_repo(const std::filesystem::path& cwd);

// install in a repository where uninstall recorded
// jpblob.autoInstallHook=false (uninstaller.cpp) takes that back.
void forget_uninstall_record(const RepoLayout& repo, std::vector<std::string>& done);

}  // namespace jpblob
