// Where oh-my-pi's own blob store is, and what is taken from it: a copy
// only when its bytes are the blob its name says.
#include <gtest/gtest.h>
#include <pwd.h>
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
  ScopedEnv prefix{"GIT_PREFIX", nullptr};
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

  // oh-my-pi joins it to home with path.join, which keeps an absolute one
  // below home: PI_CONFIG_DIR=/pi is ~/pi.
  fs::create_directories(env.dir / "home/pi/agent/blobs");
  ScopedEnv absolute("PI_CONFIG_DIR", "/pi");
  EXPECT_EQ(AgentBlobStores::from_environment().folders().back(), env.dir / "home/pi/agent/blobs");
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

// `omp --profile work` keeps its blobs in the profile's own agent folder;
// the commit's environment need not say which profile wrote the session.
TEST(AgentStores, LooksInEveryProfilesFolder) {
  AgentEnvironment env;
  fs::create_directories(env.dir / "home/.omp/profiles/work/agent/blobs");
  fs::create_directories(env.dir / "xdg/omp/profiles/home/blobs");
  fs::create_directories(env.dir / "home/.omp/agent/blobs");
  ScopedEnv xdg("XDG_DATA_HOME", (env.dir / "xdg").c_str());
  const std::vector<fs::path> want = {env.dir / "home/.omp/agent/blobs", env.dir / "xdg/omp/profiles/home/blobs",
                                      env.dir / "home/.omp/profiles/work/agent/blobs"};
  EXPECT_EQ(AgentBlobStores::from_environment().folders(), want);
}

// oh-my-pi resolves a relative $PI_CODING_AGENT_DIR against the folder it
// ran in; git runs hooks at the top and names the folder of the commit in
// $GIT_PREFIX.
TEST(AgentStores, ARelativeAgentFolderIsTheCommitsFolders) {
  AgentEnvironment env;
  const fs::path before = fs::current_path();
  fs::create_directories(env.dir / "sub/agent/blobs");
  fs::current_path(env.dir.path());
  ScopedEnv agent("PI_CODING_AGENT_DIR", "agent");
  ScopedEnv prefix("GIT_PREFIX", "sub/");
  const auto folders = AgentBlobStores::from_environment().folders();
  fs::current_path(before);
  EXPECT_EQ(folders, std::vector<fs::path>{env.dir / "sub/agent/blobs"});
}

// Node's os.homedir(), which oh-my-pi asks, falls back to the account's
// home folder when $HOME is unset or empty; so does the lookup.
TEST(AgentStores, WithoutHomeTheAccountsHomeFolder) {
  AgentEnvironment env;
  const struct passwd* account = ::getpwuid(::getuid());
  ASSERT_TRUE(account && account->pw_dir);
  // A config folder named from the account's home, so nothing is made there.
  const fs::path config = fs::relative(env.dir / "cfg", account->pw_dir);
  fs::create_directories(env.dir / "cfg/agent/blobs");
  ScopedEnv named("PI_CONFIG_DIR", config.c_str());
  const std::vector<fs::path> want = {(fs::path(account->pw_dir) / config / "agent/blobs").lexically_normal()};
  for (const char* home : {static_cast<const char*>(nullptr), ""}) {
    ScopedEnv unset("HOME", home);
    EXPECT_EQ(AgentBlobStores::from_environment().folders(), want);
  }
}

}  // namespace
}  // namespace jpblob
