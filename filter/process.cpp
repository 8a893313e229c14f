#include "process.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "delayed.hpp"
#include "filter.hpp"
#include "pktline.hpp"

namespace jpblob {

namespace {

// How long git may be quiet between files before the blobs gathered for a
// pending pack are written: git sends the next file within a millisecond
// or two while it adds many.
constexpr int kQuietMs = 20;

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

void say(const std::string& message) { std::cerr << "git-jpblob: " + message + "\n" << std::flush; }

// status=error for one file, `message` (when not empty) on stderr first.
void answer_failure(PktWriter& out, const std::string& message) {
  if (!message.empty()) say(message);
  out.text("status=error");
  out.flush_packet();
  out.send();
}

void answer_content(PktWriter& out, std::string_view content) {
  out.text("status=success");
  out.flush_packet();
  out.content(content);
  out.flush_packet();
  out.flush_packet();  // an empty list: the status stays "success"
  out.send();
}

// Answers with what `restore` writes to its sink, piece by piece, so a
// large file is never held whole: "status=success" goes before the first
// piece, and a failure after it ends the content and says
// "status=error" (git drops what it got; gitattributes(5)).
void answer_streamed(PktWriter& out, const std::string& path,
                     const std::function<void(const OutputSink&)>& restore) {
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
    answer_failure(out, message);
    return;
  }
  start();
  out.flush_packet();
  out.flush_packet();  // an empty list: the status stays "success"
  out.send();
}

// The answer to list_available_blobs (no content follows this request).
void answer_list_available_blobs(PktWriter& out, DelayedSmudges& delayed) {
  for (const std::string& ready : delayed.available()) {
    // Failures come last, once every other file is written. git dies at
    // the first it fetches (a required filter): each is named now.
    if (auto error = delayed.failure(ready)) say(*error);
    out.text("pathname=" + ready);
  }
  out.flush_packet();
  out.text("status=success");
  out.flush_packet();
  out.send();
}

// The smudge of `path` as a job of the pool: it never throws, its failure
// is the Result's message.
DelayedSmudges::Job delayed_smudge(Filter& filter, std::string input, const std::string& path,
                                   const SmudgeContext& context) {
  Filter* f = &filter;
  return [f, input = std::move(input), path, context](const DelayedSmudges::Reserve& reserve) {
    DelayedSmudges::Result r;
    try {
      SmudgeContext in_pool = context;
      in_pool.reserve = reserve;
      in_pool.into = &r.content;  // a large file is held once, not copied out of smudge
      f->run(FilterMode::Smudge, input, path, [&](std::string_view piece) { r.content.append(piece); }, in_pool);
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
  };
}

// The filter and its pool of delayed smudges, opened once after the
// handshake, and the answer to each file git sends.
class FilterServer {
 public:
  FilterServer(PktWriter& out, bool may_delay, const std::optional<std::filesystem::path>& store_dir,
               const std::function<void(Filter&)>& on_ready);

  // A request naming a file (clean or smudge) and the content git sent.
  void answer_file(const std::vector<std::string>& request, std::string input);
  void answer_available_blobs() { answer_list_available_blobs(out_, *delayed_); }
  // git has closed the pipe.
  void end_of_requests();
  // Blobs clean gathered for a pending pack (core/lean/pending_packs) that
  // no pack holds yet; writes them. Between requests, when git is quiet.
  bool holds_unwritten_blobs() const;
  void write_blobs_now();

 private:
  bool answer_fetch_of_delayed(const std::string& path, bool can_delay, const std::string& input);
  void answer_at_once(const std::string& command, const std::string& path, const std::string& input,
                      const SmudgeContext& context);

  PktWriter& out_;
  const bool may_delay_;
  std::optional<Filter> filter_;
  std::string unusable_;  // why there is no filter_
  bool pass_through_ = false;  // a repository git-jpblob cannot read: every file goes back as it came
  // Smudges git lets wait run on every core while git writes the files
  // (filter/delayed). Destroyed before `filter_`, whose workspace its jobs use.
  std::unique_ptr<DelayedSmudges> delayed_;
  std::string result_;  // one clean's answer, its room reused for the next
};

FilterServer::FilterServer(PktWriter& out, bool may_delay, const std::optional<std::filesystem::path>& store_dir,
                           const std::function<void(Filter&)>& on_ready)
    : out_(out), may_delay_(may_delay) {
  // A workspace that cannot be opened (a store refused as a link, a
  // malformed personal setting) fails every file with its reason, rather than
  // killing the server before git hears why.
  try {
    filter_.emplace(std::filesystem::current_path(), store_dir);
  } catch (const UnsupportedRepository& e) {
    // Failing every file would block every add, status and checkout of
    // the repository: the files go through as they are, as a filter does
    // with input it cannot understand (SPEC §5).
    pass_through_ = true;
    std::cerr << "git-jpblob: warning: " << e.what() << "; conversations pass through unchanged" << std::endl;
  } catch (const Error& e) {
    unusable_ = e.what();
  }
  if (filter_ && on_ready) on_ready(*filter_);
  try {
    delayed_ = std::make_unique<DelayedSmudges>(DelayedSmudges::kDefaultBudget, threads_from_environment());
  } catch (const Error& e) {
    if (unusable_.empty()) unusable_ = e.what();
    filter_.reset();
    delayed_ = std::make_unique<DelayedSmudges>();
  }
}

void FilterServer::answer_file(const std::vector<std::string>& request, std::string input) {
  const std::string command = value_of(request, "command");
  const std::string path = value_of(request, "pathname");
  SmudgeContext context;
  if (const std::string treeish = value_of(request, "treeish"); !treeish.empty()) context.treeish = treeish;
  context.checkout = !value_of(request, "blob").empty();
  const bool can_delay = value_of(request, "can-delay") == "1";
  if (command == "smudge" && answer_fetch_of_delayed(path, can_delay, input)) return;
  if (command == "smudge" && may_delay_ && filter_ && can_delay &&
      !filter_->workspace().settings().smudge_refs_only) {
    delayed_->add(path, delayed_smudge(*filter_, std::move(input), path, context));
    out_.text("status=delayed");
    out_.flush_packet();
    out_.send();
    return;
  }
  if (command == "smudge" && filter_) {
    context.stream = true;
    answer_streamed(out_, path,
                    [&](const OutputSink& sink) { filter_->run(FilterMode::Smudge, input, path, sink, context); });
    return;
  }
  answer_at_once(command, path, input, context);
}

// git fetches a file it let wait with no content and no can-delay: true
// when this smudge was that fetch, answered. Any other smudge of the path
// is a new file, answered from its own content by the caller; the result
// listed for the old one is dropped.
bool FilterServer::answer_fetch_of_delayed(const std::string& path, bool can_delay, const std::string& input) {
  auto ready = delayed_->take(path);
  if (!ready) return false;
  const bool fetch = !can_delay && input.empty();
  if (fetch) {
    if (ready->later)
      answer_streamed(out_, path, ready->later);
    else if (ready->ok)
      answer_content(out_, ready->content);
    else
      answer_failure(out_, std::string());  // named when listed
  }
  ready.reset();
  delayed_->handed_over();
  return fetch;
}

// A clean, or a smudge without a usable workspace: the whole answer is
// built before any of it is sent.
void FilterServer::answer_at_once(const std::string& command, const std::string& path, const std::string& input,
                                  const SmudgeContext& context) {
  result_.clear();
  try {
    if (command != "clean" && command != "smudge")
      throw Error("filter-process: unknown command '" + command + "' for " + path);
    if (pass_through_) {
      result_ = input;
      answer_content(out_, result_);
      return;
    }
    if (!filter_) throw Error(path + ": " + unusable_);
    filter_->run(command == "clean" ? FilterMode::Clean : FilterMode::Smudge, input, path,
                 [&](std::string_view piece) { result_.append(piece); }, context);
    if (command == "clean") filter_->record_clean(path, result_);
  } catch (...) {
    // One file failed, whatever the failure (an Error, memory, a bug):
    // git reports it and sends the next. Only a broken stream, outside
    // this block, ends the server.
    const std::string message = failure_of(path);
    result_ = std::string();  // give back what a half-built answer held
    answer_failure(out_, message);
    return;
  }
  answer_content(out_, result_);
}

bool FilterServer::holds_unwritten_blobs() const {
  return filter_ && filter_->workspace().kept() && filter_->workspace().kept()->pending().gathered();
}

void FilterServer::write_blobs_now() {
  try {
    filter_->workspace().kept()->pending().flush();
  } catch (const Error& e) {
    // Tried again when git closes the pipe, where a failure is reported.
    JPBLOB_TRACE(std::string("filter: new blobs not written yet: ") + e.what());
  }
}

void FilterServer::end_of_requests() {
  delayed_.reset();
  // git has closed the pipe and waits for this process to end before it
  // goes on (a stash's `git clean` runs only then): the kept copies now.
  if (filter_) finish(filter_->workspace());
}

}  // namespace

void run_filter_process(int in_fd, int out_fd, const std::optional<std::filesystem::path>& store_dir,
                        const std::function<void(Filter&)>& on_ready) {
  PktReader in(in_fd);
  PktWriter out(out_fd);
  const bool may_delay = handshake(in, out);
  FilterServer server(out, may_delay, store_dir, on_ready);
  for (;;) {
    // git asks for the next file at once while it adds many; a pause means
    // it is doing something else, perhaps running the pre-commit hook
    // (`git commit -a` keeps its filter process until it exits), which
    // must find the new blobs in git's objects: written now, one pack for
    // what came in a burst.
    if (server.holds_unwritten_blobs() && !in.readable_within(kQuietMs)) server.write_blobs_now();
    auto request = in.read_list_or_eof();
    if (!request) break;
    if (value_of(*request, "command") == "list_available_blobs") {
      server.answer_available_blobs();
      continue;
    }
    server.answer_file(*request, in.read_content());
  }
  server.end_of_requests();
}

}  // namespace jpblob
