#include "pre_commit.hpp"

#include <git2.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "core/blob_store.hpp"
#include "core/document.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/payload.hpp"
#include "core/subprocess.hpp"
#include "core/transform.hpp"
#include "core/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kBlobs = ".jp/blobs/";

// The ways back to a blob file, for messages.
std::string how_to_restore(const std::string& path) {
  return "restore the blob file (git checkout <commit> -- " + path +
         "), add the file that held the content again so clean rewrites it, or store the "
         "content itself with `git jpblob store <file>` (an agent's own blob file, say)";
}

struct StagedChange {
  char status;         // A, M, T…
  std::string id;      // the staged blob's id
  std::string path;
  std::string mode;    // the staged mode: 100644, 120000 (a symlink)…
};

class Hook {
 public:
  explicit Hook(const fs::path& cwd) : ws_(Workspace::open(cwd)) {
    if (!ws_.repo() || !ws_.repo()->workdir())
      throw Error("pre-commit must run in a repository with a work tree");
    repo_ = ws_.repo()->get();
    top_ = *ws_.repo()->workdir();
    // `git commit <paths>` commits a temporary index, then the real one
    // (held as index.lock): both must get the same staging.
    if (const char* file = std::getenv("GIT_INDEX_FILE");
        file && fs::path(file).filename().string().starts_with("next-index-")) {
      const fs::path real = ws_.repo()->gitdir() / "index.lock";
      if (fs::exists(real)) extra_index_ = real;
    }
  }

  PreCommitReport run() {
    for (const StagedChange& c : staged_changes()) {
      if (c.path.starts_with(kBlobs)) {
        if (c.status == 'A') verify_added_blob(c);
        else
          problem(c.path + " is a tracked blob whose content is being changed; a blob never changes: "
                           "git checkout HEAD -- " + c.path);
      } else if (c.mode == "100644" || c.mode == "100755") {
        documents_.push_back(c);  // a conversation or a session (document_pathspecs)
      }
    }
    for (const StagedChange& c : documents_) check_document(c);
    check_missing();
    if (report_.problems.empty()) stage_blobs();
    return report_;
  }

 private:
  git_repository* repo_ = nullptr;

  // What the commit changes under .jp/ against HEAD, asked of git itself:
  // it compares trees through the index's cache-tree, so the cost grows
  // with what is staged. (libgit2 1.5 needs a quarter of a second just to
  // read an index of 100,000 entries.)
  std::vector<StagedChange> staged_changes() {
    // Blobs, and every document: those under .jp, and any file
    // .gitattributes routes to the filter (sessions kept elsewhere).
    std::vector<std::string> args = {"diff", "--cached", "--raw", "-z", "--no-renames", "--no-ext-diff",
                                     "--abbrev=40", "--", std::string(kBlobs)};
    args.insert(args.end(), document_pathspecs().begin(), document_pathspecs().end());
    auto r = git(args);
    if (r.status != 0) throw Error("cannot list what is staged: " + r.err);
    std::vector<StagedChange> out;
    // Records: ":<mode> <mode> <id> <id> <status>\0<path>\0"
    const auto fields = split_records(r.out, '\0');
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
      const std::string& meta = fields[i];
      const std::string& path = fields[i + 1];
      if (meta.size() < 2 || meta[0] != ':') continue;
      const char status = meta.back();
      if (status == 'D') continue;
      const auto last_space = meta.rfind(' ');
      const auto id_start = meta.rfind(' ', last_space - 1) + 1;
      const auto mode_start = meta.find(' ') + 1;  // the staged side's mode
      out.push_back({status, meta.substr(id_start, last_space - id_start), path,
                     meta.substr(mode_start, meta.find(' ', mode_start) - mode_start)});
    }
    return out;
  }

  CommandOutput git(std::vector<std::string> args, const std::string& input = {},
                    const std::optional<fs::path>& index = std::nullopt) {
    args.insert(args.begin(), "git");
    if (!index) return run_command(args, top_, input);
    // The same command against another index file.
    std::vector<std::string> with_env = {"env", "GIT_INDEX_FILE=" + index->string()};
    with_env.insert(with_env.end(), args.begin(), args.end());
    return run_command(with_env, top_, input);
  }

  void problem(const std::string& line) { report_.problems.push_back(line); }

  // A blob file staged by hand (git add .jp/blobs) must still be what its
  // name says.
  void verify_added_blob(const StagedChange& c) {
    const std::string name = fs::path(c.path).filename().string();
    if (!name.ends_with(".blob.gz")) return;  // not a blob file: not ours to judge
    auto digest = Digest::from_hex(name.substr(0, name.size() - 8));
    if (!digest || c.path != std::string(kBlobs) + blob_relative_path(*digest)) return;
    auto raw = ws_.repo()->read_object(c.id);
    if (!raw) return;
    try {
      decode_blob(*raw, *digest, std::nullopt, ws_.store().options().max_blob_size, c.path + " (index)");
      staged_blobs_[c.path] = std::move(*raw);
    } catch (const Error& err) {
      problem(std::string(err.what()) + "; unstage it: git rm --cached " + c.path);
    }
  }

  void check_document(const StagedChange& c) {
    ++report_.conversations;
    auto staged = ws_.repo()->read_object(c.id);
    if (!staged) {
      problem("the staged " + c.path + " is missing from git's objects");
      return;
    }
    // 1. Inline payloads left by a missing filter: clean the staged version.
    const DocumentKind kind = document_kind(c.path);
    std::string cleaned;
    CleanOptions options;
    options.min_size = ws_.settings().min_size;
    options.path = c.path;
    const auto result = clean_document(kind, *staged, ws_.store(), options,
                                       [&](std::string_view s) { cleaned.append(s); });
    if (result.replaced > 0) restage(c.path, cleaned);
    // 2. Every reference, wherever it stands, needs its blob in the commit.
    DocumentNeeds needs;
    std::string why;
    document_needs(kind, cleaned, 0, needs, why);  // not a conversation: it holds no references
    for (const auto& ref : needs.references)
      if (referenced_.emplace(ref.digest).second) check_blob(c.path, ref);
  }

  // The cleaned conversation replaces the staged one, keeping the entry's
  // stat data (the work tree file is unchanged), so git status stays clean.
  // Rare (the filter was not installed), so libgit2's slow index is fine.
  void restage(const std::string& path, const std::string& cleaned) {
    git_oid id;
    check_git(git_blob_create_from_buffer(&id, repo_, cleaned.data(), cleaned.size()),
              "cannot store the cleaned " + path);
    std::vector<fs::path> indexes = {index_file()};
    if (extra_index_) indexes.push_back(*extra_index_);
    for (const auto& file : indexes) {
      git_index* index = nullptr;
      check_git(git_index_open(&index, file.c_str()), "cannot open " + file.string());
      std::unique_ptr<git_index, void (*)(git_index*)> owned(index, git_index_free);
      const git_index_entry* e = git_index_get_bypath(index, path.c_str(), 0);
      if (!e) continue;
      git_index_entry updated = *e;
      updated.id = id;
      check_git(git_index_add(index, &updated), "cannot restage " + path);
      check_git(git_index_write(index), "cannot write " + file.string());
    }
    ++report_.restaged;
  }

  fs::path index_file() const {
    if (const char* file = std::getenv("GIT_INDEX_FILE")) return fs::absolute(top_ / file);
    return ws_.repo()->gitdir() / "index";
  }

  void check_blob(const std::string& conversation, const BlobUse& ref) {
    const std::string hex = ref.digest.hex();
    const std::string path = std::string(kBlobs) + blob_relative_path(ref.digest);
    const std::string fix = "; " + how_to_restore(path);
    if (auto staged = staged_blobs_.find(path); staged != staged_blobs_.end()) {
      verify(conversation, ref, staged->second, path + " (index)", fix);
      return;
    }
    const fs::path file = top_ / path;
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
      missing_.push_back({conversation, ref, path});  // perhaps staged: asked in one go later
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      problem("blob " + hex + " referenced by " + conversation + " is not a regular file: " + path);
      return;
    }
    std::string raw;
    try {
      raw = read_file(file, ws_.store().options().max_blob_size * 2 + 1024);
    } catch (const Error& err) {
      problem(std::string(err.what()));
      return;
    }
    // Content that matches its name is the one right content for this path,
    // so a verified file may be staged whether or not it is tracked; one
    // that does not match refuses the commit, tracked or not.
    if (verify(conversation, ref, raw, path, fix)) to_stage_.push_back(path);
  }

  bool verify(const std::string& conversation, const BlobUse& ref, std::string_view raw,
              const std::string& what, const std::string& fix) {
    try {
      decode_blob(raw, ref.digest, ref.size, ws_.store().options().max_blob_size, what);
      return true;
    } catch (const Error& err) {
      problem(std::string(err.what()) + " (referenced by " + conversation + ")" + fix);
      return false;
    }
  }

  // Referenced blobs absent from the work tree pass only when the index
  // already holds them (a sparse checkout, a file deleted after staging).
  void check_missing() {
    if (missing_.empty()) return;
    std::vector<std::string> args = {"ls-files", "--stage", "-z", "--"};
    for (const auto& m : missing_) args.push_back(m.path);
    auto r = git(args);
    if (r.status != 0) throw Error("cannot read the index: " + r.err);
    for (const auto& m : missing_) {
      const auto at = r.out.find("\t" + m.path + std::string(1, '\0'));
      if (at == std::string::npos) {
        problem("blob " + m.ref.digest.hex() + " referenced by " + m.conversation + " is missing: " +
                m.path + "; " + how_to_restore(m.path));
        continue;
      }
      // "<mode> <id> <stage>\t<path>": verify what is staged.
      const auto line_start = r.out.rfind('\0', at) == std::string::npos ? 0 : r.out.rfind('\0', at) + 1;
      const std::string id = r.out.substr(line_start + 7, 40);
      auto raw = ws_.repo()->read_object(id);
      if (!raw) {
        problem("blob " + m.ref.digest.hex() + " referenced by " + m.conversation +
                " is staged but missing from git's objects");
        continue;
      }
      verify(m.conversation, m.ref, *raw, m.path + " (index)", "");
    }
  }

  // One `git update-index --add` per index file: git stats and hashes the
  // files itself and writes the index at git's speed.
  void stage_blobs() {
    if (to_stage_.empty()) return;
    std::string input;
    for (const auto& p : to_stage_) input.append(p).push_back('\0');
    std::vector<std::optional<fs::path>> indexes = {std::nullopt};
    if (extra_index_) indexes.push_back(*extra_index_);
    for (const auto& index : indexes) {
      auto r = git({"update-index", "--add", "-z", "--stdin"}, input, index);
      if (r.status != 0) throw Error("cannot stage the blob files: " + r.err);
    }
    report_.blobs_staged = to_stage_.size();
  }

  struct Missing {
    std::string conversation;
    BlobUse ref;
    std::string path;
  };

  Workspace ws_;
  fs::path top_;
  std::optional<fs::path> extra_index_;
  std::vector<StagedChange> documents_;
  std::map<std::string, std::string> staged_blobs_;  // verified blob files staged by hand
  std::set<Digest> referenced_;
  std::vector<std::string> to_stage_;
  std::vector<Missing> missing_;
  PreCommitReport report_;
};

}  // namespace

PreCommitReport run_pre_commit_hook(const fs::path& cwd) { return Hook(cwd).run(); }

}  // namespace jpblob
