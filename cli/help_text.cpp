#include "cli/help_text.hpp"

#include <algorithm>
#include <sstream>

namespace jpblob::cli {

namespace {

// git's parse-options layout: options indented by four, help from column 26,
// or on the next line when the option is longer.
constexpr std::size_t kHelpColumn = 26;
constexpr std::size_t kWidth = 80;

std::string option_words(const OptionDef& o) {
  std::string out = o.short_name.empty() ? o.long_name : o.short_name + " | " + o.long_name;
  if (!o.value.empty()) out = o.long_name + (o.value_optional ? "[=" + o.value + "]" : "=" + o.value);
  return out;
}

// Words wrapped to kWidth, each line after the first indented by `indent`.
std::string wrap(const std::string& text, std::size_t first_column, std::size_t indent) {
  std::string out, word;
  std::size_t column = first_column;
  bool line_empty = true;
  std::istringstream in(text);
  while (in >> word) {
    if (!line_empty && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_empty = false;
  }
  return out;
}

std::string help_line(const std::string& left, const std::string& help) {
  std::string out = "    " + left;
  if (out.size() + 2 > kHelpColumn) {
    out += "\n" + std::string(kHelpColumn, ' ');
  } else {
    out += std::string(kHelpColumn - out.size(), ' ');
  }
  return out + wrap(help, kHelpColumn, kHelpColumn) + "\n";
}

std::string argument_words(const ArgumentDef& a) {
  std::string word = "<" + a.name + ">";
  if (a.many) word += "...";
  if (a.after_dashdash) word = "-- " + word;
  return a.required ? word : "[" + word + "]";
}

const std::vector<std::string>* exclusive_set(const CommandDef& c, const std::string& long_name) {
  for (const auto& set : c.exclusive)
    if (std::find(set.begin(), set.end(), long_name) != set.end()) return &set;
  return nullptr;
}

std::string group_title(Group group) {
  switch (group) {
    case Group::Setup: return "Set up";
    case Group::Everyday: return "Everyday commands";
    case Group::Plumbing: return "Run by git (filters, hooks, drivers)";
  }
  return {};
}

}  // namespace

std::string plain(const std::string& marked) {
  std::string out;
  for (char ch : marked)
    if (ch != '`' && ch != '{' && ch != '}') out += ch;
  return out;
}

std::string synopsis(const CommandDef& c) {
  std::string out = "git jpblob " + c.path;
  std::vector<std::string> done;
  for (const OptionDef& o : c.options) {
    if (std::find(done.begin(), done.end(), o.long_name) != done.end()) continue;
    if (const auto* set = exclusive_set(c, o.long_name)) {
      std::string words;
      for (const std::string& name : *set) {
        words += (words.empty() ? "" : " | ") + option_words(*c.option(name));
        done.push_back(name);
      }
      out += " [" + words + "]";
      continue;
    }
    out += o.required ? " " + option_words(o) : " [" + option_words(o) + "]";
  }
  for (const ArgumentDef& a : c.arguments) out += " " + argument_words(a);
  return out;
}

std::string usage_lines(const CommandDef& c) {
  if (c.subcommands.empty()) return synopsis(c) + "\n";
  std::string out;
  for (const CommandDef& s : c.subcommands) out += synopsis(s) + "\n";
  return out;
}

std::string usage_text(const CommandDef& c) {
  std::string lines = usage_lines(c), out;
  bool first = true;
  std::size_t start = 0;
  while (start < lines.size()) {
    const std::size_t end = lines.find('\n', start);
    out += (first ? "usage: " : "   or: ") + lines.substr(start, end - start) + "\n";
    first = false;
    start = end + 1;
  }
  out += "\n";
  auto list = [&out](const CommandDef& command) {
    for (const ArgumentDef& a : command.arguments) out += help_line("<" + a.name + ">", a.help);
    for (const OptionDef& o : command.options) {
      std::string left = o.short_name.empty() ? o.long_name : o.short_name + ", " + o.long_name;
      if (!o.value.empty()) left += " " + o.value;
      out += help_line(left, o.help);
    }
  };
  list(c);
  for (const CommandDef& s : c.subcommands) {
    out += "\n" + s.name + ": " + s.summary + "\n";
    list(s);
  }
  return out;
}

std::string help_page(const CommandDef& c) {
  std::string out = "git-jpblob-" + c.name + " - " + c.summary + "\n\n" + usage_text(c);
  for (const std::string& p : c.description)
    out += "\n" + (p.starts_with("    ") ? p : wrap(plain(p), 0, 0)) + "\n";
  if (!c.examples.empty()) out += "\nExamples:\n";
  for (const std::string& e : c.examples) out += "  " + e + "\n";
  return out;
}

std::string command_list(const Definition& def, bool all) {
  std::size_t width = 0;
  for (const CommandDef& c : def.commands) width = std::max(width, c.name.size());
  std::string out = "usage: git jpblob <command> [<args>]\n";
  for (Group group : {Group::Setup, Group::Everyday, Group::Plumbing}) {
    if (group == Group::Plumbing && !all) continue;
    out += "\n" + group_title(group) + ":\n";
    for (const CommandDef& c : def.commands)
      if (c.group == group) out += "  " + c.name + std::string(width + 3 - c.name.size(), ' ') + c.summary + "\n";
  }
  out += "\n";
  if (!all) out += "'git jpblob help -a' also lists the commands git runs (filters, hooks, drivers).\n";
  return out + "'git jpblob <command> --help' shows one command's manual, 'git jpblob <command> -h' its options.\n";
}

std::string subcommand_list(const CommandDef& c) {
  std::size_t width = 0;
  for (const CommandDef& s : c.subcommands) width = std::max(width, s.name.size());
  std::string out = "usage: git jpblob " + c.path + " <command> [<args>]\n\n";
  for (const CommandDef& s : c.subcommands) out += "  " + s.name + std::string(width + 3 - s.name.size(), ' ') + s.summary + "\n";
  return out + "\n'git jpblob " + c.path + " <command> -h' shows one command's options.\n";
}

std::string completion_words(const CommandDef& c) {
  std::string out;
  auto add = [&out](const std::string& word) { out += (out.empty() ? "" : " ") + word; };
  if (!c.subcommands.empty()) {
    for (const CommandDef& s : c.subcommands) add(s.name);
    return out + "\n";
  }
  for (const OptionDef& o : c.options) add(o.long_name + (o.value.empty() ? "" : "="));
  return out + "\n";
}

}  // namespace jpblob::cli
