// Runs `shardc --check` on every bad program of tests/diagnostics/ and compares its
// diagnostics with the expectations written in the file (format: README.md here).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Expectations {
  std::vector<std::string> errors;  // "LINE:COL: MESSAGE"
  std::vector<std::string> notes;   // note texts
  std::string args;                 // extra shardc arguments
};

Expectations read_expectations(const fs::path& file) {
  Expectations e;
  std::ifstream in(file);
  std::string line;
  auto after = [&](const std::string& tag, std::string& out) {
    auto p = line.find(tag);
    if (p != 0) return false;
    out = line.substr(tag.size());
    return true;
  };
  while (std::getline(in, line)) {
    std::string v;
    if (after("// expect-error: ", v)) e.errors.push_back(v);
    else if (after("// expect-note: ", v)) e.notes.push_back(v);
    else if (after("// args: ", v)) e.args = v;
  }
  return e;
}

struct ShardcRun {
  int status;
  std::string output;
};

ShardcRun run_shardc(const fs::path& file, const std::string& args) {
  std::string cmd = std::string(SHARDC_BINARY) + " --check " + args + " '" + file.string() + "' 2>&1";
  ShardcRun r{-1, {}};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// The .shard files of this folder, listed by CMake at configure time.
std::vector<fs::path> programs() {
  static const char* const names[] = {
#include "diagnostic_programs.inc"
  };
  std::vector<fs::path> files;
  for (const char* n : names) files.push_back(fs::path(DIAGNOSTICS_DIR) / n);
  return files;
}

class Diagnostics : public ::testing::TestWithParam<fs::path> {};

TEST_P(Diagnostics, MatchExpectations) {
  const fs::path& file = GetParam();
  Expectations want = read_expectations(file);
  ASSERT_FALSE(want.errors.empty()) << file << " has no `// expect-error:` line";
  ShardcRun r = run_shardc(file, want.args);
  EXPECT_EQ(r.status, 1) << r.output;
  // Every "FILE:LINE:COL: error: MESSAGE" line, reduced to "LINE:COL: MESSAGE".
  std::vector<std::string> got_errors, got_notes;
  std::istringstream lines(r.output);
  std::string line;
  const std::string prefix = file.string() + ":";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) {
      std::string rest = line.substr(prefix.size());
      auto e = rest.find(": error: ");
      auto n = rest.find(": note: ");
      if (e != std::string::npos) got_errors.push_back(rest.substr(0, e) + ": " + rest.substr(e + 9));
      else if (n != std::string::npos) got_notes.push_back(rest.substr(n + 8));
    } else if (line.rfind("note: ", 0) == 0) {
      got_notes.push_back(line.substr(6));
    } else if (line.rfind("shardc: error: ", 0) == 0) {
      got_errors.push_back("0:0: " + line.substr(15));
    }
  }
  EXPECT_EQ(got_errors, want.errors) << "shardc said:\n" << r.output;
  for (const auto& n : want.notes)
    EXPECT_NE(std::find(got_notes.begin(), got_notes.end(), n), got_notes.end())
        << "missing note: " << n << "\nshardc said:\n" << r.output;
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string s = info.param.stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(BadPrograms, Diagnostics, ::testing::ValuesIn(programs()), test_name);

}  // namespace
