#include "cli/man_pages.hpp"

#include <sstream>
#include <stdexcept>

#include "cli/help_text.hpp"

namespace jpblob::cli {

namespace {

constexpr std::string_view kTableBegin = "<!-- commands: generated from cli/commands.json";
constexpr std::string_view kTableEnd = "<!-- /commands -->";

// One character of plain text, escaped for roff.
void escape(std::string& out, char ch) {
  if (ch == '-') out += "\\-";
  else if (ch == '\\') out += "\\e";
  else out += ch;
}

// A roff line must not start with a control character.
std::string guard_lines(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char ch : text) {
    if (line_start && (ch == '.' || ch == '\'')) out += "\\&";
    out += ch;
    line_start = ch == '\n';
  }
  return out;
}

// A synopsis in roff: <placeholders> italic, as git's pages show them.
std::string roff_synopsis(const std::string& line) {
  std::string out;
  bool in_placeholder = false;
  for (char ch : line) {
    if (ch == '<') {
      out += "\\fI<";
      in_placeholder = true;
    } else if (ch == '>' && in_placeholder) {
      out += ">\\fR";
      in_placeholder = false;
    } else {
      escape(out, ch);
    }
  }
  return out;
}

std::string paragraph(const std::string& p) {
  if (!p.starts_with("    ")) return ".PP\n" + roff_text(p) + "\n";
  // Each line without its four spaces of mark: .RS indents the block.
  std::string literal;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if ((i == 0 || p[i - 1] == '\n') && p.compare(i, 4, "    ") == 0) i += 4;
    if (i < p.size()) escape(literal, p[i]);
  }
  return ".PP\n.RS 4\n.nf\n" + guard_lines(literal) + "\n.fi\n.RE\n";
}

std::string options_section(const CommandDef& c) {
  std::string out;
  for (const ArgumentDef& a : c.arguments) out += ".TP\n\\fI" + roff_synopsis(a.name) + "\\fR\n" + roff_text(a.help) + "\n";
  for (const OptionDef& o : c.options) {
    std::string names = o.short_name.empty() ? "" : "\\fB" + roff_synopsis(o.short_name) + "\\fR, ";
    names += "\\fB" + roff_synopsis(o.long_name) + "\\fR";
    if (!o.value.empty()) names += (o.value_optional ? "[=" : "=") + roff_synopsis(o.value) + (o.value_optional ? "]" : "");
    out += ".TP\n" + names + "\n" + roff_text(o.help) + "\n";
  }
  return out;
}

std::string exit_status(const CommandDef* c) {
  std::string out = ".TP\n.B 0\nSuccess.\n";
  if (c && !c->exit_note.empty()) out += ".PP\nOtherwise " + roff_text(c->exit_note) + ".\n";
  if (!c || !c->exit_1.empty())
    out += ".TP\n.B 1\n" + (c ? roff_text(c->exit_1) : std::string("A problem found (") + "\\fBverify\\fR" +
                                                           ", the hooks' refusals), or a command that does not exist") +
           ".\n";
  out += ".TP\n.B 128\nA fatal error: the command could not do what it was asked (git's \\fBdie\\fR()).\n"
         ".TP\n.B 129\nA usage error, and \\fB\\-h\\fR, which prints the usage.\n"
         ".TP\n.B 141\nStandard output was a pipe whose reader went away: the command ends quietly, "
         "killed by SIGPIPE, as git does.\n";
  return out;
}

std::string title(const std::string& page, const std::string& version) {
  std::string upper;
  for (char ch : page) upper += static_cast<char>(ch == '-' ? '-' : std::toupper(static_cast<unsigned char>(ch)));
  return ".TH " + roff_synopsis(upper) + " 1 \"\" \"git-jpblob " + version + "\" \"Git Manual\"\n";
}

}  // namespace

std::string roff_text(const std::string& marked) {
  std::string out;
  bool bold = false, italic = false;
  for (char ch : marked) {
    if (ch == '`') {
      out += bold ? "\\fR" : "\\fB";
      bold = !bold;
    } else if (ch == '{' && !bold) {
      out += "\\fI";
      italic = true;
    } else if (ch == '}' && italic) {
      out += "\\fR";
      italic = false;
    } else {
      escape(out, ch);
    }
  }
  if (bold || italic) throw std::runtime_error("unbalanced ` or { in: " + marked);
  return guard_lines(out);
}

std::string man_page(const CommandDef& c, const std::string& version) {
  const std::string page = "git-jpblob-" + c.name;
  std::string out = ".\\\" Generated from cli/commands.json by jpblob-docs; edit that file, not this one.\n";
  out += title(page, version);
  out += ".SH NAME\n" + roff_synopsis(page) + " \\- " + roff_text(c.summary) + "\n";
  out += ".SH SYNOPSIS\n.nf\n" + roff_synopsis(usage_lines(c)) + ".fi\n";
  out += ".SH DESCRIPTION\n";
  for (const std::string& p : c.description) out += paragraph(p);
  if (c.description.empty()) out += roff_text(c.summary) + ".\n";
  if (!c.arguments.empty() || !c.options.empty()) out += ".SH OPTIONS\n" + options_section(c);
  for (const CommandDef& s : c.subcommands) {
    out += ".SH " + roff_synopsis(s.path) + "\n" + roff_text(s.summary) + ".\n";
    for (const std::string& p : s.description) out += paragraph(p);
    out += options_section(s);
  }
  out += ".TP\n\\fB\\-h\\fR\nPrint the usage and exit 129.\n.TP\n\\fB\\-\\-help\\fR\nShow this page.\n";
  out += ".SH EXIT STATUS\n" + exit_status(&c);
  if (!c.examples.empty()) {
    out += ".SH EXAMPLES\n.nf\n";
    for (const std::string& e : c.examples) out += roff_synopsis(e) + "\n";
    out += ".fi\n";
  }
  out += ".SH SEE ALSO\n\\fBgit\\-jpblob\\fR(1)";
  for (const std::string& s : c.see_also) out += ", " + roff_text(s);
  return out + "\n";
}

std::string overview_page(const Definition& def, const std::string& overview_template, const std::string& version) {
  std::string synopsis, commands;
  for (const CommandDef& c : def.commands) synopsis += roff_synopsis(usage_lines(c));
  for (Group group : {Group::Setup, Group::Everyday, Group::Plumbing}) {
    commands += group == Group::Setup ? ".SS Set up\n" : group == Group::Everyday ? ".SS Everyday commands\n"
                                                                                  : ".SS Run by git\n";
    for (const CommandDef& c : def.commands)
      if (c.group == group)
        commands += ".TP\n\\fBgit\\-jpblob\\-" + roff_synopsis(c.name) + "\\fR(1)\n" + roff_text(c.summary) + ".\n";
  }
  std::string out;
  std::istringstream in(overview_template);
  for (std::string line; std::getline(in, line);) {
    if (line == "@SYNOPSIS@") out += ".nf\n" + synopsis + ".fi\n";
    else if (line == "@COMMANDS@") out += commands;
    else if (line == "@EXIT_STATUS@") out += exit_status(nullptr);
    else if (auto at = line.find("@VERSION@"); at != std::string::npos) out += line.replace(at, 9, version) + "\n";
    else out += line + "\n";
  }
  return out;
}

std::string readme_table(const Definition& def) {
  std::string out = "| Command | What it does |\n|---|---|\n";
  for (const CommandDef& c : def.commands)
    if (c.group != Group::Plumbing) out += "| `git jpblob " + c.name + "` | " + plain(c.summary) + " |\n";
  return out;
}

std::string with_readme_table(const std::string& readme, const std::string& table) {
  const std::size_t begin = readme.find(kTableBegin), end = readme.find(kTableEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw std::runtime_error("the README has no command table markers (" + std::string(kTableBegin) + " … " +
                             std::string(kTableEnd) + ")");
  const std::size_t body = readme.find('\n', begin) + 1;
  return readme.substr(0, body) + table + readme.substr(end);
}

}  // namespace jpblob::cli
