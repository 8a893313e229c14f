// The command line's one definition (cli/commands.json) and what is made
// from it: the parser, -h, the manual pages, the README table. The e2e suite
// git_conventions checks the same against the built program and pages.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <set>

#include "cli/command_line.hpp"
#include "cli/definition.hpp"
#include "cli/help_text.hpp"
#include "cli/man_pages.hpp"

namespace jpblob::cli {
namespace {

TEST(CliDefinition, CompiledInDefinitionParses) {
  const Definition& def = definition();
  EXPECT_EQ(def.program, "git-jpblob");
  ASSERT_NE(def.command("gc"), nullptr);
  EXPECT_NE(def.command("gc")->option("--prune"), nullptr);
  EXPECT_EQ(def.command("gc")->option("--prune")->value, "<date>");
  ASSERT_NE(def.command("artifacts"), nullptr);
  EXPECT_EQ(def.command("artifacts")->subcommands.at(0).path, "artifacts gc");
  EXPECT_EQ(def.lfs_names.at("prune"), "gc");
}

TEST(CliDefinition, EveryCommandDocumentedAndRunnable) {
  std::set<std::string> names;
  for (const CommandDef& c : definition().commands) {
    EXPECT_TRUE(names.insert(c.name).second) << "defined twice: " << c.name;
    EXPECT_FALSE(c.examples.empty() && c.subcommands.empty() && c.group != Group::Plumbing)
        << c.name << " has no example";
    for (const OptionDef& o : c.options) EXPECT_FALSE(o.help.empty()) << c.name << " " << o.long_name;
  }
}

TEST(CliDefinition, RefusesWhatIsWrong) {
  EXPECT_THROW(parse_definition(R"({"program":"p","summary":"s","commands":[{"name":"x","summary":"y","group":"odd"}]})"),
               std::runtime_error);
  EXPECT_THROW(parse_definition(R"({"program":"p","summary":"s","commands":[{"name":"x","summary":"y",
                 "options":[{"long":"-x","help":"h"}]}]})"),
               std::runtime_error);
  EXPECT_THROW(parse_definition(R"({"program":"p","summary":"s","commands":[{"name":"x","summary":"y",
                 "options":[{"long":"--a","help":"h"}],"exclusive":[["--a","--b"]]}]})"),
               std::runtime_error);
  EXPECT_THROW(parse_definition(R"({"program":"p","summary":"s","commands":[],"lfs_names":{"prune":"gc"}})"),
               std::runtime_error);
}

const char* kSmall = R"({"program":"git-jpblob","summary":"s","commands":[
  {"name":"gc","summary":"delete blobs","options":[
     {"short":"-n","long":"--dry-run","help":"say what"},
     {"long":"--prune","value":"<date>","help":"keep younger"},
     {"long":"--limit","value":"<n>","check":"count","help":"most"}],
   "arguments":[{"name":"paths","help":"where","many":true}],
   "description":["Deletes `git gc` {date} - not .dot", "    literal -x\n    .line"],
   "examples":["git jpblob gc -n"]},
  {"name":"push","summary":"p","arguments":[{"name":"remote","help":"r"},{"name":"url","help":"u"}]},
  {"name":"run","summary":"run it","options":[{"long":"--tool","value":"<name>","required":true,"help":"t"}],
   "arguments":[{"name":"command","help":"c","required":true,"many":true,"after_dashdash":true}]}]})";

TEST(CliHelp, SynopsisAndUsageFollowGitsLayout) {
  const Definition def = parse_definition(kSmall);
  EXPECT_EQ(synopsis(*def.command("gc")), "git jpblob gc [-n | --dry-run] [--prune=<date>] [--limit=<n>] [<paths>...]");
  EXPECT_EQ(synopsis(*def.command("run")), "git jpblob run --tool=<name> -- <command>...");
  const std::string usage = usage_text(*def.command("gc"));
  EXPECT_TRUE(usage.starts_with("usage: git jpblob gc [-n | --dry-run]")) << usage;
  EXPECT_NE(usage.find("\n    -n, --dry-run         say what\n"), std::string::npos) << usage;
  EXPECT_EQ(completion_words(*def.command("gc")), "--dry-run --prune= --limit=\n");
}

TEST(CliManPages, RoffEscapesAndMarks) {
  EXPECT_EQ(roff_text("a `b-c` {d} e-f"), "a \\fBb\\-c\\fR \\fId\\fR e\\-f");
  EXPECT_EQ(roff_text(".starts with a dot"), "\\&.starts with a dot");
  EXPECT_THROW(roff_text("an `open mark"), std::runtime_error);
  const Definition def = parse_definition(kSmall);
  const std::string page = man_page(*def.command("gc"), "9.9");
  EXPECT_NE(page.find(".TH GIT\\-JPBLOB\\-GC 1"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fB\\-\\-prune\\fR=\\fI<date>\\fR"), std::string::npos) << page;
  EXPECT_NE(page.find(".nf\nliteral \\-x\n\\&.line\n.fi"), std::string::npos) << page;
  EXPECT_NE(page.find(".SH EXIT STATUS"), std::string::npos);
}

TEST(CliManPages, ReadmeTableBetweenItsMarkers) {
  const Definition def = parse_definition(kSmall);
  const std::string readme = "# x\n<!-- commands: generated from cli/commands.json by jpblob-docs -->\nold\n<!-- /commands -->\nend\n";
  const std::string out = with_readme_table(readme, readme_table(def));
  EXPECT_NE(out.find("| `git jpblob gc` | delete blobs |\n| `git jpblob push` | p |\n| `git jpblob run` | run it |\n<!-- /commands -->\nend\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("old"), std::string::npos);
  EXPECT_THROW(with_readme_table("no markers", "t"), std::runtime_error);
}

// The parser takes what the definition gives and refuses the rest (129).
TEST(CliParser, ParsesByTheDefinitionsNames) {
  const Definition def = parse_definition(kSmall);
  std::optional<std::string> prune, limit;
  bool dry = false;
  std::vector<std::string> command, paths;
  CommandLine line(def, {{"gc", [&](const Parsed& p) {
                            dry = p.flag("dry-run");
                            prune = p.value("prune");
                            limit = p.value("limit");
                            paths = p.values("paths");
                            EXPECT_THROW(p.flag("no-such-option"), std::logic_error);
                            return 0;
                          }},
                         {"push", [&](const Parsed& p) {
                            paths = p.values("remote");
                            command = p.values("url");
                            return 3;
                          }},
                         {"run", [&](const Parsed& p) {
                            command = p.values("command");
                            return 7;
                          }}});
  std::vector<std::string> words = {"git-jpblob", "gc", "-n", "--prune=2 weeks ago", "a", "b"};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  EXPECT_EQ(line.run(static_cast<int>(argv.size()), argv.data()).status, 0);
  EXPECT_TRUE(dry);
  EXPECT_EQ(prune, "2 weeks ago");
  EXPECT_EQ(limit, std::nullopt);
  EXPECT_EQ(paths, (std::vector<std::string>{"a", "b"}));

  words = {"git-jpblob", "push", "origin", "https://example.com/x.git"};
  argv.clear();
  for (auto& w : words) argv.push_back(w.data());
  EXPECT_EQ(line.run(static_cast<int>(argv.size()), argv.data()).status, 3);
  EXPECT_EQ(paths, (std::vector<std::string>{"origin"}));
  EXPECT_EQ(command, (std::vector<std::string>{"https://example.com/x.git"}));

  words = {"git-jpblob", "run", "--tool", "bash", "--", "sh", "-c", "exit 3"};
  argv.clear();
  for (auto& w : words) argv.push_back(w.data());
  EXPECT_EQ(line.run(static_cast<int>(argv.size()), argv.data()).status, 7);
  EXPECT_EQ(command, (std::vector<std::string>{"sh", "-c", "exit 3"}));

  for (std::vector<std::string> bad : {std::vector<std::string>{"git-jpblob", "gc", "--frobnicate"},
                                       {"git-jpblob", "gc", "--limit=abc"},
                                       {"git-jpblob", "run", "--tool", "x"},
                                       {"git-jpblob", "gc", "-h"}}) {
    argv.clear();
    for (auto& w : bad) argv.push_back(w.data());
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    EXPECT_EQ(line.run(static_cast<int>(argv.size()), argv.data()).status, kUsageStatus) << bad.back();
    testing::internal::GetCapturedStdout();
    testing::internal::GetCapturedStderr();
  }
}

TEST(CliParser, EveryCommandNeedsARunner) {
  const Definition def = parse_definition(kSmall);
  EXPECT_THROW(CommandLine(def, {{"gc", [](const Parsed&) { return 0; }}}), std::logic_error);
}

}  // namespace
}  // namespace jpblob::cli
