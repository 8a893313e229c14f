#include "cli/definition.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

// cli/commands.json's text, which the build writes into a source file.
extern const char* const jpblob_commands_json;

namespace jpblob::cli {

namespace {

using nlohmann::json;

std::string text(const json& j, const char* key) { return j.contains(key) ? j.at(key).get<std::string>() : std::string(); }

std::vector<std::string> texts(const json& j, const char* key) {
  return j.contains(key) ? j.at(key).get<std::vector<std::string>>() : std::vector<std::string>{};
}

OptionDef parse_option(const json& j) {
  OptionDef o;
  o.short_name = text(j, "short");
  o.long_name = text(j, "long");
  o.value = text(j, "value");
  o.check = text(j, "check");
  o.required = j.value("required", false);
  o.value_optional = j.value("value_optional", false);
  o.help = text(j, "help");
  if (!o.long_name.starts_with("--") || o.help.empty()) throw std::runtime_error("an option needs --long and help: " + j.dump());
  if (!o.check.empty() && o.check != "count" && o.check != "positive")
    throw std::runtime_error(o.long_name + ": unknown check '" + o.check + "'");
  return o;
}

ArgumentDef parse_argument(const json& j) {
  ArgumentDef a;
  a.name = text(j, "name");
  a.help = text(j, "help");
  a.required = j.value("required", false);
  a.many = j.value("many", false);
  a.count = j.value("count", 0);
  a.after_dashdash = j.value("after_dashdash", false);
  if (a.name.empty() || a.help.empty()) throw std::runtime_error("an argument needs a name and help: " + j.dump());
  return a;
}

Group parse_group(const std::string& name, const std::string& command) {
  if (name == "setup") return Group::Setup;
  if (name == "everyday" || name.empty()) return Group::Everyday;
  if (name == "plumbing") return Group::Plumbing;
  throw std::runtime_error(command + ": unknown group '" + name + "'");
}

CommandDef parse_command(const json& j, Group inherited, const std::string& parent) {
  CommandDef c;
  c.name = text(j, "name");
  c.path = parent.empty() ? c.name : parent + " " + c.name;
  c.group = j.contains("group") ? parse_group(text(j, "group"), c.name) : inherited;
  c.summary = text(j, "summary");
  if (c.name.empty() || c.summary.empty()) throw std::runtime_error("a command needs a name and a summary: " + c.name);
  for (const json& a : j.value("arguments", json::array())) c.arguments.push_back(parse_argument(a));
  for (const json& o : j.value("options", json::array())) c.options.push_back(parse_option(o));
  for (const json& set : j.value("exclusive", json::array())) {
    c.exclusive.push_back(set.get<std::vector<std::string>>());
    for (const std::string& name : c.exclusive.back())
      if (!c.option(name)) throw std::runtime_error(c.name + ": exclusive names unknown option " + name);
  }
  c.argument_check = text(j, "argument_check");
  c.description = texts(j, "description");
  c.exit_1 = text(j, "exit_1");
  c.exit_note = text(j, "exit_note");
  c.examples = texts(j, "examples");
  c.see_also = texts(j, "see_also");
  for (const json& s : j.value("subcommands", json::array())) c.subcommands.push_back(parse_command(s, c.group, c.path));
  return c;
}

}  // namespace

const OptionDef* CommandDef::option(std::string_view long_name) const {
  for (const OptionDef& o : options)
    if (o.long_name == long_name) return &o;
  return nullptr;
}

const CommandDef* Definition::command(std::string_view name) const {
  for (const CommandDef& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> Definition::names() const {
  std::vector<std::string> out;
  for (const CommandDef& c : commands) out.push_back(c.name);
  return out;
}

Definition parse_definition(std::string_view json_text) {
  const json j = json::parse(json_text);
  Definition def;
  def.program = j.at("program").get<std::string>();
  def.summary = j.at("summary").get<std::string>();
  for (const json& c : j.at("commands")) def.commands.push_back(parse_command(c, Group::Everyday, ""));
  if (j.contains("lfs_names")) def.lfs_names = j.at("lfs_names").get<std::map<std::string, std::string>>();
  for (const auto& [lfs, ours] : def.lfs_names)
    if (!def.command(ours)) throw std::runtime_error("lfs_names: " + lfs + " points to no command " + ours);
  return def;
}

const Definition& definition() {
  static const Definition def = parse_definition(jpblob_commands_json);
  return def;
}

bool defines_key(const Definition& def, std::string_view key) {
  auto in = [key](const CommandDef& c, auto& self) -> bool {
    for (const OptionDef& o : c.options)
      if (o.key() == key) return true;
    for (const ArgumentDef& a : c.arguments)
      if (a.name == key) return true;
    return std::any_of(c.subcommands.begin(), c.subcommands.end(), [&](const CommandDef& s) { return self(s, self); });
  };
  return std::any_of(def.commands.begin(), def.commands.end(), [&](const CommandDef& c) { return in(c, in); });
}

}  // namespace jpblob::cli
