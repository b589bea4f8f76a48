// The shardc executable: options, exit statuses (0 ok, 1 input errors, 2 usage), stdin,
// several files. Runs the real binary built beside this test.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct CliRun {
  int status;
  std::string output;  // stdout and stderr together
};

// A shell command line: its exit status and what it printed on standard output.
CliRun run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// ctest runs each test case as its own process, in parallel: every case writes in its own
// folder (standard input's file too: one shared file was rewritten by the cases beside it),
// and the folders go when the process ends (they piled up in /tmp, a set per ctest run).
std::vector<std::filesystem::path>& case_folders() {
  static std::vector<std::filesystem::path> folders;
  return folders;
}

class RemoveCaseFolders : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const auto& folder : case_folders()) {
      std::error_code ignored;  // a case that made a folder unremovable has already failed
      std::filesystem::remove_all(folder, ignored);
    }
  }
};
[[maybe_unused]] ::testing::Environment* const remove_case_folders =
    ::testing::AddGlobalTestEnvironment(new RemoveCaseFolders);

std::filesystem::path case_folder() {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("shardc_cli_test_" + test + "_" + std::to_string(getpid()));
  if (std::find(case_folders().begin(), case_folders().end(), dir) == case_folders().end()) {
    std::filesystem::create_directories(dir);
    case_folders().push_back(dir);
  }
  return dir;
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::filesystem::path path = case_folder() / name;
  std::ofstream(path) << text;
  return path.string();
}

const std::string kShardc = std::string("'") + SHARDC_EXECUTABLE + "'";

CliRun shardc(const std::string& arguments, const std::string& stdin_text = "") {
  const std::string input = write_temp("standard_input.shard", stdin_text);
  return run_shell(kShardc + " " + arguments + " 2>&1 < '" + input + "'");
}


// Runs `shardc FILE -o DIR` on a program that code generation must reject: exit status 1, each
// of `errors` printed, and no C++ written.
void expect_codegen_errors(const std::string& file_name, const std::string& text,
                           const std::vector<std::string>& errors) {
  const std::string file = write_temp(file_name, text);
  const std::filesystem::path out = std::filesystem::path(file).parent_path() / ("out_" + file_name);
  CliRun r = shardc(file + " -o " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  for (const std::string& error : errors) EXPECT_NE(r.output.find(error), std::string::npos) << r.output;
  const std::string stem = file_name.substr(0, file_name.rfind(".shard"));
  EXPECT_FALSE(std::filesystem::exists(out / (stem + ".shard.cpp"))) << r.output;
  // --check reports what a build would, and writes nothing.
  CliRun checked = shardc("--check " + file);
  EXPECT_EQ(checked.status, 1) << checked.output;
  for (const std::string& error : errors) EXPECT_NE(checked.output.find(error), std::string::npos) << checked.output;
}

const char* kGood = "mesh grid = [X: 2];\nfunc f(x: f32[8@X]) -> f32[8@X] on grid { return x; }\n";
const char* kBad = "mesh grid = [X: 2];\nfunc f(x: f32[8@X]) -> f32[8@X] on grid { return x + ; }\n";

TEST(Cli, VersionAndHelp) {
  CliRun version = shardc("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.output.find("shardc 0."), std::string::npos) << version.output;
  CliRun help = shardc("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--emit"), std::string::npos);
  EXPECT_NE(help.output.find("-D"), std::string::npos);
  EXPECT_NE(help.output.find("shardc run FILE.shard"), std::string::npos) << help.output;  // the footer names it
  CliRun word = shardc("help");  // as git and cargo take it
  EXPECT_EQ(word.status, 0) << word.output;
  EXPECT_EQ(word.output, help.output);
}

TEST(Cli, UsageErrorsExitWith2) {
  for (const char* none : {"", "run", "run --print"}) {  // no file: said in the usage line's words
    CliRun r = shardc(none);
    EXPECT_EQ(r.status, 2) << none;
    EXPECT_NE(r.output.find("error: no .shard file given"), std::string::npos) << r.output;
  }
  EXPECT_EQ(shardc("--emit=bogus x.shard").status, 2);
  EXPECT_EQ(shardc("--no-such-flag x.shard").status, 2);
  CliRun bad_define = shardc("-D B=99999999999999999999 --check x.shard");
  EXPECT_EQ(bad_define.status, 2);
  EXPECT_NE(bad_define.output.find("does not fit in a 64-bit signed integer"), std::string::npos)
      << bad_define.output;
  EXPECT_EQ(shardc("-D B --check x.shard").status, 2);
  EXPECT_EQ(shardc("--part-size 0 x.shard").status, 2);
  // A count that is not a number says so (CLI11's range check called it out of range).
  for (const char* bad : {"--part-size abc x.shard", "--part-size 1.5 x.shard", "run --repeat abc x.shard"}) {
    CliRun r = shardc(bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.output.find("is not a whole number"), std::string::npos) << r.output;
  }
  // run --atol takes a finite number >= 0 (CLI11's own check lets nan through).
  for (const char* bad : {"run --atol -1 x.shard", "run --atol nan x.shard", "run --atol inf x.shard",
                          "run --atol 1e-3x x.shard"}) {
    CliRun r = shardc(bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.output.find("is not a finite number >= 0"), std::string::npos) << r.output;
  }
  CliRun no_dir = shardc("-o '' x.shard");
  EXPECT_EQ(no_dir.status, 2);
  EXPECT_NE(no_dir.output.find("-o needs a directory name"), std::string::npos) << no_dir.output;
  CliRun twice = shardc("-D B=8 -D B=16 --check x.shard");
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.output.find("-D B is given twice (8 and 16)"), std::string::npos) << twice.output;
  // --check ends before code generation: -o or --emit=cpp would silently produce nothing.
  for (const char* generating : {"-o out", "--emit=cpp", "--emit=schedule", "--trace-passes"}) {
    CliRun r = shardc(std::string("--check ") + generating + " x.shard");
    EXPECT_EQ(r.status, 2) << generating;
    EXPECT_NE(r.output.find("--check outputs no generated code"), std::string::npos) << r.output;
  }
}

// A file whose name starts with '-' is read as an option; the usage error says how to name it.
TEST(Cli, AFileNamedLikeAnOptionGetsANote) {
  for (const char* command : {"-dash.shard", "run -dash.shard", "--check -dash.shard"}) {
    CliRun r = shardc(command);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_NE(r.output.find("'-dash.shard' was read as an option; to name a file that starts with '-', write "
                            "'./-dash.shard' or put it after '--'"),
              std::string::npos)
        << r.output;
  }
  // After '--' every argument is a file: no note, the file is simply missing.
  CliRun r = shardc("--check -- -dash.shard");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.find("was read as an option"), std::string::npos) << r.output;
}

TEST(Cli, InputsThatWouldClashAreErrors) {
  const std::filesystem::path dir = std::filesystem::path(write_temp("cli_good.shard", kGood)).parent_path();
  std::filesystem::create_directories(dir / "one");
  std::filesystem::create_directories(dir / "two");
  std::filesystem::copy_file(dir / "cli_good.shard", dir / "one" / "x.shard", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir / "cli_good.shard", dir / "two" / "x.shard", std::filesystem::copy_options::overwrite_existing);
  const std::string out = (dir / "out_clash_modules").string();
  CliRun r = shardc((dir / "one" / "x.shard").string() + " " + (dir / "two" / "x.shard").string() + " -o " + out);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("are both module 'x': their files in '" + out + "' would overwrite each other"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(out) / "x.shard.h"));
  // With --check nothing is written, so two files of one module name are fine; a plain
  // `shardc FILE...` writes into the current folder, where they would clash.
  const std::string both = (dir / "one" / "x.shard").string() + " " + (dir / "two" / "x.shard").string();
  EXPECT_EQ(shardc("--check " + both).status, 0);
  CliRun plain = shardc(both);
  EXPECT_EQ(plain.status, 1) << plain.output;
  EXPECT_NE(plain.output.find("their files in '.' would overwrite each other"), std::string::npos) << plain.output;
  CliRun stdin_twice = shardc("--check - -", kGood);
  EXPECT_EQ(stdin_twice.status, 2) << stdin_twice.output;  // a usage error
  EXPECT_NE(stdin_twice.output.find("'-' (standard input) is given twice"), std::string::npos) << stdin_twice.output;
}

TEST(Cli, AnOutputPathThatIsNotARegularFileIsAnError) {
  // The unchanged-file check must not read a directory, a FIFO (it would block) or a device.
  const std::string file = write_temp("cli_good.shard", kGood);
  const std::filesystem::path out = std::filesystem::path(file).parent_path() / "out_not_regular";
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out / "cli_good.shard.h");
  CliRun r = shardc(file + " -o " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write '" + (out / "cli_good.shard.h").string() + "': it exists and is not a regular file"),
            std::string::npos)
      << r.output;
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  std::filesystem::create_symlink("/dev/zero", out / "cli_good.shard.h");
  r = shardc(file + " -o " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("it exists and is not a regular file"), std::string::npos) << r.output;
  // A bad .cpp path leaves no header behind (the header used to be written first).
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out / "cli_good.shard.cpp");
  r = shardc(file + " -o " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out / "cli_good.shard.h")) << r.output;
}

// An output file that is the input itself, through a symbolic or hard link, was overwritten
// with the generated C++.
TEST(Cli, AnOutputThatIsTheInputIsAnError) {
  const std::filesystem::path dir = std::filesystem::path(write_temp("cli_good.shard", kGood)).parent_path() / "out_same";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = dir / "cli_same.shard";
  std::ofstream(input) << kGood;
  std::filesystem::create_symlink("cli_same.shard", dir / "cli_same.shard.cpp");
  CliRun r = shardc(input.string() + " -o " + dir.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("it is the input file"), std::string::npos) << r.output;
  std::filesystem::remove(dir / "cli_same.shard.cpp");
  std::filesystem::create_hard_link(input, dir / "cli_same.shard.h");
  r = shardc(input.string() + " -o " + dir.string());
  EXPECT_EQ(r.status, 1) << r.output;
  std::stringstream text;
  text << std::ifstream(input).rdbuf();
  EXPECT_EQ(text.str(), kGood);
}

TEST(Cli, AnOutputThatCannotBeWrittenIsAnError) {
  // --emit to a full disk (/dev/full) printed nothing and exited 0.
  CliRun r = run_shell(kShardc + " --emit=types '" + write_temp("cli_good.shard", kGood) + "' 2>&1 > /dev/full");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("shardc: error: could not write the output (standard output)"), std::string::npos)
      << r.output;
}

// A generated file that cannot be created says why (it said only "cannot write").
TEST(Cli, AGeneratedFileThatCannotBeCreatedSaysWhy) {
  CliRun r = run_shell(kShardc + " '" + write_temp("cli_good.shard", kGood) + "' -o /proc/self 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("shardc: error: cannot write '/proc/self/cli_good.shard.h': "), std::string::npos)
      << r.output;
}

TEST(Cli, StandardInputThatCannotBeReadIsAnError) {
  // A directory or a closed descriptor read as an empty module: exit 0, and -o wrote empty files.
  CliRun r = run_shell(kShardc + " --check - < / 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("shardc: error: cannot read '<stdin>': Is a directory"), std::string::npos) << r.output;
  r = run_shell(kShardc + " --check - <&- 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot read '<stdin>'"), std::string::npos) << r.output;
}

TEST(Cli, NamespacePutsTheModuleInNsModule) {
  const std::string file = write_temp("cli_good.shard", kGood);
  const std::filesystem::path out = std::filesystem::path(file).parent_path() / "out_namespace";
  CliRun r = shardc(file + " --namespace small::v2 -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::stringstream text;
  text << std::ifstream(out / "cli_good.shard.h").rdbuf();
  EXPECT_NE(text.str().find("namespace small::v2::cli_good {"), std::string::npos) << text.str();
  // main at global scope clashes with int main(); nested (a::main) it is an ordinary name.
  for (const char* bad : {"class", "a::", "1x", "a-b", "main", "main::x"}) {
    r = shardc(file + " --namespace '" + bad + "' -o " + out.string());
    EXPECT_EQ(r.status, 2) << bad;  // a usage error, like a malformed -D
    EXPECT_NE(r.output.find(std::string("--namespace ") + bad + ": "), std::string::npos) << r.output;
  }
  EXPECT_EQ(shardc(file + " --namespace a::main -o " + out.string()).status, 0);
}

// A program that checks but that code generation refuses (a key parameter) exits 1 whatever
// stage is printed: --emit=ir and --emit=schedule printed it and exited 0.
TEST(Cli, EveryEmitStageReportsWhatCodeGenerationRefuses) {
  const std::string file = write_temp("cli_key_param.shard",
                                      "mesh m = [X: 2];\nfunc f(k: key, x: f32[16@X, 8]) -> f32[16@X, 8] on m { return x; }\n");
  for (const char* stage : {"ir", "schedule", "cpp"}) {
    CliRun r = shardc(std::string("--emit=") + stage + " " + file);
    EXPECT_EQ(r.status, 1) << stage << "\n" << r.output;
    EXPECT_NE(r.output.find("code generation does not support a key parameter"), std::string::npos) << r.output;
  }
}

TEST(Cli, EmitAstOfAFile) {
  CliRun r = shardc("--emit=ast " + write_temp("cli_good.shard", kGood));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Module cli_good\n  MeshDecl grid explicit (default) <1:1>"), std::string::npos)
      << r.output;
}

TEST(Cli, StdinIsDash) {
  CliRun r = shardc("--emit=ast -", kGood);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Module stdin"), std::string::npos) << r.output;
}

TEST(Cli, KeyParametersAndResultsAreLocatedCodegenErrors) {
  // A func's key parameter or result has no C++ entry-point type: located errors, no C++.
  expect_codegen_errors("cli_keys.shard",
                        "mesh m = [X: 2];\n"
                        "func f(k: key) -> f32[4] on m { return normal(k, f32[4]); }\n"
                        "func g() -> key on m { return key(7); }\n",
                        {"cli_keys.shard:2:8: error: code generation does not support a key parameter: 'k' of f",
                         "cli_keys.shard:3:31: error: code generation does not support a key result: result 0 of g"});
}

TEST(Cli, AKeywordModuleKeepsItsFileNamesAndRenamesItsNamespace) {
  // shardc_add_library expects NAME.shard.h/.cpp for NAME.shard (CMake's MAKE_C_IDENTIFIER of the
  // file name); only the namespace avoids the C++ keyword.
  const std::string file = write_temp("class.shard", kGood);
  const std::filesystem::path out = std::filesystem::path(file).parent_path() / "out";
  CliRun r = shardc(file + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream header(out / "class.shard.h");
  ASSERT_TRUE(header) << "no class.shard.h in " << out;
  std::stringstream text;
  text << std::ifstream(out / "class.shard.cpp").rdbuf();
  EXPECT_NE(text.str().find("#include \"class.shard.h\""), std::string::npos);
  EXPECT_NE(text.str().find("namespace shardgen::class_ {"), std::string::npos);

  // class_.shard beside it gets its own namespace, so both can link into one program.
  const std::string other = write_temp("class_.shard", kGood);
  r = shardc(other + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::stringstream other_text;
  other_text << std::ifstream(out / "class_.shard.cpp").rdbuf();
  EXPECT_NE(other_text.str().find("namespace shardgen::class__ {"), std::string::npos);
}

TEST(Cli, AFunctionTooLongForACppCompilerIsALocatedCodegenError) {
  // 13,000 unrolled iterations of two ops: over a minute of g++ even with the body in parts.
  expect_codegen_errors("cli_long_body.shard",
                        "mesh m = [X: 2];\n"
                        "func f(x: f32[4@X]) -> f32[4@X] on m {\n"
                        "  var y = x;\n"
                        "  for i in 0..13000 { y = y * 1.0001 + 1.0; }\n"
                        "  return y;\n"
                        "}\n",
                        {"cli_long_body.shard:4:27: error: 'f' would be 52001 lines of C++; code generation stops at "
                         "50000"});
}

TEST(Cli, ANameThatIsAlsoATypeHelperIsALocatedCodegenError) {
  // The header declares g_in0_type() beside g: a function of that name would be declared twice.
  expect_codegen_errors("cli_helper_clash.shard",
                        "mesh m = [X: 2];\n"
                        "func g(x: f32[4@X]) -> f32[4@X] on m { return x; }\n"
                        "func g_in0_type() -> f32[4] on m { return zeros(f32[4]); }\n",
                        {"cli_helper_clash.shard:2:6: error: the generated C++ would declare 'g_in0_type' twice: "
                         "as the type of parameter 0 of 'g' and as function 'g_in0_type'"});
}

TEST(Cli, ErrorsExitWith1AndAreLocated) {
  CliRun r = shardc("--check " + write_temp("cli_bad.shard", kBad));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cli_bad.shard:2:54: error: unexpected ';'; expected an expression"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("                                                     ^"), std::string::npos) << r.output;
}

TEST(Cli, SeveralFilesAreAllProcessed) {
  std::string good = write_temp("cli_good.shard", kGood);
  std::string bad = write_temp("cli_bad.shard", kBad);
  CliRun r = shardc("--emit=ast " + bad + " " + good);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cli_bad.shard:2:54: error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Module cli_good"), std::string::npos) << r.output;
}

TEST(Cli, RunRejectsAnUnknownFunctionBeforeBuilding) {
  const std::string file = write_temp("good.shard", kGood);
  CliRun r = shardc("run '" + file + "' --func f --func g");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--func g: " + file + " has no func or shard_map named 'g' (it has: f)"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("building"), std::string::npos) << r.output;
  CliRun listed = shardc("run '" + file + "' --func f,g");  // a comma-separated list, checked alike
  EXPECT_EQ(listed.status, 1) << listed.output;
  EXPECT_NE(listed.output.find("--func g: " + file + " has no func or shard_map named 'g'"), std::string::npos)
      << listed.output;
  // Options before the file take one value each: the file stays the file, whatever follows it.
  CliRun before = shardc("run --func g -D N=2 '" + file + "' --print");
  EXPECT_EQ(before.status, 1) << before.output;
  EXPECT_NE(before.output.find("-D N: module 'good' declares no const named 'N'"), std::string::npos) << before.output;
}

TEST(Cli, RunUsageAndEmptyModules) {
  const std::string file = write_temp("good.shard", kGood);
  CliRun bad_define = shardc("run '" + file + "' -D X");
  EXPECT_EQ(bad_define.status, 2) << bad_define.output;
  EXPECT_NE(bad_define.output.find("-D X: expected NAME=VALUE"), std::string::npos) << bad_define.output;
  CliRun from_stdin = shardc("run -", kGood);
  EXPECT_EQ(from_stdin.status, 2) << from_stdin.output;
  EXPECT_NE(from_stdin.output.find("shardc run: needs a file"), std::string::npos) << from_stdin.output;
  const std::string empty = write_temp("empty.shard", "mesh grid = [X: 2];\n");
  CliRun nothing = shardc("run '" + empty + "'");
  EXPECT_EQ(nothing.status, 1) << nothing.output;
  EXPECT_NE(nothing.output.find(empty + " has no func or shard_map to run"), std::string::npos) << nothing.output;
  EXPECT_EQ(nothing.output.find("building"), std::string::npos) << nothing.output;
}

// An endless input ends at the size limit: shardc read /dev/zero or a pipe whole first (until
// std::bad_alloc, or forever). `timeout` turns the old behaviour into a failure, not a hang.
TEST(Cli, AnEndlessInputStopsAtTheSizeLimit) {
  for (const std::string& mode : {std::string("--check /dev/zero"), std::string("run /dev/zero")}) {
    CliRun r = shardc(mode);
    EXPECT_EQ(r.status, 1) << mode << ": " << r.output;
    EXPECT_NE(r.output.find("error: file is larger than the limit of 1048576 bytes"), std::string::npos) << r.output;
  }
  CliRun r = run_shell("yes 'const A = 1;' | timeout 60 " + kShardc + " --check - 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("<stdin>:1:1: error: file is larger than the limit of 1048576 bytes"), std::string::npos)
      << r.output;
}

TEST(Cli, MissingFileIsAnError) {
  CliRun r = shardc("--check /nonexistent/dir/x.shard");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("shardc: error: cannot read '/nonexistent/dir/x.shard'"), std::string::npos) << r.output;
}

// A directory opens as a stream that reads nothing: it must not pass for an empty module, in
// any mode (with -o it wrote C++ for one).
TEST(Cli, DirectoryIsAnError) {
  const std::filesystem::path dir = std::filesystem::path(write_temp("unused.shard", "")).parent_path();
  const std::string input = (dir / "adir.shard").string(), out = (dir / "out").string();
  std::filesystem::create_directories(input);
  for (const std::string& mode : std::vector<std::string>{"--check", "--emit=ast", "-o '" + out + "'", "run"}) {
    CliRun r = shardc(mode + " '" + input + "'");
    EXPECT_EQ(r.status, 1) << mode << ": " << r.output;
    EXPECT_NE(r.output.find("shardc: error: cannot read '" + input + "': Is a directory"), std::string::npos)
        << mode << ": " << r.output;
    EXPECT_EQ(r.output.find("Module"), std::string::npos) << mode << ": " << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "adir.shard.cpp"));
}

}  // namespace
