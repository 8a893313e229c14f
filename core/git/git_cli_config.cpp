// GitCli's reads and writes of git config (core/git/git_cli.hpp), every
// one through `git config`, to agree with git exactly.
#include "core/git/git_cli.hpp"

#include "core/base/error.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::string scope_flag(ConfigScope scope) { return "--" + config_scope_name(scope); }

}  // namespace

std::string config_scope_name(ConfigScope scope) {
  switch (scope) {
    case ConfigScope::Local: return "local";
    case ConfigScope::System: return "system";
    case ConfigScope::Worktree: return "worktree";
    case ConfigScope::Global: break;
  }
  return "global";
}

std::optional<std::string> GitCli::config_get(const std::string& key, std::optional<ConfigScope> scope,
                                              const std::string& type) const {
  return config_get_from(scope ? std::vector<std::string>{scope_flag(*scope)} : std::vector<std::string>{}, key, type);
}

std::optional<std::string> GitCli::config_get_from(std::vector<std::string> where, const std::string& key,
                                                   const std::string& type) const {
  std::vector<std::string> args = {"config"};
  args.insert(args.end(), where.begin(), where.end());
  if (!type.empty()) args.push_back("--type=" + type);
  args.insert(args.end(), {"--get", key});
  auto r = run(args);
  if (r.status == 1) return std::nullopt;  // unset
  if (r.status != 0) throw Error("cannot read git config " + key + ": " + first_line(r.err));
  return first_line(r.out);
}

void GitCli::config_set(const std::string& key, const std::string& value, ConfigScope scope) const {
  must("set git config " + key, {"config", scope_flag(scope), "--replace-all", key, value});
}

void GitCli::use_worktree_config(const fs::path& common_dir) const {
  const std::string shared = (common_dir / "config").string(), main = (common_dir / "config.worktree").string();
  const auto get = [&](const std::string& key, const std::string& type) {
    return config_get_from({"--file", shared}, key, type);
  };
  if (get("extensions.worktreeConfig", "bool") == "true") return;
  must("set git config extensions.worktreeConfig", {"config", "--file", shared, "extensions.worktreeConfig", "true"});
  // core.bare=false stays: it may be undoing a global core.bare=true.
  std::vector<std::pair<std::string, std::string>> moving;
  if (get("core.bare", "bool") == "true") moving.emplace_back("core.bare", "true");
  if (auto at = get("core.worktree", "")) moving.emplace_back("core.worktree", *at);
  for (const auto& [key, value] : moving) {
    must("set git config " + key, {"config", "--file", main, key, value});
    must("move git config " + key, {"config", "--file", shared, "--unset-all", key});
  }
}

bool GitCli::config_unset(const std::string& key, ConfigScope scope) const {
  auto r = run({"config", scope_flag(scope), "--unset-all", key});
  if (r.status == 5) return false;  // it was not set
  if (r.status != 0) throw Error("cannot unset git config " + key + ": " + first_line(r.err));
  return true;
}

std::optional<GitCli::ConfigOrigin> GitCli::config_origin(const std::string& key) const {
  auto r = run({"config", "--show-scope", "--show-origin", "-z", "--get-all", key});
  if (r.status == 1) return std::nullopt;  // unset
  if (r.status != 0) throw Error("cannot read git config " + key + ": " + first_line(r.err));
  // -z: "<scope>\0<origin>\0<value>\0" per value; the last one is git's.
  const std::vector<std::string> fields = split_records(r.out, '\0');
  if (fields.size() < 3) throw Error("cannot read git config " + key + ": unexpected output of git config");
  const std::size_t last = fields.size() - fields.size() % 3 - 3;
  return ConfigOrigin{fields[last + 2], fields[last], fields[last + 1]};
}

bool GitCli::config_remove_empty_section(const std::string& section, ConfigScope scope) const {
  auto rest = run({"config", scope_flag(scope), "--get-regexp", "^" + section + "\\."});
  if (rest.status != 1) return false;  // keys are left (or it cannot tell): keep it
  return run({"config", scope_flag(scope), "--remove-section", section}).status == 0;
}

}  // namespace jpblob
