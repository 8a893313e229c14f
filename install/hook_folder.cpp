#include "hook_folder.hpp"

#include <sys/stat.h>

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::string marker(const std::string& hook) { return "# git-jpblob " + hook + " hook"; }

SafeLocation locate(const fs::path& hooks, const fs::path& top) {
  const fs::path rel = hooks.lexically_relative(top);
  if (rel.empty() || *rel.begin() == "..") {
    std::error_code ec;
    fs::create_directories(hooks.parent_path(), ec);
  }
  return locate_safely(hooks, top);
}

// One line, and a failed hook, when git-jpblob is not where PATH leads
// (moved, uninstalled, or a PATH of a GUI or a cron job without it), as
// git-lfs's hooks say when `git-lfs` is not found.
std::string found_on_path(const std::string& hook) {
  // Backquotes escaped: the line is inside a double-quoted shell word.
  const std::string skip = hook == "pre-commit" ? " (\\`git commit --no-verify\\` skips this check once)"
                           : hook == "pre-push" ? " (\\`git push --no-verify\\` skips this check once)"
                                                : "";
  return std::string("command -v ") + kProgramName + " >/dev/null 2>&1 || {\n"
         "  echo >&2 \"git-jpblob: the " + hook + " hook cannot run git-jpblob: it is not on PATH. Install it, or "
         "put the folder that holds it on PATH" + skip + "\"\n"
         "  exit 1\n"
         "}\n";
}

}  // namespace

std::optional<std::string> tracked_hooks_folder(const RepoLayout& repo) {
  const fs::path rel = repo.hooks.lexically_normal().lexically_relative(repo.top.lexically_normal());
  if (rel.empty() || *rel.begin() == ".." || *rel.begin() == ".git") return std::nullopt;
  if (GitCli(repo.top).index_entries({literal_pathspec(rel.string())}).empty()) return std::nullopt;
  return rel.string();
}

std::string tracked_hooks_advice(const std::string& folder) {
  return "the hooks folder " + folder + " is tracked by this repository, so git-jpblob does not write its hooks "
         "there (they would be committed for the whole team, without asking it). Add the line `git jpblob pre-commit || exit 1` "
         "to " + folder + "/pre-commit and `git jpblob pre-push \"$@\" || exit 1` to " + folder +
         "/pre-push, for the whole team";
}

bool shared_hooks_folder(const RepoLayout& repo) {
  const auto inside = [&](const fs::path& dir) {
    const auto rel = repo.hooks.lexically_normal().lexically_relative(dir.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
  };
  return !inside(repo.top) && !inside(repo.common_dir);
}

const std::vector<std::string>& our_hooks() {
  static const std::vector<std::string> hooks = {"pre-commit", "pre-push", "post-checkout"};
  return hooks;
}

std::string chained_name(const std::string& hook) { return hook + ".jpblob-chained"; }

bool is_git_lfs_hook(const std::string& text, const std::string& hook) {
  return text.starts_with("#!/bin/sh\n") && text.find("configured for Git LFS") != std::string::npos &&
         text.find("git lfs " + hook + " \"$@\"") != std::string::npos && text.size() < 1024;
}

bool owes_git_lfs_pre_push(const HookFolder& folder, bool uses_git_lfs, const std::string& running) {
  if (!uses_git_lfs || !folder.is_ours("pre-push", running)) return false;
  // A chained hook that runs git-lfs (its own, or a user's that calls it)
  // has sent the objects already.
  const std::string chained = folder.read(chained_name("pre-push")).value_or("");
  return chained.find("git lfs pre-push") == std::string::npos &&
         chained.find("git-lfs pre-push") == std::string::npos;
}

std::string hook_text(const std::string& hook) {
  const std::string run = std::string(kProgramName) + " " + hook + " \"$@\"";
  const std::string chained = "chained=\"$(dirname \"$0\")/" + chained_name(hook) + "\"\n";
  if (hook == "pre-push") {
    // git writes the refs to push on standard input: both hooks read it.
    return "#!/bin/sh\n" + marker(hook) +
           ": refuses to push a commit whose conversations\n"
           "# reference a blob it lacks or holds corrupt. `git jpblob uninstall` removes\n"
           "# it and puts back the hook it chained, if any.\n"
           "input=$(cat)\n" + found_on_path(hook) + chained +
           "if [ -x \"$chained\" ]; then\n"
           "  printf '%s\\n' \"$input\" | \"$chained\" \"$@\" || exit $?\n"
           "fi\n"
           "printf '%s\\n' \"$input\" | " + run + "\n";
  }
  if (hook == "post-checkout") {
    return "#!/bin/sh\n" + marker(hook) +
           ": a new clone of a repository that holds\n"
           "# conversations keeps its committed blobs in git's objects only (lean).\n"
           "# `git jpblob uninstall` removes it and puts back the hook it chained, if any.\n" +
           found_on_path(hook) + chained +
           "if [ -x \"$chained\" ]; then\n"
           "  \"$chained\" \"$@\" || exit $?\n"
           "fi\n"
           "exec " + run + "\n";
  }
  return "#!/bin/sh\n" + marker(hook) +
         ": stages the blobs each committed conversation\n"
         "# references and verifies them. `git jpblob uninstall` removes it and puts\n"
         "# back the hook it chained, if any.\n" + found_on_path(hook) + chained +
         "if [ -x \"$chained\" ]; then\n"
         "  \"$chained\" \"$@\" || exit $?\n"
         "fi\n"
         "exec " + run + "\n";
}

HookFolder::HookFolder(const fs::path& hooks, const fs::path& top) : path_(hooks), location_(locate(hooks, top)) {}

bool HookFolder::exists(const std::string& name) const {
  return location_.base.lstat(location_.rel / name).has_value();
}

bool HookFolder::runnable(const std::string& name) const {
  const auto st = location_.base.lstat(location_.rel / name);
  return st && S_ISREG(st->st_mode) && (st->st_mode & S_IXUSR);
}

std::optional<std::string> HookFolder::read(const std::string& name) const {
  const auto st = location_.base.lstat(location_.rel / name);
  if (!st || !S_ISREG(st->st_mode)) return std::nullopt;
  return location_.base.read(location_.rel / name, 1 << 20);
}

bool HookFolder::is_ours(const std::string& hook, const std::string& file) const {
  const auto text = read(file.empty() ? hook : file);
  if (!text) return false;
  // The marker stands on one of the first three lines.
  std::size_t start = 0;
  for (int line = 0; line < 3 && start < text->size(); ++line) {
    const std::size_t end = std::min(text->find('\n', start), text->size());
    if (std::string_view(*text).substr(start, end - start).starts_with(marker(hook))) return true;
    start = end + 1;
  }
  return false;
}

void HookFolder::write_hook(const std::string& name, const std::string& text) const {
  location_.base.write_atomic(location_.rel / name, text, 0755);
}

void HookFolder::rename(const std::string& from, const std::string& to) const {
  location_.base.rename(location_.rel / from, location_.rel / to);
}

void HookFolder::remove(const std::string& name) const { location_.base.remove(location_.rel / name); }

}  // namespace jpblob
