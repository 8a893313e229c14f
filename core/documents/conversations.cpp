#include "core/documents/conversations.hpp"

#include <algorithm>

#include "core/base/error.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::vector<fs::path> list_conversations(const SafeDir& base, const fs::path& storage) {
  std::vector<fs::path> out;
  base.find_files(storage / "conversations", [](const std::string& name) { return name == "events.json"; }, out);
  return out;
}

namespace {

// True for a regular file; a link where the file should be is refused,
// never taken for "no such conversation".
bool is_regular(const SafeDir& base, const fs::path& rel) {
  const auto st = base.lstat(rel);
  if (st && S_ISLNK(st->st_mode)) throw Error(SafeDir::refusal(rel));
  return st && S_ISREG(st->st_mode);
}

}  // namespace

fs::path resolve_conversation(const SafeDir& base, const fs::path& storage, const fs::path& cwd,
                              const std::string& name) {
  const fs::path given = fs::absolute(cwd / name).lexically_normal().lexically_relative(base.path());
  if (!given.empty() && *given.begin() != "..") {
    if (given.filename() == "events.json" && is_regular(base, given)) return given.parent_path();
    if (is_regular(base, given / "events.json")) return given;
  }
  std::string id = name;
  if (id.starts_with("jp-c")) id = id.substr(4);
  const bool numeric = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numeric)
    throw Error("no conversation '" + name + "': give its folder, its events.json, or its id");
  std::vector<fs::path> matches;
  for (const auto& events : list_conversations(base, storage)) {
    const std::string folder = events.parent_path().filename().string();
    if (folder == id || folder.starts_with(id + "-")) matches.push_back(events.parent_path());
  }
  if (matches.empty())
    throw Error("no conversation with id " + id + " in " + (base.path() / storage).lexically_normal().string());
  if (matches.size() > 1)
    throw Error("id " + id + " names " + std::to_string(matches.size()) + " conversations");
  return matches[0];
}

}  // namespace jpblob
