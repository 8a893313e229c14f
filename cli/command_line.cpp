#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>

#include "cli/help_text.hpp"
#include "cli/manual.hpp"

namespace jpblob::cli {

void Parsed::check(std::string_view key) const {
  if (!defines_key(*def_, key)) throw std::logic_error("no command defines '" + std::string(key) + "' (cli/commands.json)");
}

bool Parsed::flag(std::string_view key) const {
  check(key);
  auto it = flags_.find(key);
  return it != flags_.end() && it->second;
}

std::optional<std::string> Parsed::value(std::string_view key) const {
  check(key);
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Parsed::values(std::string_view key) const {
  check(key);
  auto it = values_.find(key);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

namespace {

std::string option_names(const OptionDef& o) { return o.short_name.empty() ? o.long_name : o.short_name + "," + o.long_name; }

void add_option(CLI::App& app, const OptionDef& o, Parsed& parsed) {
  if (o.value.empty()) {
    app.add_flag(option_names(o), parsed.flag_slot(o.key()), o.help);
    return;
  }
  CLI::Option* opt = app.add_option(option_names(o), parsed.value_slot(o.key()), o.help)
                         ->expected(o.value_optional ? 0 : 1, 1)
                         ->allow_extra_args(false)  // one word: the next is an argument, not a second value
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                         ->type_name(o.value);
  if (o.required) opt->required();
  if (o.check == "count") opt->check(CLI::NonNegativeNumber);
  if (o.check == "positive") opt->check(CLI::PositiveNumber);
}

void add_argument(CLI::App& app, const CommandDef& c, const ArgumentDef& a, Parsed& parsed) {
  CLI::Option* opt = app.add_option(a.name, parsed.value_slot(a.name), a.help);
  if (a.many) {
    // A list takes any number by default; -1: at least one, no limit.
    if (a.count > 0) opt->expected(a.required ? a.count : 0, a.count);
    else if (a.required) opt->expected(-1);
  } else {
    opt->expected(1)->allow_extra_args(false);  // one word, the next is the next argument's
  }
  if (a.required) opt->required();
  if (c.argument_check == "existing-file") opt->check(CLI::ExistingFile);
}

// A subcommand of `parent` for `c`, its options writing into `parsed`.
CLI::App* add_command(CLI::App& parent, const CommandDef& c, Parsed& parsed) {
  CLI::App* app = parent.add_subcommand(c.name, c.summary);
  app->set_help_flag();  // -h and --help are git's, handled before CLI11 (run)
  for (const OptionDef& o : c.options) add_option(*app, o, parsed);
  for (const auto& set : c.exclusive)
    for (const std::string& a : set)
      for (const std::string& b : set)
        if (a < b) app->get_option(a)->excludes(app->get_option(b));
  for (const ArgumentDef& a : c.arguments)
    if (!a.after_dashdash) add_argument(*app, c, a, parsed);  // those CommandLine::run takes itself
  if (!c.subcommands.empty()) app->require_subcommand(0, 1);
  return app;
}

// The command argv names: argv[1], and argv[2] for a command with
// subcommands when it names one. Null when argv[1] names none.
std::pair<const CommandDef*, int> named_command(const Definition& def, int argc, char** argv) {
  const CommandDef* c = def.command(argc > 1 ? argv[1] : "");
  if (!c || c->subcommands.empty() || argc < 3) return {c, 2};
  for (const CommandDef& s : c->subcommands)
    if (s.name == argv[2]) return {&s, 3};
  return {c, 2};
}

// Whether `word` appears among the command's own arguments (before `--`).
bool given(int from, int argc, char** argv, std::string_view word) {
  for (int i = from; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") return false;
    if (argv[i] == word) return true;
  }
  return false;
}

// The words after `--` for the argument that takes them (run's command),
// handed over whole: they are another program's, options included.
// Returns the argument count CLI11 is to parse, the words before `--`.
int take_after_dashdash(const CommandDef& c, int from, int argc, char** argv, Parsed& parsed) {
  auto it = std::find_if(c.arguments.begin(), c.arguments.end(), [](const ArgumentDef& a) { return a.after_dashdash; });
  if (it == c.arguments.end()) return argc;
  int dashdash = from;
  while (dashdash < argc && std::string_view(argv[dashdash]) != "--") ++dashdash;
  std::vector<std::string>& words = parsed.value_slot(it->name);
  for (int i = dashdash + 1; i < argc; ++i) words.emplace_back(argv[i]);
  if (it->required && words.empty()) throw CLI::RequiredError("<" + it->name + "> after --");
  return dashdash;
}

}  // namespace

CommandLine::CommandLine(const Definition& def, std::map<std::string, Runner> runners) : def_(def), runners_(std::move(runners)) {
  for (const CommandDef& c : def.commands) {
    if (c.subcommands.empty() && !runners_.count(c.name)) throw std::logic_error("no runner for " + c.name);
    for (const CommandDef& s : c.subcommands)
      if (!runners_.count(c.name + " " + s.name)) throw std::logic_error("no runner for " + c.name + " " + s.name);
  }
}

Outcome CommandLine::run(int argc, char** argv) {
  const auto named = named_command(def_, argc, argv);
  const CommandDef* const command = named.first;  // not a structured binding: lambdas capture it
  const int first_argument = named.second;
  if (!command) throw std::logic_error("run needs a command");
  const bool sub = first_argument == 3;
  const std::string& path = command->path;
  const CommandDef& top = *def_.command(argv[1]);
  if (given(first_argument, argc, argv, "--git-completion-helper")) {
    std::cout << completion_words(*command);
    return {0, path};
  }
  if (given(first_argument, argc, argv, "-h")) {
    std::cout << usage_text(*command);
    return {kUsageStatus, path};
  }
  if (given(first_argument, argc, argv, "--help")) return {show_manual(top), path};

  CLI::App app{def_.summary, def_.program};
  app.set_help_flag();
  std::vector<std::unique_ptr<Parsed>> parsed;
  auto add = [&](CLI::App& parent, const CommandDef& c) {
    parsed.push_back(std::make_unique<Parsed>(def_, c));
    return add_command(parent, c, *parsed.back());
  };
  CLI::App* top_app = add(app, top);
  for (const CommandDef& s : top.subcommands) add(*top_app, s);
  Parsed& mine = **std::find_if(parsed.begin(), parsed.end(), [&](const auto& p) { return &p->command() == command; });
  try {
    argc = take_after_dashdash(*command, first_argument, argc, argv, mine);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::cerr << "git-jpblob: " << e.what() << "\n\n" << usage_text(*command);
    return {kUsageStatus, path};
  }
  if (!top.subcommands.empty() && !sub) {  // `artifacts` alone: its subcommands, as `git jpblob` alone lists the commands
    std::cout << subcommand_list(top);
    return {0, path};
  }
  return {runners_.at(path)(mine), path};
}

int show_manual(const CommandDef& command) {
  exec_manual_page("git-jpblob-" + command.name);  // returns when there is no page
  std::cout << help_page(command);
  return 0;
}

}  // namespace jpblob::cli
