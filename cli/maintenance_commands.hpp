// The maintenance commands (docs/ARCHITECTURE.md): argument handling and output around
// core/maintenance, core/maintenance/migrate and core/documents/render. --json output is
// documented in docs/FORMAT.md.
#pragma once

#include <filesystem>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jpblob {

struct MaintenanceArgs {
  bool dry_run = false;
  bool json = false;
  bool history = false;
  std::vector<std::string> revisions;  // verify --history: the commits to check (rev-list arguments)
  std::string prune;  // empty: gc.pruneExpire
  std::optional<std::filesystem::path> store;
  std::string target;  // a conversation or a blob name
  std::vector<std::string> targets;  // purge-list: conversations and sessions
  // cat and run (docs/FORMAT.md, "Artifact folders")
  std::optional<std::filesystem::path> session;  // a session .jsonl file
  std::optional<std::uint64_t> offset, limit;
  std::string tool;
  std::vector<std::string> command;
  std::vector<std::filesystem::path> files;  // store; checkout's paths
  std::uint64_t threshold = 50 * 1024;  // run --threshold (kSpillThreshold)
  bool expired = false;                 // artifacts gc --expired
};

void run_gc_command(const MaintenanceArgs& args);
// `git-jpblob purge-retired <git common dir>`: KeptCopies::purge_retired there,
// at a lower priority, holding no descriptor of whoever started it.
void run_purge_retired(const std::string& common_dir);
void run_verify_command(const MaintenanceArgs& args);  // throws when something is wrong
void run_files_command(const MaintenanceArgs& args);
// Prints the paths file `git filter-repo --invert-paths --paths-from-file`
// reads to drop the conversations named from history (core/maintenance/purge_list).
void run_purge_list_command(const MaintenanceArgs& args);
void run_print_command(const MaintenanceArgs& args);
void run_cat_command(const MaintenanceArgs& args);
void run_migrate_command(const MaintenanceArgs& args);
void run_checkout_command(const MaintenanceArgs& args);  // throws when a document could not be restored
void run_stats_command(const MaintenanceArgs& args);
void run_repair_command(const MaintenanceArgs& args);  // throws when a blob has no good copy
void run_store_command(const MaintenanceArgs& args);

}  // namespace jpblob
