#include "core/workspace/shared_config.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/error.hpp"
#include "core/git/config_reader.hpp"

namespace jpblob {

bool is_shared_key(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  return k == "jpblob.minsize" || k == "jpblob.compressionlevel";
}

namespace {

// Why a shared file was ignored, as a warning line naming it.
void ignored(SharedConfig& out, const Error& e) {
  const std::string name(kSharedConfigFile);
  out.values.clear();
  const std::string why = e.what();
  out.warnings.push_back("ignoring " + (why.starts_with(name) ? why : name + ": " + why) +
                         "; the personal or default settings apply");
}

}  // namespace

SharedConfig shared_config_of(std::string_view text) {
  SharedConfig out;
  try {
    for (auto& [key, value] : read_config_text(text, std::string(kSharedConfigFile)))
      if (is_shared_key(key)) out.values.emplace_back(std::move(key), std::move(value));
  } catch (const Error& e) {
    ignored(out, e);
  }
  return out;
}

SharedConfig read_shared_config(const SafeDir& work_tree) {
  SharedConfig out;
  const std::string name(kSharedConfigFile);
  try {
    // Read here, without following a link; git is handed the bytes only.
    const auto text = work_tree.read(name, 1 << 20);
    if (!text) return out;
    return shared_config_of(*text);
  } catch (const Error& e) {
    // Every command runs in a clone of it, git's own status and checkout
    // included: failing here would lock the team out of its clones.
    ignored(out, e);
  }
  return out;
}

}  // namespace jpblob
