// Finding JP conversations in a storage folder (`.jp` in a work tree, or
// JP's user-local folder): <storage>/conversations/<id>[-slug]/events.json,
// archived ones under conversations/.archive/ included.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace jpblob {

// Every regular file under `root` (when it exists) whose name `keep`
// accepts, appended to `out`. Symlinked folders are not followed. Throws
// Error when a folder cannot be read.
void find_files(const std::filesystem::path& root, const std::function<bool(const std::filesystem::path&)>& keep,
                std::vector<std::filesystem::path>& out);

// Every events.json under <storage>/conversations, sorted. Symlinked folders
// are not followed. Throws Error when the folder cannot be read.
std::vector<std::filesystem::path> list_conversations(const std::filesystem::path& storage);

// The folder of one conversation named by its folder path, its events.json
// path, its id ("17758406187") or its JP handle ("jp-c17758406187").
// Throws Error (usage) when nothing, or more than one thing, matches.
std::filesystem::path resolve_conversation(const std::filesystem::path& storage,
                                           const std::filesystem::path& cwd,
                                           const std::string& name);

}  // namespace jpblob
