// The trees of the store's folders, made from the index's entries, and
// written as one pack for the commit that staged many blobs
// (core/git/blob_pack.hpp).
#include <algorithm>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/git/blob_pack.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/object_hash.hpp"

namespace jpblob {

namespace {
// As blob_pack's: git writes fewer trees than this as fast itself.
constexpr std::size_t kFewObjects = 100;
}  // namespace

std::vector<std::pair<std::string, std::string>> trees_below(const std::string& folder,
                                                             const std::vector<IndexEntry>& entries,
                                                             const std::string& object_format) {
  // One pass over the entries in index order (bytewise by path), which is
  // the order git's trees list their entries in, a folder's name compared
  // as if it ended in "/": the folders open along the way form a stack,
  // and each is made when the first path outside it comes (after its
  // last entry), then named in its parent. 114,000 blob entries took
  // 0.5 s through a map of each folder's children.
  const std::string prefix = folder + "/";
  std::vector<const IndexEntry*> sorted;
  sorted.reserve(entries.size());
  for (const IndexEntry& e : entries) {
    if (!e.path.starts_with(prefix)) throw Error("index entry " + e.path + " is not below " + folder);
    sorted.push_back(&e);
  }
  // Entries read from the index come in its order already.
  const auto by_path = [](const IndexEntry* a, const IndexEntry* b) { return a->path < b->path; };
  if (!std::is_sorted(sorted.begin(), sorted.end(), by_path)) std::sort(sorted.begin(), sorted.end(), by_path);
  struct Open {
    std::string path, bytes;
  };
  std::vector<Open> open{{folder, {}}};
  std::vector<std::pair<std::string, std::string>> trees;
  const auto close_innermost = [&] {
    Open done = std::move(open.back());
    open.pop_back();
    const std::string id = raw_object_id(object_id(PackObject::Type::Tree, done.bytes, object_format));
    open.back().bytes.append("40000 ").append(std::string_view(done.path).substr(open.back().path.size() + 1));
    open.back().bytes.push_back('\0');
    open.back().bytes.append(id);
    trees.emplace_back(std::move(done.path), std::move(done.bytes));
  };
  for (const IndexEntry* e : sorted) {
    const std::string_view dir = std::string_view(e->path).substr(0, e->path.rfind('/'));
    const auto inside = [&](const std::string& f) {
      return dir == f || (dir.size() > f.size() && dir.starts_with(f) && dir[f.size()] == '/');
    };
    while (!inside(open.back().path)) close_innermost();
    while (dir.size() > open.back().path.size()) {
      const std::size_t end = dir.find('/', open.back().path.size() + 1);
      open.push_back({std::string(dir.substr(0, end)), {}});
    }
    open.back().bytes.append(e->mode).append(" ").append(std::string_view(e->path).substr(dir.size() + 1));
    open.back().bytes.push_back('\0');
    open.back().bytes.append(raw_object_id(e->id));
  }
  while (open.size() > 1) close_innermost();
  trees.emplace_back(std::move(open.back().path), std::move(open.back().bytes));
  return trees;
}

std::size_t GitCli::write_trees_holding(const std::vector<std::string>& paths) const {
  if (paths.size() < kFewObjects) return 0;  // git writes a few trees as fast
  // The folder every path is below, and each folder that holds one.
  std::string common = paths.front().substr(0, paths.front().rfind('/') + 1);
  std::unordered_set<std::string_view> holding;
  for (const std::string& p : paths) {
    std::size_t n = 0;
    while (n < common.size() && n < p.size() && common[n] == p[n]) ++n;
    common.resize(n);
    add_folders_above(p, holding);
  }
  common.resize(common.empty() ? 0 : common.rfind('/') + 1);
  if (common.empty()) return 0;  // the top folder's tree: git's own, with everything else in it
  const std::string folder = common.substr(0, common.size() - 1);
  std::vector<IndexEntry> entries;
  for (IndexEntry& e : index_entries({literal_pathspec(folder)})) {
    // A conflict, or a path that is both a file and a folder: git writes
    // no tree there, and neither is written here.
    if (e.stage != 0) return 0;
    entries.push_back(std::move(e));
  }
  const std::string format = object_format();
  std::vector<PackObject> trees;
  try {
    for (auto& [path, bytes] : trees_below(folder, entries, format))
      if (holding.count(path)) trees.push_back({PackObject::Type::Tree, {}, std::move(bytes)});
  } catch (const Error&) {
    return 0;  // an index git would not make a tree of: git says so at the commit
  }
  const std::size_t count = trees.size();
  write_objects(std::move(trees), format, 0);
  return count;
}

}  // namespace jpblob
