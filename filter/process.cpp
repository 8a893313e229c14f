#include "process.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "core/base/error.hpp"
#include "delayed.hpp"
#include "filter.hpp"
#include "pktline.hpp"

namespace jpblob {

namespace {

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// Returns true when git may let this filter delay smudges (both sides
// named the capability).
bool handshake(PktReader& in, PktWriter& out) {
  const auto hello = in.read_list();
  if (hello.empty() || hello[0] != "git-filter-client")
    throw Error("filter-process: expected git-filter-client, got '" +
                (hello.empty() ? std::string() : hello[0]) + "'");
  if (!contains(hello, "version=2"))
    throw Error("filter-process: git does not offer protocol version 2");
  out.text("git-filter-server");
  out.text("version=2");
  out.flush_packet();
  out.send();
  const auto offered = in.read_list();
  for (const char* cap : {"capability=clean", "capability=smudge", "capability=delay"})
    if (contains(offered, cap)) out.text(cap);
  out.flush_packet();
  out.send();
  return contains(offered, "capability=delay");
}

std::string value_of(const std::vector<std::string>& lines, const std::string& key) {
  for (const auto& l : lines)
    if (l.size() > key.size() && l.compare(0, key.size(), key) == 0 && l[key.size()] == '=')
      return l.substr(key.size() + 1);
  return {};
}

// The message for the exception in flight, naming the file.
std::string failure_of(const std::string& path) {
  try {
    throw;
  } catch (const Error& e) {
    return e.what();
  } catch (const std::bad_alloc&) {
    return path + ": out of memory";
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  } catch (...) {
    return path + ": unknown failure";
  }
}

}  // namespace

void run_filter_process(int in_fd, int out_fd, const std::optional<std::filesystem::path>& store_dir,
                        const std::function<void(const Workspace&)>& on_ready) {
  PktReader in(in_fd);
  PktWriter out(out_fd);
  const bool may_delay = handshake(in, out);
  // A workspace that cannot be opened (a store refused as a link, a
  // malformed personal setting) fails every file with its reason, rather than
  // killing the server before git hears why.
  std::optional<Filter> filter;
  std::string unusable;
  try {
    filter.emplace(std::filesystem::current_path(), store_dir);
  } catch (const Error& e) {
    unusable = e.what();
  }
  if (filter && on_ready) on_ready(filter->workspace());
  // Smudges git lets wait run on every core while git writes the files
  // (filter/delayed). Destroyed before `filter`, whose workspace its jobs use.
  std::unique_ptr<DelayedSmudges> delayed;
  try {
    delayed = std::make_unique<DelayedSmudges>(DelayedSmudges::kDefaultBudget, threads_from_environment());
  } catch (const Error& e) {
    if (unusable.empty()) unusable = e.what();
    filter.reset();
    delayed = std::make_unique<DelayedSmudges>();
  }
  std::string result;
  auto say = [](const std::string& message) { std::cerr << "git-jpblob: " + message + "\n" << std::flush; };
  auto fail = [&](const std::string& message) {
    if (!message.empty()) say(message);
    out.text("status=error");
    out.flush_packet();
    out.send();
  };
  auto succeed = [&](std::string_view content) {
    out.text("status=success");
    out.flush_packet();
    out.content(content);
    out.flush_packet();
    out.flush_packet();  // an empty list: the status stays "success"
    out.send();
  };
  // Answers with what `restore` writes to its sink, piece by piece, so a
  // large file is never held whole: "status=success" goes before the first
  // piece, and a failure after it ends the content and says
  // "status=error" (git drops what it got; gitattributes(5)).
  auto stream = [&](const std::string& path, const std::function<void(const OutputSink&)>& restore) {
    bool started = false;
    const auto start = [&] {
      if (started) return;
      out.text("status=success");
      out.flush_packet();
      started = true;
    };
    try {
      restore([&](std::string_view piece) {
        start();
        out.content(piece);
      });
    } catch (...) {
      const std::string message = failure_of(path);
      if (started) out.flush_packet();
      fail(message);
      return;
    }
    start();
    out.flush_packet();
    out.flush_packet();  // an empty list: the status stays "success"
    out.send();
  };
  while (auto request = in.read_list_or_eof()) {
    const std::string command = value_of(*request, "command");
    if (command == "list_available_blobs") {  // no content follows this one
      for (const std::string& ready : delayed->available()) {
        // Failures come last, once every other file is written. git dies at
        // the first it fetches (a required filter): each is named now.
        if (auto error = delayed->failure(ready)) say(*error);
        out.text("pathname=" + ready);
      }
      out.flush_packet();
      out.text("status=success");
      out.flush_packet();
      out.send();
      continue;
    }
    const std::string path = value_of(*request, "pathname");
    SmudgeContext context;
    if (const std::string treeish = value_of(*request, "treeish"); !treeish.empty()) context.treeish = treeish;
    context.checkout = !value_of(*request, "blob").empty();
    std::string input = in.read_content();
    const bool can_delay = value_of(*request, "can-delay") == "1";
    if (auto ready = command == "smudge" ? delayed->take(path) : std::nullopt) {
      // git fetches a file it let wait with no content and no can-delay.
      // Any other smudge of the path is a new file, answered from its own
      // content below; the result listed for the old one is dropped.
      if (!can_delay && input.empty()) {
        if (ready->later)
          stream(path, ready->later);
        else if (ready->ok)
          succeed(ready->content);
        else
          fail(std::string());  // named when listed
        ready.reset();
        delayed->handed_over();
        continue;
      }
      ready.reset();
      delayed->handed_over();
    }
    if (command == "smudge" && may_delay && filter && can_delay &&
        !filter->workspace().settings().smudge_refs_only) {
      Filter* f = &*filter;
      delayed->add(path, [f, input = std::move(input), path, context](const DelayedSmudges::Reserve& reserve) {
        DelayedSmudges::Result r;
        try {
          SmudgeContext in_pool = context;
          in_pool.reserve = reserve;
          in_pool.into = &r.content;  // a large file is held once, not copied out of smudge
          f->run(FilterMode::Smudge, input, path, [&](std::string_view piece) { r.content.append(piece); },
                 in_pool);
          r.ok = true;
        } catch (const RestoreElsewhere&) {  // too large for the pool: git's thread streams it
          r = DelayedSmudges::Result{};
          r.ok = true;
          r.later = [f, input, path, context](const OutputSink& sink) {
            SmudgeContext streamed = context;
            streamed.stream = true;
            f->run(FilterMode::Smudge, input, path, sink, streamed);
          };
        } catch (...) {
          r.content = std::string();
          r.error = failure_of(path);
        }
        return r;
      });
      out.text("status=delayed");
      out.flush_packet();
      out.send();
      continue;
    }
    if (command == "smudge" && filter) {
      context.stream = true;
      stream(path, [&](const OutputSink& sink) { filter->run(FilterMode::Smudge, input, path, sink, context); });
      continue;
    }
    result.clear();
    try {
      if (command != "clean" && command != "smudge")
        throw Error("filter-process: unknown command '" + command + "' for " + path);
      if (!filter) throw Error(path + ": " + unusable);
      filter->run(command == "clean" ? FilterMode::Clean : FilterMode::Smudge, input, path,
                 [&](std::string_view piece) { result.append(piece); }, context);
      if (command == "clean") filter->record_clean(path, result);
    } catch (...) {
      // One file failed, whatever the failure (an Error, memory, a bug):
      // git reports it and sends the next. Only a broken stream, outside
      // this block, ends the server.
      const std::string message = failure_of(path);
      result = std::string();  // give back what a half-built answer held
      fail(message);
      continue;
    }
    succeed(result);
  }
  delayed.reset();
  // git has closed the pipe and waits for this process to end before it
  // goes on (a stash's `git clean` runs only then): the kept copies now.
  if (filter) finish(filter->workspace());
}

}  // namespace jpblob
