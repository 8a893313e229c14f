// The lean work tree's part of `install` (installer.cpp): this clone's
// conversion either way, the scope's jpblob.lean, and the opt-in clone
// template. Internal to install/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/git/git_cli.hpp"
#include "installer.hpp"

namespace jpblob {

// Takes our clone template back out of init.templateDir at `scope`, when it
// is ours; another template is left alone. Returns the line to print.
std::optional<std::string> remove_lean_template(const GitCli& git, ConfigScope scope);

// What install does for lean work trees (see install_lean.cpp); the lines to print.
std::vector<std::string> install_lean(const std::filesystem::path& cwd, const std::optional<RepoLayout>& repo,
                                      const InstallOptions& options);

}  // namespace jpblob
