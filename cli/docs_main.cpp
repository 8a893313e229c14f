// jpblob-docs: writes what is made from the command line's definition
// (cli/commands.json) at build time, and checks the one copy kept in the
// source, the README's command table.
//   jpblob-docs man <folder> <git-jpblob.1.in> <version>   the manual pages
//   jpblob-docs readme <README.md>                         exit 1 when its table differs
//   jpblob-docs readme --write <README.md>                 bring the table up to date
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli/definition.hpp"
#include "cli/man_pages.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

int write_man_pages(const fs::path& folder, const fs::path& overview, const std::string& version) {
  const jpblob::cli::Definition& def = jpblob::cli::definition();
  fs::create_directories(folder);
  write(folder / "git-jpblob.1", jpblob::cli::overview_page(def, read(overview), version));
  for (const auto& c : def.commands) write(folder / ("git-jpblob-" + c.name + ".1"), jpblob::cli::man_page(c, version));
  return 0;
}

int readme(const fs::path& path, bool update) {
  const std::string text = read(path);
  const std::string wanted = jpblob::cli::with_readme_table(text, jpblob::cli::readme_table(jpblob::cli::definition()));
  if (text == wanted) return 0;
  if (update) {
    write(path, wanted);
    return 0;
  }
  std::cerr << path.string() << ": its command table differs from cli/commands.json; run\n"
            << "  jpblob-docs readme --write " << path.string() << "\nThe table the definition makes:\n"
            << jpblob::cli::readme_table(jpblob::cli::definition());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "man" && argc == 5) return write_man_pages(argv[2], argv[3], argv[4]);
    if (what == "readme" && argc == 3) return readme(argv[2], false);
    if (what == "readme" && argc == 4 && std::string(argv[2]) == "--write") return readme(argv[3], true);
    std::cerr << "usage: jpblob-docs man <folder> <git-jpblob.1.in> <version>\n"
                 "   or: jpblob-docs readme [--write] <README.md>\n";
    return 129;
  } catch (const std::exception& e) {
    std::cerr << "jpblob-docs: " << e.what() << "\n";
    return 128;
  }
}
