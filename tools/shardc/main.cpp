// shardc: the .shard compiler's command line. Parses options with CLI11 and hands them to
// the driver (frontend/driver.h). Exit status: 0 success, 1 errors in the input, 2 usage.
#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string_view>

#include "codegen/emit_cpp.h"
#include "frontend/driver.h"
#include "run_command.h"
#include "run_config.h"

namespace {

constexpr int kUsageError = 2;

// A count option's value must be digits: CLI11's own checks call "abc" out of range, or say
// that it is not a FLOAT.
const CLI::Validator kWholeNumber(
    [](std::string& text) {
      const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      return digits ? std::string() : "'" + text + "' is not a whole number";
    },
    "");

// --atol: a finite number >= 0 (CLI11's NonNegativeNumber lets nan through).
const CLI::Validator kAbsoluteError(
    [](std::string& text) {
      std::size_t used = 0;
      double value = -1;
      try {
        value = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      const bool good = used == text.size() && std::isfinite(value) && value >= 0;
      return good ? std::string() : "'" + text + "' is not a finite number >= 0";
    },
    "");

// CLI11's usage errors in the form of shardc's own ("shardc: error: ..."), which editors and
// scripts match on.
auto usage_failure(std::string program) {
  return [program](const CLI::App*, const CLI::Error& e) {
    // CLI11 says "files is required": name what is missing in the words of the usage line.
    const std::string_view what = e.what();
    const bool no_file = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
                         (what.starts_with("files ") || what.starts_with("file "));
    const std::string message = no_file ? "no .shard file given" : e.what();
    return program + ": error: " + message + "\nRun with --help for more information.\n";
  };
}

// After a usage error: an argument that starts with '-' but names a .shard file was read as an
// option (CLI11 then reports a missing file or an unknown option), so say how to pass it.
void note_files_read_as_options(int argc, char** argv) {
  bool after_double_dash = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") after_double_dash = true;
    if (after_double_dash || arg.size() < 2 || arg[0] != '-') continue;
    if (arg.ends_with(".shard") || std::ifstream(argv[i]).good())
      std::cerr << "note: '" << arg << "' was read as an option; to name a file that starts with '-', write './"
                << arg << "' or put it after '--'\n";
  }
}

// `shardc run FILE ...` compiles, builds, runs and checks a program (tools/shardc/run_command.h).
// argv[0] is "run".
int run_main(int argc, char** argv) {
  CLI::App app{"shardc run: compile a .shard file, build the generated code, run it and compare with the reference evaluator",
               "shardc run"};
  shardc::RunOptions o;
  app.failure_message(usage_failure("shardc run"));
  app.add_option("file", o.file, "the .shard file")->required();
  // One value per --func and -D, as in plain shardc: `--func f FILE --print` keeps FILE.
  app.add_option("--func", o.functions, "run only these functions (repeatable, or comma-separated; default: all)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--repeat", o.repeat, "timed calls per function (after one warm-up call)")
      ->check(kWholeNumber)
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("-D", o.defines, "override a const: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--print", o.print, "print every result as numpy prints it");
  app.add_flag("--keep", o.keep, "keep the generated code and the driver program");
  app.add_option("--atol", o.atol,
                 "also accept a float result within this absolute error of the evaluator's (default 0): for "
                 "results near zero by design")
      ->check(kAbsoluteError);
  app.footer("It builds with " SHARDC_RUN_CXX " (the compiler shardc was built with) in a directory under $TMPDIR\n"
             "(default /tmp), removed afterwards unless --keep. Functions with parameters get deterministic\n"
             "inputs. A result equals the evaluator's when integers are equal and floats are within\n"
             "|a - r| <= 1e-4*|r| + 1e-5*max|r| everywhere (f32; bf16 and f16 a few units of their precision,\n"
             "docs/language.md 6.7). Exit status: 0 when every result equals the evaluator's, 1 on errors or a\n"
             "mismatch, 2 on usage errors, 130 when interrupted (128 + the signal that stopped it).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    if (status != 0) note_files_read_as_options(argc, argv);
    return status == 0 ? 0 : kUsageError;
  }
  return shardc::run_command(o);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "run") return run_main(argc - 1, argv + 1);
  // `shardc help` (as git and cargo take it), unless a file of that name is meant.
  char help_flag[] = "--help";
  if (argc == 2 && std::string_view(argv[1]) == "help" && !std::ifstream("help").good()) argv[1] = help_flag;
  CLI::App app{"shardc: compiles .shard sharded tensor programs to C++", "shardc"};
  app.set_version_flag("--version", std::string("shardc ") + SHARDC_VERSION);
  app.failure_message(usage_failure("shardc"));
  app.footer("To compile, build, run and check a program in one go: shardc run FILE.shard [--func NAME] [--print]\n"
             "(see shardc run --help).\n"
             "Exit status: 0 on success, 1 when an input has errors, 2 on usage errors.");

  shardc::DriverOptions options;
  std::vector<std::string> emit_names;
  std::vector<std::string> define_options;
  app.add_option("files", options.inputs, "input .shard files; '-' reads standard input")->required();
  app.add_flag("--check", options.check_only, "report every error code generation would, writing nothing");
  app.add_option("--emit", emit_names, "print a stage's output: ast, types, layout, ir, schedule or cpp (repeatable)")
      ->check(CLI::IsMember({"ast", "types", "layout", "ir", "schedule", "cpp"}))
      ->delimiter(',')
      ->allow_extra_args(false)  // one value per --emit: `--emit ast a.shard b.shard` keeps both files
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("-D", define_options, "override a const: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("-o", options.output_dir,
                 "output directory for the generated MODULE.shard.h and .cpp (default: the current directory)");
  app.add_option("--namespace", options.outer_namespace,
                 "the namespace the generated modules go in, as NS::MODULE (default shardgen; may be nested: a::b)");
  app.add_option("--part-size", options.part_size,
                 "cut a longer device body into C++ functions of about this many instructions (default 100): "
                 "compilers take much longer on one long function")
      ->check(kWholeNumber)
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  app.add_flag("--trace-passes", options.trace_passes, "print the IR after each code generation pass, with its time");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);  // prints help/version (status 0) or the usage error
    if (status != 0) note_files_read_as_options(argc, argv);
    return status == 0 ? 0 : kUsageError;
  }

  for (const std::string& name : emit_names) {
    if (name == "ast") options.emits.push_back(shardc::EmitKind::ast);
    if (name == "types") options.emits.push_back(shardc::EmitKind::types);
    if (name == "layout") options.emits.push_back(shardc::EmitKind::layout);
    if (name == "ir") options.emits.push_back(shardc::EmitKind::ir);
    if (name == "schedule") options.emits.push_back(shardc::EmitKind::schedule);
    if (name == "cpp") options.emits.push_back(shardc::EmitKind::cpp);
  }
  // --check writes and prints nothing of code generation: what only code generation outputs
  // would silently not come.
  if (options.check_only && shardc::asks_for_code_generation(options)) {
    std::cerr << "shardc: error: --check outputs no generated code; it cannot be combined with -o, --emit=ir, "
                 "--emit=schedule, --emit=cpp or --trace-passes\n";
    return kUsageError;
  }
  if (options.output_dir && options.output_dir->empty()) {
    std::cerr << "shardc: error: -o needs a directory name (say -o . for this directory)\n";
    return kUsageError;
  }
  // So is a --namespace that is no C++ namespace name.
  if (auto problem = shardc::codegen::outer_namespace_problem(options.outer_namespace)) {
    std::cerr << "shardc: error: --namespace " << options.outer_namespace << ": " << *problem << "\n";
    return kUsageError;
  }
  // A malformed or repeated -D is a usage error: it is about the command line, not the program.
  shardc::Diagnostics define_errors;
  options.defines = shardc::parse_defines(define_options, define_errors);
  if (define_errors.has_errors()) {
    define_errors.render(std::cerr);
    return kUsageError;
  }
  return shardc::run_driver(options, std::cin, std::cout, std::cerr);
}
