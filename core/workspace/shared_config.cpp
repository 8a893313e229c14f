#include "core/workspace/shared_config.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/error.hpp"

namespace jpblob {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }

}  // namespace

bool is_shared_key(std::string_view key) {
  const std::string k = lower(std::string(key));
  return k == "jpblob.minsize" || k == "jpblob.compressionlevel";
}

std::vector<std::pair<std::string, std::string>> parse_config_text(std::string_view text, const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string section;
  std::size_t i = 0, line = 1;
  auto bad = [&](const std::string& why) -> Error {
    return Error(what + ", line " + std::to_string(line) + ": " + why);
  };
  auto skip_blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
  };
  auto skip_to_line_end = [&] {
    while (i < text.size() && text[i] != '\n') ++i;
  };
  while (i < text.size()) {
    skip_blanks();
    if (i >= text.size()) break;
    const char c = text[i];
    if (c == '\n') {
      ++i;
      ++line;
      continue;
    }
    if (c == '#' || c == ';') {
      skip_to_line_end();
      continue;
    }
    if (c == '[') {
      const std::size_t end = text.find(']', i);
      if (end == std::string_view::npos || text.substr(i, end - i).find('\n') != std::string_view::npos)
        throw bad("a section header without ']'");
      std::string_view inside = text.substr(i + 1, end - i - 1);
      const std::size_t quote = inside.find('"');
      std::string name(inside.substr(0, quote == std::string_view::npos ? inside.size() : quote));
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char x) { return is_key_char(x) || x == '.'; }))
        throw bad("bad section name");
      section = lower(name);
      if (quote != std::string_view::npos) {
        if (inside.size() < quote + 2 || inside.back() != '"') throw bad("bad subsection");
        std::string sub;
        for (std::size_t k = quote + 1; k + 1 < inside.size(); ++k) {
          if (inside[k] == '\\' && k + 2 < inside.size()) ++k;
          sub.push_back(inside[k]);
        }
        section += "." + sub;  // subsections keep their case, as in git
      }
      i = end + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) throw bad("expected a key");
    if (section.empty()) throw bad("a key before any section");
    const std::size_t key_start = i;
    while (i < text.size() && is_key_char(text[i])) ++i;
    const std::string key = section + "." + lower(std::string(text.substr(key_start, i - key_start)));
    skip_blanks();
    if (i >= text.size() || text[i] == '\n' || text[i] == '#' || text[i] == ';') {
      out.emplace_back(key, "true");
      skip_to_line_end();
      continue;
    }
    if (text[i] != '=') throw bad("expected '=' after " + key);
    ++i;
    skip_blanks();
    // The value: quoted runs, escapes, comments outside quotes, trailing
    // blanks dropped, a backslash at the end of a line continuing it.
    std::string value;
    std::size_t kept = 0;  // value length without trailing unquoted blanks
    bool quoted = false;
    for (; i < text.size(); ++i) {
      const char v = text[i];
      if (v == '\n') {
        if (quoted) throw bad("an unterminated quote");
        break;
      }
      if (!quoted && (v == '#' || v == ';')) {
        skip_to_line_end();
        break;
      }
      if (v == '"') {
        quoted = !quoted;
        kept = value.size();
        continue;
      }
      if (v == '\\') {
        if (i + 1 >= text.size()) throw bad("a backslash at the end of the file");
        const char e = text[++i];
        if (e == '\n') {
          ++line;
          continue;
        }
        if (e == 'n') value.push_back('\n');
        else if (e == 't') value.push_back('\t');
        else if (e == 'b') value.push_back('\b');
        else if (e == '"' || e == '\\') value.push_back(e);
        else throw bad(std::string("bad escape \\") + e);
        kept = value.size();
        continue;
      }
      value.push_back(v);
      if (quoted || (v != ' ' && v != '\t' && v != '\r')) kept = value.size();
    }
    if (quoted) throw bad("an unterminated quote");
    value.resize(kept);
    out.emplace_back(key, std::move(value));
  }
  return out;
}

SharedConfig read_shared_config(const SafeDir& work_tree) {
  SharedConfig out;
  const std::string name(kSharedConfigFile);
  try {
    const auto text = work_tree.read(name, 1 << 20);
    if (!text) return out;
    for (auto& [key, value] : parse_config_text(*text, name))
      if (is_shared_key(key)) out.values.emplace_back(std::move(key), std::move(value));
  } catch (const Error& e) {
    // Every command runs in a clone of it, git's own status and checkout
    // included: failing here would lock the team out of its clones.
    out.values.clear();
    const std::string why = e.what();
    out.warnings.push_back("ignoring " + (why.starts_with(name) ? why : name + ": " + why) +
                           "; the personal or default settings apply");
  }
  return out;
}

}  // namespace jpblob
