#include "core/maintenance/gc.hpp"

#include <gtest/gtest.h>

#include "core/documents/conversations.hpp"
#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

TEST(ListStore, FindsBlobsAndStrayTemporaryFilesOnly) {
  test::TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const Digest d = store.put("content").digest;
  const fs::path leaf = store.path_of(d).parent_path();
  test::write_text(leaf / ".jpblob-tmp-1-2-abc", "partial");
  test::write_text(leaf / "notes.txt", "not ours");
  test::write_text(leaf / (Sha256::of("x").hex() + ".blob.gz"), "in the wrong folder");
  fs::create_directory_symlink(t.path(), t / ".jp/blobs/ff");
  std::size_t blobs = 0, temps = 0, foreign = 0;
  for (const auto& e : store.entries()) {
    blobs += e.kind == StoreEntry::Kind::Blob;
    temps += e.kind == StoreEntry::Kind::Temporary;
    foreign += e.kind == StoreEntry::Kind::Foreign;
    if (e.kind == StoreEntry::Kind::Blob) {
      EXPECT_EQ(e.digest, d);
    }
  }
  EXPECT_EQ(blobs, 1u);
  EXPECT_EQ(temps, 1u);
  EXPECT_EQ(foreign, 3u);  // notes.txt, the misplaced blob, the symlink: reported, never judged
}

TEST(Conversations, ResolvesFoldersIdsAndHandles) {
  test::TempDir t;
  test::write_text(t / ".jp/conversations/17758406187-slug/events.json", "[]");
  test::write_text(t / ".jp/conversations/.archive/17000000001-old/events.json", "[]");
  const SafeDir base = SafeDir::open(t.path());
  const fs::path storage = ".jp";
  EXPECT_EQ(list_conversations(base, storage).size(), 2u);
  const fs::path want = ".jp/conversations/17758406187-slug";
  EXPECT_EQ(resolve_conversation(base, storage, t.path(), "17758406187"), want);
  EXPECT_EQ(resolve_conversation(base, storage, t.path(), "jp-c17758406187"), want);
  EXPECT_EQ(resolve_conversation(base, storage, t.path(), ".jp/conversations/17758406187-slug"), want);
  EXPECT_EQ(resolve_conversation(base, storage, t.path(), ".jp/conversations/17758406187-slug/events.json"), want);
  EXPECT_EQ(resolve_conversation(base, storage, t / ".jp", "conversations/17758406187-slug"), want);
  EXPECT_EQ(resolve_conversation(base, storage, t.path(), "17000000001"), ".jp/conversations/.archive/17000000001-old");
  EXPECT_THROW(resolve_conversation(base, storage, t.path(), "42"), Error);
  EXPECT_THROW(resolve_conversation(base, storage, t.path(), "../../etc"), Error);
}

TEST(Gc, KeepsWhatAWorkTreeConversationWouldReferenceAndDeletesNothingOnError) {
  test::TempDir t;
  test::ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", t.path().parent_path().c_str());
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  // "aGVsbG8=" is inline in the work tree: its blob must survive.
  test::write_text(t / ".jp/conversations/1-a/events.json",
                   R"([{"type":"tool_call_response","content":"aGVsbG8="}])");
  const Digest needed = store.put("hello").digest;
  const Digest orphan = store.put("orphan").digest;
  auto ws = Workspace::open(t.path());
  GcOptions now;
  now.grace_seconds = 0;
  auto report = run_gc(ws, now, {});
  EXPECT_TRUE(store.contains(needed));
  EXPECT_FALSE(store.contains(orphan));
  EXPECT_EQ(report.removed.size(), 1u);

  const Digest orphan2 = store.put("orphan 2").digest;
  test::write_text(t / ".jp/conversations/2-bad/events.json", "[{\"type\": ");
  EXPECT_THROW(run_gc(ws, now, {}), Error);
  EXPECT_TRUE(store.contains(orphan2));
}

}  // namespace
}  // namespace jpblob
