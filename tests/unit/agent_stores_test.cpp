// Where oh-my-pi's own blob store is, and what is taken from it: a copy
// only when its bytes are the blob its name says.
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/format/digest.hpp"
#include "core/store/agent_stores.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;
using test::TempDir;

struct AgentEnvironment {
  TempDir dir;
  ScopedEnv home{"HOME", (dir / "home").c_str()};
  ScopedEnv agent{"PI_CODING_AGENT_DIR", nullptr};
  ScopedEnv config{"PI_CONFIG_DIR", nullptr};
  ScopedEnv xdg{"XDG_DATA_HOME", nullptr};
};

TEST(AgentStores, FindsOhMyPisFoldersInItsOrderAndOnlyThoseThatExist) {
  AgentEnvironment env;
  EXPECT_TRUE(AgentBlobStores::from_environment().folders().empty());
  EXPECT_NE(AgentBlobStores::from_environment().describe().find("no oh-my-pi blob folder"), std::string::npos);

  const fs::path home_store = env.dir / "home/.omp/agent/blobs";
  fs::create_directories(home_store);
  EXPECT_EQ(AgentBlobStores::from_environment().folders(), std::vector<fs::path>{home_store});
  EXPECT_EQ(AgentBlobStores::from_environment().describe(), "~/.omp/agent/blobs");

  fs::create_directories(env.dir / "agent/blobs");
  fs::create_directories(env.dir / "xdg/omp/blobs");
  ScopedEnv agent("PI_CODING_AGENT_DIR", (env.dir / "agent").c_str());
  ScopedEnv xdg("XDG_DATA_HOME", (env.dir / "xdg").c_str());
  const std::vector<fs::path> want = {env.dir / "agent/blobs", env.dir / "xdg/omp/blobs", home_store};
  EXPECT_EQ(AgentBlobStores::from_environment().folders(), want);

  fs::create_directories(env.dir / "home/.pi-config/agent/blobs");
  ScopedEnv config("PI_CONFIG_DIR", ".pi-config");
  EXPECT_EQ(AgentBlobStores::from_environment().folders().back(), env.dir / "home/.pi-config/agent/blobs");
}

TEST(AgentStores, TakesOnlyACopyWhoseBytesAreItsName) {
  TempDir dir;
  const fs::path wrong = dir / "first", right = dir / "second";
  fs::create_directories(wrong);
  fs::create_directories(right);
  const std::string image = test::random_bytes(5000, 7);
  const Digest digest = Sha256::of(image);
  const AgentBlobStores stores({wrong, right});
  std::string why;

  EXPECT_FALSE(stores.fetch(digest, 1 << 20, &why));
  EXPECT_EQ(why, "");  // nowhere: nothing was passed over

  test::write_text(wrong / digest.hex(), "not the image");
  EXPECT_FALSE(stores.fetch(digest, 1 << 20, &why));
  EXPECT_NE(why.find("does not hold the blob its name says"), std::string::npos) << why;

  test::write_text(right / digest.hex(), image);
  const auto got = stores.fetch(digest, 1 << 20);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, image);  // the first folder's wrong copy is passed over

  why.clear();
  EXPECT_FALSE(stores.fetch(digest, 100, &why));  // larger than the store takes
  EXPECT_FALSE(why.empty());

  fs::remove(wrong / digest.hex());
  fs::create_directory(wrong / digest.hex());  // not a file
  EXPECT_EQ(*stores.fetch(digest, 1 << 20, &why), image);
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
}

}  // namespace
}  // namespace jpblob
