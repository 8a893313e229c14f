// What core/lean/pending_packs.cpp and pending_records.cpp share: the
// records' and markers' names, and how a marker is judged stale. Internal
// to core/lean.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace jpblob::pending {

inline constexpr std::string_view kRecordSuffix = ".list";
// Touched when a clean uses a pack again (a blob it stands for).
inline constexpr std::string_view kUsedSuffix = ".used";

// A pack's name as git names them: "pack-" and a hex checksum.
bool is_pack_name(std::string_view name);
// This process's mark while it holds blobs no pack has: writing-<pid>.
std::string marker_name();
// When process `pid` started (/proc/<pid>/stat), empty when unknown.
std::string start_time_of(pid_t pid);
// A writer's marker `name` in the folder `dir` whose process is gone, or
// whose pid another process has taken since.
bool stale_marker(int dir, const std::string& name, pid_t pid);

}  // namespace jpblob::pending
