#include "core/git/config_reader.hpp"

#include "core/base/error.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

ConfigReader ConfigReader::of(const GitRepo* repo) {
  ConfigReader reader;
  reader.repo_ = repo;
  return reader;
}

ConfigReader ConfigReader::through(const GitCli& git, std::optional<ConfigScope> scope) {
  ConfigReader reader;
  reader.git_ = git;
  reader.scope_ = scope;
  return reader;
}

std::optional<std::string> ConfigReader::get(const std::string& key) const {
  if (git_) return git_->config_get(key, scope_);
  return repo_ ? repo_->config(key) : command_line_config_value(key);
}

std::optional<bool> ConfigReader::get_bool(const std::string& key) const {
  // git tells a key with no value (true) from an empty one (false) only
  // when it converts the value itself.
  if (git_) {
    const auto value = git_->config_get(key, scope_, "bool");
    if (!value) return std::nullopt;
    return *value == "true";
  }
  const auto value = get(key);
  if (!value) return std::nullopt;
  return parse_config_bool(key, *value);
}

std::optional<std::string> ConfigReader::get_as(const std::string& key, const char* type) const {
  if (!git_) throw Error(std::string("reading ") + key + " as " + type + " needs the git program");
  return git_->config_get(key, scope_, type);
}

std::optional<std::uint64_t> ConfigReader::get_size(const std::string& key) const {
  const auto value = get(key);
  if (!value) return std::nullopt;
  return parse_config_size(key, *value);
}

namespace {

// git's one line of refusal, as "<name>, line <n>: …" where it names the
// line of its standard input.
Error refusal(const std::string& name, const std::string& err) {
  std::string line = err.substr(0, err.find('\n'));
  if (line.starts_with("fatal: ")) line.erase(0, 7);
  constexpr std::string_view prefix = "bad config line ", suffix = " in standard input";
  if (line.starts_with(prefix) && line.ends_with(suffix)) {
    const std::string number = line.substr(prefix.size(), line.size() - prefix.size() - suffix.size());
    return Error(name + ", line " + number + ": git cannot read it as config");
  }
  return Error(name + ": git config cannot read it: " + line);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> read_config_text(std::string_view text, const std::string& name) {
  // git prints the entries before a bad line as it reads: only its status
  // tells a whole file from a refused one. In git's own words (LC_ALL=C),
  // which name the line.
  const CommandOutput r = run_command({"git", "config", "--file", "-", "--no-includes", "-z", "--list"}, "/",
                                      std::string(text), {{"LC_ALL", "C"}});
  if (r.status != 0) throw refusal(name, r.err);
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& record : split_records(r.out, '\0')) {
    const std::size_t newline = record.find('\n');
    if (newline == std::string::npos) out.emplace_back(record, "true");  // `[s] key`: a key with no value
    else out.emplace_back(record.substr(0, newline), record.substr(newline + 1));
  }
  return out;
}

}  // namespace jpblob
