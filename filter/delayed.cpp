#include "delayed.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

DelayedSmudges::DelayedSmudges(std::size_t budget, unsigned threads)
    : budget_(budget), threads_(threads ? threads : std::clamp(std::thread::hardware_concurrency(), 1u, 8u)) {}

DelayedSmudges::~DelayedSmudges() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_workers_.notify_all();
  for (auto& t : pool_) t.join();
}

unsigned threads_from_environment() {
  const char* value = std::getenv("JPBLOB_THREADS");
  if (!value || !*value) return 0;
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(value, value + std::strlen(value), n);
  if (ec != std::errc() || *end != '\0' || n == 0 || n > 256)
    throw Error(std::string("JPBLOB_THREADS: '") + value + "' is not a number of threads from 1 to 256");
  return n;
}

bool DelayedSmudges::may_start() const { return ready_count_ == 0 || ready_bytes_ < budget_; }

void DelayedSmudges::admit(std::unique_lock<std::mutex>& lock, std::uint64_t id, std::size_t bytes) {
  // In turn: every job before this one was let in or ended. Within the
  // budget: beside what is held, or alone when nothing is.
  wake_workers_.wait(lock, [&] {
    if (stopping_) return true;
    if (*waiting_.begin() != id) return false;
    const std::size_t held = ready_bytes_ + reserved_bytes_ + in_hand_;
    return bytes == 0 || held == 0 || (held <= budget_ && bytes <= budget_ - held);
  });
  if (stopping_ && bytes != 0) throw Error("the filter is stopping");
  waiting_.erase(id);
  wake_workers_.notify_all();
}

std::size_t DelayedSmudges::peak_held() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void DelayedSmudges::add(const std::string& path, Job job) {
  std::lock_guard lock(mutex_);
  // The pool starts with the first delayed file: a session that only
  // cleans never has one.
  // Its threads beyond the first take the process's worker slots
  // (core/base/parallel.hpp), which bound every pool's threads by the
  // descriptor limit, the smudges' own parallel_for included.
  if (pool_.empty())
    for (unsigned t = 0; t < threads_; ++t) {
      const bool slot = t > 0;
      if (slot && !take_worker_slot()) break;
      try {
        pool_.emplace_back([this, slot] {
          work();
          if (slot) give_back_worker_slot();
        });
      } catch (const std::system_error& e) {
        if (slot) give_back_worker_slot();
        // Fewer workers do the same work (ulimit -u, memory); none at all
        // is said as such: JPBLOB_THREADS cannot help there.
        if (pool_.empty())
          throw Error(std::string("cannot start a thread to restore conversations: ") + e.what() +
                      " (ulimit -u, or memory)");
        break;
      }
    }
  Entry& e = entries_[path];
  if (e.state == State::Ready || e.state == State::Listed) {
    ready_bytes_ -= e.held;
    --ready_count_;
  }
  if (e.id) unlisted_.erase(e.id);
  e = Entry{next_id_++, State::Queued, std::move(job), {}, 0};
  queue_.emplace_back(path, e.id);
  unlisted_.emplace(e.id, path);
  wake_workers_.notify_one();
}

void DelayedSmudges::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_workers_.wait(lock, [this] { return stopping_ || (!queue_.empty() && may_start()); });
    if (stopping_) return;
    const auto [path, id] = queue_.front();
    queue_.pop_front();
    auto it = entries_.find(path);
    if (it == entries_.end() || it->second.id != id || it->second.state != State::Queued) continue;  // replaced
    Job job = std::move(it->second.job);
    it->second.state = State::Running;
    ++running_;
    waiting_.insert(id);
    lock.unlock();
    Result result;
    std::size_t reserved = 0;
    const Reserve reserve = [&, id = id](std::size_t bytes) {
      std::unique_lock inner(mutex_);
      if (!waiting_.contains(id)) return true;  // once only
      if (bytes > budget_) {  // in turn, charged what it gives back
        admit(inner, id, 0);
        return false;
      }
      admit(inner, id, bytes);
      reserved = bytes;
      reserved_bytes_ += bytes;
      peak_ = std::max(peak_, ready_bytes_ + reserved_bytes_ + in_hand_);
      return true;
    };
    try {
      result = job(reserve);
    } catch (...) {  // a job must not throw; should one, its file fails, not the process
      result = Result{false, {}, path + ": unexpected failure", {}};
    }
    job = nullptr;  // its copy of the input goes now, not under the lock
    lock.lock();
    // A job that declared nothing is charged its result, in its turn.
    if (waiting_.contains(id)) admit(lock, id, 0);
    reserved_bytes_ -= reserved;
    --running_;
    it = entries_.find(path);
    if (it != entries_.end() && it->second.id == id) {
      // What the string holds, not its length: built by appending, it can
      // hold up to twice that. A failure counts nothing: it waits for every
      // other file to be listed, and must not pause the pool they need.
      it->second.held = result.ok ? result.content.capacity() : 0;
      ready_bytes_ += it->second.held;
      peak_ = std::max(peak_, ready_bytes_ + reserved_bytes_ + in_hand_);
      ++ready_count_;
      it->second.result = std::move(result);
      it->second.state = State::Ready;
    }
    wake_git_.notify_all();
    wake_workers_.notify_all();  // a job waiting for its turn
  }
}

std::vector<std::string> DelayedSmudges::available() {
  std::unique_lock lock(mutex_);
  in_hand_ = 0;  // git asks once it has read every file it fetched
  // git fetches what one call listed before it asks again: anything still
  // listed is a file it gave up on.
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.state == State::Listed) {
      ready_bytes_ -= it->second.held;
      --ready_count_;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  wake_workers_.notify_all();
  // Jobs start in queue order, so the first unlisted entry that has not
  // failed is running or ready (the failures before it hold no bytes, so
  // the budget does not pause the pool): waiting for it cannot stall.
  const auto failed = [](const Entry& e) { return e.state == State::Ready && !e.result.ok; };
  // Files that may still fail once git fetches them (restored then, in
  // git's thread) wait with the failures, and go before them.
  const auto deferred = [&](const Entry& e) {
    return failed(e) || (e.state == State::Ready && e.result.later);
  };
  const auto first_ready = [&] {
    for (const auto& [id, path] : unlisted_) {
      const Entry& e = entries_.at(path);
      if (!deferred(e)) return e.state == State::Ready;
    }
    return true;  // none left, or only deferred files
  };
  wake_git_.wait(lock, first_ready);
  std::vector<std::string> paths;
  bool only_deferred = true;
  for (auto it = unlisted_.begin(); it != unlisted_.end();) {
    Entry& e = entries_.at(it->second);
    if (deferred(e)) {  // git stops at a failure: later, after every file it can write
      ++it;
      continue;
    }
    only_deferred = false;
    if (e.state != State::Ready) break;
    e.state = State::Listed;
    paths.push_back(it->second);
    it = unlisted_.erase(it);
  }
  if (only_deferred) {
    for (const bool failures : {false, true})
      for (const auto& [id, path] : unlisted_)
        if (failed(entries_.at(path)) == failures) paths.push_back(path);
    for (const auto& path : paths) entries_.at(path).state = State::Listed;
    unlisted_.clear();
  }
  return paths;
}

std::optional<DelayedSmudges::Result> DelayedSmudges::take(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(path);
  if (it == entries_.end() || it->second.state != State::Listed) return std::nullopt;
  Result result = std::move(it->second.result);
  ready_bytes_ -= it->second.held;
  in_hand_ = it->second.held;  // git asks for a file once it has read the one before
  --ready_count_;
  entries_.erase(it);
  wake_workers_.notify_all();
  return result;
}

void DelayedSmudges::handed_over() {
  {
    std::lock_guard lock(mutex_);
    in_hand_ = 0;
  }
  wake_workers_.notify_all();
}

std::optional<std::string> DelayedSmudges::failure(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(path);
  if (it == entries_.end() || it->second.state != State::Listed || it->second.result.ok) return std::nullopt;
  return it->second.result.error;
}

bool DelayedSmudges::listed(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(path);
  return it != entries_.end() && it->second.state == State::Listed;
}

}  // namespace jpblob
