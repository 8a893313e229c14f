#include "manual.hpp"

#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "core/git/subprocess.hpp"

namespace jpblob {

void exec_manual_page() {
  try {
    // Asking first keeps man's "No manual entry" off the screen: without
    // the page, CLI11's help is the better answer.
    if (run_command({"man", "-w", "git-jpblob"}, std::filesystem::current_path()).status != 0) return;
  } catch (const std::exception&) {
    return;  // no man program, or no current folder: fall back
  }
  std::signal(SIGPIPE, SIG_DFL);
  char man[] = "man", page[] = "git-jpblob";
  char* argv[] = {man, page, nullptr};
  ::execvp(man, argv);
  std::signal(SIGPIPE, SIG_IGN);  // the caller's setting, for its fallback
}

std::string command_example(std::string_view command) {
  struct Example {
    std::string_view command, lines;
  };
  // One table: a new command without a row fails e2e diagnostics.
  static constexpr Example kExamples[] = {
      {"install", "git jpblob install            # once a machine; again in a clone for its hooks\n"
                  "  git jpblob install --no-lean  # this clone checks its blobs out"},
      {"uninstall", "git jpblob uninstall --local"},
      {"clean", "git-jpblob clean .jp/conversations/1-a/events.json < events.json > cleaned.json"},
      {"smudge", "git-jpblob smudge .jp/conversations/1-a/events.json < cleaned.json > events.json"},
      {"filter-process", "git config filter.jpblob.process 'git-jpblob filter-process'   # what install writes"},
      {"pre-commit", "git-jpblob pre-commit          # what .git/hooks/pre-commit runs"},
      {"post-checkout", "git-jpblob post-checkout \"$@\"   # what .git/hooks/post-checkout runs"},
      {"pre-push", "git-jpblob pre-push origin https://example.com/team.git < <git's ref lines>"},
      {"pre-receive", "printf '#!/bin/sh\\nexec git-jpblob pre-receive\\n' > hooks/pre-receive   # on the server"},
      {"purge-retired", "git-jpblob purge-retired \"$(git rev-parse --git-common-dir)\"   # what a commit starts"},
      {"gc", "git jpblob gc --dry-run && git jpblob gc --prune=now"},
      {"verify", "git jpblob verify --history origin/main..HEAD"},
      {"files", "git add $(git jpblob files jp-c17758406187)"},
      {"purge-list", "git jpblob purge-list 17758406187 > ../purge-paths.txt &&\n"
                     "  git filter-repo --invert-paths --paths-from-file ../purge-paths.txt   # README, \"Removing a leaked conversation\""},
      {"print", "git jpblob print 17758406187 | less"},
      {"cat", "git jpblob cat artifact://3 --session .jp/sessions/2026-04-10_abc.jsonl --offset 100 --limit 20"},
      {"store", "git jpblob store screenshot.png    # prints blob:sha256:<hex>"},
      {"run", "git jpblob run --session .jp/sessions/2026-04-10_abc.jsonl --tool bash -- make test\n"
              "  git jpblob run --json --threshold 12000 --session .jp/sessions/2026-04-10_abc.jsonl --tool bash -- make"},
      {"artifacts", "git jpblob artifacts gc --dry-run     # artifacts past jpblob.artifactTtl (1h), orphaned folders\n"
                    "  git jpblob artifacts stats --json"},
      {"migrate", "git jpblob migrate --dry-run"},
      {"checkout", "git jpblob checkout .jp/conversations/1-a"},
      {"repair", "git jpblob repair && git commit --amend --no-edit"},
      {"stats", "git jpblob stats --json"},
      {"merge", "git config merge.jpblob.driver 'git-jpblob merge %O %A %B %L %P'   # what install writes"},
      {"version", "git jpblob version"},
      {"env", "git jpblob env | grep ^hook"},
      {"status", "git jpblob status --json"},
      {"ls-files", "git jpblob ls-files HEAD~1 --json"},
      {"help", "git jpblob help gc"},
      {"textconv", "git config diff.jpblob.textconv 'git-jpblob textconv'   # what install writes"},
  };
  for (const Example& e : kExamples)
    if (e.command == command) return "Example:\n  " + std::string(e.lines) + "\n";
  return {};
}

}  // namespace jpblob
