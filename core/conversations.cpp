#include "conversations.hpp"

#include <algorithm>

#include "error.hpp"

namespace jpblob {

namespace fs = std::filesystem;

void find_files(const fs::path& root, const std::function<bool(const fs::path&)>& keep, std::vector<fs::path>& out) {
  std::error_code ec;
  if (!fs::exists(root, ec)) return;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  if (ec) throw Error("cannot read " + root.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw Error("cannot read " + root.string() + ": " + ec.message());
    if (keep(it->path()) && it->is_regular_file(ec)) out.push_back(it->path());
  }
}

std::vector<fs::path> list_conversations(const fs::path& storage) {
  std::vector<fs::path> out;
  find_files(storage / "conversations", [](const fs::path& p) { return p.filename() == "events.json"; }, out);
  std::sort(out.begin(), out.end());
  return out;
}

fs::path resolve_conversation(const fs::path& storage, const fs::path& cwd, const std::string& name) {
  std::error_code ec;
  const fs::path given = cwd / name;
  if (fs::is_regular_file(given, ec) && given.filename() == "events.json") return given.parent_path();
  if (fs::is_regular_file(given / "events.json", ec)) return given;
  std::string id = name;
  if (id.starts_with("jp-c")) id = id.substr(4);
  const bool numeric = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numeric)
    throw Error("no conversation '" + name + "': give its folder, its events.json, or its id",
                ErrorKind::Usage);
  std::vector<fs::path> matches;
  for (const auto& events : list_conversations(storage)) {
    const std::string folder = events.parent_path().filename().string();
    if (folder == id || folder.starts_with(id + "-")) matches.push_back(events.parent_path());
  }
  if (matches.empty()) throw Error("no conversation with id " + id + " in " + storage.string(), ErrorKind::Usage);
  if (matches.size() > 1)
    throw Error("id " + id + " names " + std::to_string(matches.size()) + " conversations", ErrorKind::Usage);
  return matches[0];
}

}  // namespace jpblob
