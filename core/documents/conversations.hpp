// Finding JP conversations in a storage folder (`.jp` in a work tree, or
// JP's user-local folder): <storage>/conversations/<id>[-slug]/events.json,
// archived ones under conversations/.archive/ included. Paths are relative
// to a SafeDir and resolved without following links (core/base/safe_path).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/base/safe_path.hpp"

namespace jpblob {

// Every events.json under <storage>/conversations (`storage` relative to
// `base`), relative to `base`, sorted. Throws Error when a folder cannot
// be read or a link stands where a conversation would be read.
std::vector<std::filesystem::path> list_conversations(const SafeDir& base, const std::filesystem::path& storage);

// The folder (relative to `base`) of one conversation named by its folder
// path, its events.json path (either relative to `cwd`), its id
// ("17758406187") or its JP handle ("jp-c17758406187"). Throws Error
// (usage) when nothing, or more than one thing, matches.
std::filesystem::path resolve_conversation(const SafeDir& base, const std::filesystem::path& storage,
                                           const std::filesystem::path& cwd, const std::string& name);

}  // namespace jpblob
