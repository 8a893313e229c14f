// The session artifact commands (docs/SESSIONS.md, "Artifacts"): `run`, which keeps a
// long command's whole output as artifact://<n> and indexes it, and
// `artifacts gc` / `artifacts stats` around core/artifacts/artifact_lifetime.
// --json output is documented in docs/FORMAT.md.
#pragma once

#include "cli/maintenance_commands.hpp"

namespace jpblob {

// Returns the command's exit status.
int run_run_command(const MaintenanceArgs& args);
void run_artifacts_gc_command(const MaintenanceArgs& args);
void run_artifacts_stats_command(const MaintenanceArgs& args);

}  // namespace jpblob
