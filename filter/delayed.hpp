// Smudges git lets the filter delay (the "delay" capability of the
// long-running filter protocol, gitattributes(5), "Delay").
//
// Without it git and the filter take turns: git sends a file, waits while
// the filter restores it, writes it, then sends the next. With it the
// filter answers "delayed" at once and restores the file on a pool of
// threads while git goes on; git later asks which files are ready
// (`list_available_blobs`) and fetches each, and writes it while the pool
// restores the next ones. A checkout of many conversations uses both
// cores then.
//
// The queue runs jobs in the order they came, and lists a restored file only
// once every restored file queued before it is listed. A failure is held
// back until every other file is listed: git writes the files of a listing
// and dies at a failed one (a required filter), so every file that can be
// restored is written before git stops, whichever thread finishes first.
// Memory is bounded by one budget for everything the pool holds: the
// results waiting for git to fetch them, and the files being restored. A
// job declares, before it fetches anything, what restoring its file will
// hold at its peak (Reserve: the restored file plus the distinct blobs'
// bytes, which a conversation's references declare), and waits until that
// fits beside what is held already. Jobs are let in in git's order, so a
// later file never takes the room an earlier one waits for (git lists
// files in that order and would wait for the earlier one forever). A file
// larger than the budget is not restored in the pool: it comes back with
// what restores it, which git's thread runs when git fetches the file,
// streaming its pieces to git (it then holds one fetch window, never the
// file); the pool goes on meanwhile within its budget. Such a file can
// still fail as git reads it, so it is listed with the failures, before
// them. A
// job that declares nothing (a session, whose `blob:` URLs declare no
// size; a file with nothing to restore) is charged its result, in turn.
// A result git fetches is held until git has read it (handed_over). What
// a job's input holds is not counted: git sent it, and it is the
// committed form.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace jpblob {

class DelayedSmudges {
 public:
  // What a job gives back: the content, or why it failed (a message for
  // git's stderr, naming the file).
  struct Result {
    bool ok = false;
    std::string content;
    std::string error;
    // A file too large for the pool: restored in git's thread once git
    // fetches it, its pieces streamed to the sink it is given (throws
    // Error on failure). `content` holds what it restores from.
    std::function<void(const std::function<void(std::string_view)>&)> later;
  };
  // Called by a job, at most once and before it fetches any blob, with
  // the bytes it will hold at its peak; returns true when they fit the
  // budget beside what is held, false at once (in turn) when they exceed
  // the whole budget: the job then gives back a Result with `later`.
  // Throws Error when the pool is stopping.
  using Reserve = std::function<bool(std::size_t bytes)>;
  // A job must not throw: it turns its failures into a Result.
  using Job = std::function<Result(const Reserve&)>;

  // `threads`: 0 for one per core (at most 8); JPBLOB_THREADS sets it for
  // the filter (threads_from_environment).
  explicit DelayedSmudges(std::size_t budget = kDefaultBudget, unsigned threads = 0);
  // Drops what is queued, waits for the jobs running, and stops the pool.
  ~DelayedSmudges();
  DelayedSmudges(const DelayedSmudges&) = delete;
  DelayedSmudges& operator=(const DelayedSmudges&) = delete;

  // Queues the smudge of `path`. A path queued again (a checkout git
  // abandoned, then another) replaces what the earlier one would give.
  void add(const std::string& path, Job job);

  // Blocks until the first file not returned before that has not failed is
  // ready, then returns it and the restored ones queued right after it, in
  // queue order, passing over failures. Once every file not returned
  // before has failed, returns them all. Returns an empty list when nothing
  // is queued or running: git then knows it has every file. What an earlier
  // call returned and git never fetched is dropped.
  std::vector<std::string> available();

  // The result for a path available() returned, once; nullopt for any
  // other path. Its bytes stay in the budget until handed_over() or git's
  // next request: a job let in while git still reads a large file would
  // hold both at once.
  std::optional<Result> take(const std::string& path);

  // git has read what take() gave: its bytes leave the budget.
  void handed_over();

  // True while `path` was returned by available() and not yet taken.
  bool listed(const std::string& path) const;

  // Why a listed, not yet taken path failed; nullopt when it did not.
  std::optional<std::string> failure(const std::string& path) const;

  static constexpr std::size_t kDefaultBudget = std::size_t{64} << 20;

  // The most bytes held at once so far: results waiting or being handed
  // over, plus reservations.
  std::size_t peak_held() const;

 private:
  enum class State { Queued, Running, Ready, Listed };
  struct Entry {
    std::uint64_t id = 0;
    State state = State::Queued;
    Job job;
    Result result;
    std::size_t held = 0;  // the memory its result holds, counted in ready_bytes_
  };
  void work();
  bool may_start() const;  // the budget allows another job (lock held)
  // Lets job `id` in with `bytes` (0 when it declared nothing), in turn
  // and within the budget (lock held by `lock`).
  void admit(std::unique_lock<std::mutex>& lock, std::uint64_t id, std::size_t bytes);

  const std::size_t budget_;
  const unsigned threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_workers_;
  std::condition_variable wake_git_;
  std::map<std::string, Entry> entries_;  // by path
  std::deque<std::pair<std::string, std::uint64_t>> queue_;  // path and entry id, in git's order
  std::map<std::uint64_t, std::string> unlisted_;  // entry id -> path, of entries not listed yet
  std::size_t ready_bytes_ = 0;
  std::size_t reserved_bytes_ = 0;  // declared by running jobs that were let in
  std::size_t in_hand_ = 0;  // taken, not yet handed over
  std::size_t peak_ = 0;
  std::set<std::uint64_t> waiting_;  // ids of running jobs not let in yet
  std::size_t ready_count_ = 0;
  std::size_t running_ = 0;
  std::uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::vector<std::thread> pool_;
};

// The pool's threads JPBLOB_THREADS asks for (a positive number), or 0
// (one per core) when it is unset; a value that is no number is an Error.
unsigned threads_from_environment();

}  // namespace jpblob
