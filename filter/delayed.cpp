#include "delayed.hpp"

#include <algorithm>

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

bool DelayedSmudges::may_start() const { return ready_count_ == 0 || ready_bytes_ < budget_; }

void DelayedSmudges::add(const std::string& path, Job job) {
  std::lock_guard lock(mutex_);
  // The pool starts with the first delayed file: a session that only
  // cleans never has one.
  if (pool_.empty())
    for (unsigned t = 0; t < threads_; ++t) pool_.emplace_back([this] { work(); });
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
    lock.unlock();
    Result result;
    try {
      result = job();
    } catch (...) {  // a job must not throw; should one, its file fails, not the process
      result = Result{false, {}, path + ": unexpected failure"};
    }
    job = nullptr;  // its copy of the input goes now, not under the lock
    lock.lock();
    --running_;
    it = entries_.find(path);
    if (it != entries_.end() && it->second.id == id) {
      // What the string holds, not its length: built by appending, it can
      // hold up to twice that. A failure counts nothing: it waits for every
      // other file to be listed, and must not pause the pool they need.
      it->second.held = result.ok ? result.content.capacity() : 0;
      ready_bytes_ += it->second.held;
      ++ready_count_;
      it->second.result = std::move(result);
      it->second.state = State::Ready;
    }
    wake_git_.notify_all();
  }
}

std::vector<std::string> DelayedSmudges::available() {
  std::unique_lock lock(mutex_);
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
  const auto first_ready = [&] {
    for (const auto& [id, path] : unlisted_) {
      const Entry& e = entries_.at(path);
      if (!failed(e)) return e.state == State::Ready;
    }
    return true;  // none left, or only failures
  };
  wake_git_.wait(lock, first_ready);
  std::vector<std::string> paths;
  bool only_failures = true;
  for (auto it = unlisted_.begin(); it != unlisted_.end();) {
    Entry& e = entries_.at(it->second);
    if (failed(e)) {  // git stops at it: later, after every file it can write
      ++it;
      continue;
    }
    only_failures = false;
    if (e.state != State::Ready) break;
    e.state = State::Listed;
    paths.push_back(it->second);
    it = unlisted_.erase(it);
  }
  if (only_failures) {
    for (const auto& [id, path] : unlisted_) {
      entries_.at(path).state = State::Listed;
      paths.push_back(path);
    }
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
  --ready_count_;
  entries_.erase(it);
  wake_workers_.notify_all();
  return result;
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
