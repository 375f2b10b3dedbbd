// Where support/install_layout.h looks for run-time files: upwards from a directory for at most
// four levels, the nearest prefix that has the file winning; checked on a temporary tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/install_layout.h"
#include "support/temp_dir.h"

namespace ttune::support {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

TEST(InstallLayout, PrefixesAreTheDirectoryAndFourParentsNearestFirst) {
  TempDir tmp("ttune-layout");
  fs::path d = fs::path(tmp.path) / "a/b/c/d/e/f";
  auto prefixes = prefixesFrom(d);
  ASSERT_EQ(prefixes.size(), 5u);
  EXPECT_EQ(prefixes[0], d);
  EXPECT_EQ(prefixes[1], d.parent_path());
  EXPECT_EQ(prefixes[4], fs::path(tmp.path) / "a/b");
}

TEST(InstallLayout, PrefixesStopAtTheRoot) {
  EXPECT_EQ(prefixesFrom("/"), (std::vector<fs::path>{"/"}));
  EXPECT_EQ(prefixesFrom("/usr/lib"), (std::vector<fs::path>{"/usr/lib", "/usr", "/"}));
  EXPECT_TRUE(prefixesFrom("").empty());
}

TEST(InstallLayout, TheNearestPrefixThatHasTheFileWins) {
  TempDir tmp("ttune-layout");
  fs::path root(tmp.path);
  fs::path code = root / "venv/lib/site-packages/ttune";
  fs::create_directories(code);
  const fs::path worker = "libexec/ttune/ttune-worker";
  auto prefixes = prefixesFrom(code);
  EXPECT_TRUE(findIn(prefixes, worker).empty());  // nowhere yet
  touch(root / "venv" / worker);                  // a system-wide copy, three levels up
  EXPECT_EQ(findIn(prefixes, worker), root / "venv" / worker);
  touch(code / worker);  // the wheel's own copy
  EXPECT_EQ(findIn(prefixes, worker), code / worker);
  touch(code.parent_path() / "share/ttune/bank/x.json");  // a directory counts too
  EXPECT_EQ(findIn(prefixes, "share/ttune/bank"), code.parent_path() / "share/ttune/bank");
}

TEST(InstallLayout, APrefixBeyondFourLevelsIsNotSearched) {
  TempDir tmp("ttune-layout");
  fs::path root(tmp.path);
  fs::path code = root / "p/1/2/3/4/5";
  fs::create_directories(code);
  touch(root / "p/share/ttune/bank");
  EXPECT_TRUE(findIn(prefixesFrom(code), "share/ttune/bank").empty());
  EXPECT_FALSE(findIn(prefixesFrom(code.parent_path()), "share/ttune/bank").empty());
}

TEST(InstallLayout, TheCodeDirectoryIsThisTestBinarysDirectory) {
  fs::path exe = fs::canonical("/proc/self/exe");
  EXPECT_EQ(codeDirectory(), exe.parent_path());
  EXPECT_EQ(searchPrefixes(), prefixesFrom(exe.parent_path()));
  // Found where an installed tree keeps it when no prefix has it.
  EXPECT_EQ(installedFile("no/such/file"), exe.parent_path().parent_path() / "no/such/file");
  EXPECT_EQ(installedFile(exe.filename()), exe);
}

}  // namespace
}  // namespace ttune::support
