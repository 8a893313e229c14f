// The commands behind the CLI that are not filters: thin adapters from
// parsed arguments to core/, install/ and hooks/, printing what they report.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "install/installer.hpp"

namespace jpblob {

// The absolute path of the running program: what install compares with the
// git-jpblob PATH finds, and what `env` reports.
std::filesystem::path program_path();

void run_install(const InstallOptions& options);
void run_uninstall(const InstallOptions& options);
// `git jpblob export [--dry-run]` (install/exporter).
void run_export(bool dry_run);
void run_textconv(const std::filesystem::path& file);
// The merge driver: {base, ours, theirs, marker size, path} as git passes
// %O %A %B %L %P. Writes the result into ours; returns 0 when merged, 1 on
// a conflict (ours then holds it, with markers, in JP's form).
int run_merge_driver(const std::vector<std::string>& args);
// Throws Error listing every problem when the commit must be refused.
void run_pre_commit();
// The pre-push hook: reads git's ref updates from standard input; throws
// Error listing every problem when the push must be refused.
void run_pre_push(const std::string& remote, const std::string& url);
void run_post_checkout();
// The pre-receive hook, on a server: the same check of the commits a push
// adds, read from git's "<old> <new> <ref>" lines on standard input.
void run_pre_receive();

}  // namespace jpblob
