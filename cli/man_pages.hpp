// The manual pages and the README's command table, made from the
// definition (cli/definition.hpp) by the jpblob-docs tool at build time:
// git-jpblob-<command>(1) for each command, and git-jpblob(1), the
// overview, from docs/git-jpblob.1.in with its generated parts filled in.
#pragma once

#include <string>

#include "cli/definition.hpp"

namespace jpblob::cli {

// roff (man(7) macros) of one command's page.
std::string man_page(const CommandDef& command, const std::string& version);
// The overview page: `overview_template` with its lines @VERSION@ (in the
// .TH line), @SYNOPSIS@, @COMMANDS@ and @EXIT_STATUS@ replaced.
std::string overview_page(const Definition& def, const std::string& overview_template, const std::string& version);
// The README's command table (Markdown), between its marker lines.
std::string readme_table(const Definition& def);
// `readme` with the text between the marker lines replaced by `table`;
// throws std::runtime_error when the markers are missing.
std::string with_readme_table(const std::string& readme, const std::string& table);
// A description paragraph in roff: `x` bold, {x} italic, the rest escaped.
std::string roff_text(const std::string& marked);

}  // namespace jpblob::cli
