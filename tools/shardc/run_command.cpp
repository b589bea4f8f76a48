#include "run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <thread>

#include "codegen/emit_cpp.h"
#include "codegen/pipeline.h"
#include "evaluator/compare.h"
#include "evaluator/evaluate.h"
#include "evaluator/format_numpy.h"
#include "frontend/check/check.h"
#include "frontend/defines.h"
#include "frontend/driver.h"
#include "frontend/parse.h"
#include "run_config.h"

namespace shardc {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Where the runtime and the driver source are: the install prefix around the running shardc
// when it is an installed one (PREFIX/bin/shardc -> PREFIX/include, PREFIX/lib,
// PREFIX/share/shardc/templates), else the build tree it was built in (run_config.h).
struct Toolchain {
  std::string includes, libs, driver;
};
Toolchain find_toolchain() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path prefix = exe.parent_path();
  const fs::path bindir(SHARDC_RUN_INSTALL_BINDIR);  // usually "bin": one level per component
  for (auto part = bindir.begin(); part != bindir.end(); ++part) prefix = prefix.parent_path();
  const fs::path lib = prefix / SHARDC_RUN_INSTALL_LIBDIR;
  Toolchain t;
  t.includes = "-I" + quoted((prefix / SHARDC_RUN_INSTALL_INCLUDEDIR).string());
  t.libs = quoted((lib / "libshard_runtime.a").string()) + " " + quoted((lib / "libshard_kernels.a").string()) + " " +
           quoted((lib / "libshard_random.a").string()) + " " + SHARDC_RUN_INSTALL_DNNL + " -lpthread";
  t.driver = (prefix / SHARDC_RUN_INSTALL_DRIVER).string();
  if (!ec && fs::exists(t.driver, ec)) return t;
  return {SHARDC_RUN_INCLUDES, SHARDC_RUN_LIBS, SHARDC_RUN_DRIVER};
}

// Each step (the build, each function's driver) runs as `sh -c` in a process group of its own,
// and SIGINT, SIGTERM or SIGHUP sent to shardc (Ctrl-C, a CI job cancelled, `kill`) is passed on
// to that whole group: the compilers or the driver's device threads stop with shardc instead of
// running on as orphans, and the run stops and removes its directory.
volatile std::sig_atomic_t step_group = 0;   // the running step's process group, 0 between steps
volatile std::sig_atomic_t stop_signal = 0;  // the first such signal shardc received

extern "C" void pass_on_stop_signal(int signal) {
  if (stop_signal == 0) stop_signal = signal;
  if (step_group > 0) kill(-step_group, signal);
}

void handle_stop_signals() {
  struct sigaction action {};
  action.sa_handler = pass_on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

// The command's exit status, or 128 + the signal that ended the shell (as shells report a
// child's), or -1 when it could not be started.
int run_shell(const std::string& command) {
  std::cout.flush();  // what we printed goes before the child's output, also into a pipe
  std::cerr.flush();
  if (stop_signal != 0) return 128 + stop_signal;
  // Stop signals wait until the child is a group of its own and step_group names it.
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, signal);
  sigprocmask(SIG_BLOCK, &stops, &before);
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, SIG_DFL);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (child > 0) {
    setpgid(child, child);  // also here: whichever of the two runs first
    step_group = child;
  }
  sigprocmask(SIG_SETMASK, &before, nullptr);
  if (child < 0) return -1;
  int status = 0;
  while (waitpid(child, &status, 0) == -1 && errno == EINTR) {
  }
  step_group = 0;
  if (stop_signal != 0) return 128 + stop_signal;
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Whether a stop signal came (during a step, or while shardc itself evaluated): the whole run
// stops then, rather than going on to the next function.
bool stopped() { return stop_signal != 0; }

int stop_on_signal(const fs::path& dir, bool keep) {
  std::cout.flush();
  std::cerr << "\nshardc run: " << (stop_signal == SIGINT ? "interrupted" : "stopped by a signal") << "\n";
  if (!keep) fs::remove_all(dir);
  return 128 + stop_signal;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The times per call mean little while other work holds the CPUs (they can be hundreds of
// times an idle machine's): say so when the load average reaches the number of cores.
void note_if_the_machine_is_busy() {
  double load = 0;
  std::ifstream("/proc/loadavg") >> load;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (load >= cores)
    std::cout << "note: the load average is " << std::setprecision(1) << std::fixed << load << " on " << cores
              << (cores == 1 ? " core" : " cores") << ": other work shares the CPUs, so the times below can be far\n"
              << "longer than on an idle machine\n";
}

// What making and running a function's inputs takes at least, in bytes, in shardc run and its
// driver together: shardc holds each input as the evaluator does (4 bytes a float, 8 an
// integer or bool) and, while making it, 4 bytes of random bits an element; the driver reads
// it in its dtype and keeps a block on every device, a replicated input once per device.
double input_bytes(const codegen::Function& f) {
  double total = 0;
  for (const check::Type& t : f.param_types) {
    if (t.kind != check::TypeKind::array) continue;
    double elements = 1, split = 1;
    for (const check::Dim& d : t.dims) {
      elements *= static_cast<double>(d.size);
      for (int axis : d.axes) split *= static_cast<double>(t.mesh->axis_sizes[static_cast<std::size_t>(axis)]);
    }
    const double copies = t.mesh ? static_cast<double>(t.mesh->device_count()) / split : 1;
    const double held = shard::is_floating(t.dtype) ? 4 : 8, dtype = static_cast<double>(shard::dtype_size(t.dtype));
    total += elements * (held + 4 + dtype * (1 + copies));
  }
  return total;
}

// The memory the kernel says is available for new allocations (MemAvailable), or nullopt.
std::optional<double> available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

}  // namespace

int run_command(const RunOptions& o) {
  handle_stop_signals();
  Diagnostics diags;
  Defines defines = parse_defines(o.defines, diags);
  // As in plain shardc, a malformed -D is a usage error (exit 2): it is about the command line.
  if (diags.has_errors()) {
    diags.render(std::cerr);
    return 2;
  }
  if (o.file == "-") {
    std::cerr << "shardc run: needs a file: the generated code is named after it ('-', standard input, is for "
                 "the other modes)\n";
    return 2;
  }
  // The same reader as the other modes: a missing file or a directory is an error, not an empty module.
  std::optional<std::string> text = read_input(o.file, std::cin, diags);
  if (!text) {
    diags.render(std::cerr);
    return 1;
  }
  std::shared_ptr<const check::CheckedModule> checked;
  std::optional<codegen::Module> lowered;
  codegen::GeneratedFiles files;
  report_internal_errors(diags, [&] {
    auto module = parse(*text, o.file, diags);
    if (module) checked = check::check(*module, defines, diags).module;
    if (checked && !diags.has_errors()) lowered = codegen::lower_module(checked, diags);
    if (lowered && !diags.has_errors())
      files = codegen::CppEmitter(*lowered, {fs::path(o.file).filename().string(), "run"}, diags).emit();
  });
  if (diags.has_errors()) {
    diags.render(std::cerr);
    return 1;
  }
  const std::string stem = codegen::generated_stem(*lowered);
  if (lowered->functions.empty()) {
    std::cerr << "shardc: error: " << o.file << " has no func or shard_map to run\n";
    return 1;
  }
  // Every --func must name an entry point, before the (seconds-long) build: a misspelt name
  // would otherwise run nothing and exit 0.
  const std::vector<codegen::Function>& entries = lowered->functions;
  for (const std::string& wanted : o.functions) {
    if (std::any_of(entries.begin(), entries.end(), [&](const codegen::Function& f) { return f.name == wanted; })) continue;
    std::string known;
    for (const codegen::Function& f : entries) known += (known.empty() ? "" : ", ") + f.name;
    std::cerr << "shardc: error: --func " << wanted << ": " << o.file << " has no func or shard_map named '" << wanted
              << "' (it has: " << (known.empty() ? "none" : known) << ")\n";
    return 1;
  }

  // Build the generated module with the driver program against this build's runtime.
  std::error_code tmp_error;
  const fs::path tmp = fs::temp_directory_path(tmp_error);  // $TMPDIR, else /tmp
  std::string pattern = ((tmp_error ? fs::path("/tmp") : tmp) / "shardc-run-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    std::cerr << "shardc run: cannot create a temporary directory " << pattern << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  const fs::path dir(pattern);
  std::ofstream(dir / (stem + ".shard.h")) << files.header;
  std::ofstream(dir / (stem + ".shard.cpp")) << files.source;
  const fs::path program = dir / "driver";
  const Toolchain tools = find_toolchain();
  // The generated code and the driver compile at once (each takes seconds), then link.
  const std::string flags = std::string(SHARDC_RUN_CXX) + " -std=c++20 -O2 -fopenmp -w" + " -DSHARDC_RUN_HEADER='\"" +
                            stem + ".shard.h\"' -DSHARDC_RUN_NAMESPACE=shardgen::" +
                            codegen::generated_namespace(*lowered) + " -I" + quoted(dir.string()) + " " + tools.includes;
  const std::string module_object = quoted((dir / (stem + ".shard.o")).string());
  const std::string driver_object = quoted((dir / "driver.o").string());
  // What --keep leaves must build without shardc: the driver's source goes in the directory.
  fs::path driver_source = tools.driver;
  std::error_code copy_error;
  if (o.keep && fs::copy_file(tools.driver, dir / "run_driver.cpp", copy_error)) driver_source = dir / "run_driver.cpp";
  const std::string compile_module =
      flags + " -c " + quoted((dir / (stem + ".shard.cpp")).string()) + " -o " + module_object;
  const std::string compile_driver = flags + " -c " + quoted(driver_source.string()) + " -o " + driver_object;
  const std::string link = std::string(SHARDC_RUN_CXX) + " -fopenmp " + module_object + " " + driver_object + " -o " +
                           quoted(program.string()) + " " + tools.libs;
  // The module compiles in the background, where a non-interactive shell ignores Ctrl-C for it:
  // the trap ends it too, so that nothing writes into the directory after shardc removes it.
  const std::string compile = "trap 'kill $module 2>/dev/null; exit 130' INT TERM; " + compile_module +
                              " & module=$!; " + compile_driver + "; driver=$?; wait $module && [ $driver -eq 0 ] && " +
                              link;
  if (o.keep)
    std::ofstream(dir / "build.sh")
        << "#!/bin/sh\n# How shardc run built ./driver in this directory.\n"
           "# ./driver DIR FUNCTION REPEAT calls FUNCTION on DIR/in_<i>.bin, REPEAT timed calls, and writes\n"
           "# DIR/out_<i>.bin and DIR/out.txt (the results' types and the median time).\nset -e\n"
        << compile_module << "\n" << compile_driver << "\n" << link << "\n";
  auto began = std::chrono::steady_clock::now();
  std::cout << "shardc run: building " << stem << " ..." << std::flush;
  const int built = run_shell(compile);
  if (stopped()) return stop_on_signal(dir, o.keep);
  if (built != 0) {
    // Not "the generated code did not compile": a missing assembler or linker fails here too.
    std::cerr << "\nshardc run: building failed (the compiler's messages are above); the generated code is kept in "
              << dir.string() << "; command:\n"
              << compile << "\n";
    return 1;
  }
  std::cout << " " << std::fixed << std::setprecision(1)
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() << " s\n";

  note_if_the_machine_is_busy();

  bool all_pass = true;
  for (const codegen::Function& f : lowered->functions) {
    if (stopped()) return stop_on_signal(dir, o.keep);
    if (!o.functions.empty() && std::find(o.functions.begin(), o.functions.end(), f.name) == o.functions.end())
      continue;
    // Inputs beyond the memory available are refused here: on Linux their allocations succeed
    // and the kernel's out-of-memory killer ended shardc run (exit 137) when they were filled.
    const std::optional<double> available = available_memory();
    if (const double need = input_bytes(f); available && need > *available) {
      std::cout << f.name << ": cannot make its inputs: out of memory: they need at least " << std::setprecision(1)
                << std::fixed << need / (1 << 30) << " GiB in shardc run and its driver, and " << *available / (1 << 30)
                << " GiB are available (MemAvailable in /proc/meminfo); give smaller sizes with -D (see the "
                   "parameter types with --emit=types)\n";
      all_pass = false;
      continue;
    }
    std::vector<eval::HostTensor> inputs;
    try {
      inputs = eval::deterministic_inputs(*checked, f.name, 0);
    } catch (const std::bad_alloc&) {
      std::cout << f.name << ": cannot make its inputs: out of memory (see the parameter types with --emit=types)\n";
      all_pass = false;
      continue;
    } catch (const std::exception& e) {
      std::cout << f.name << ": cannot make its inputs: " << e.what() << "\n";
      all_pass = false;
      continue;
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      std::vector<unsigned char> bytes = inputs[i].to_bytes();
      std::ofstream(dir / ("in_" + std::to_string(i) + ".bin"), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    fs::remove(dir / "out.txt");
    std::string command = quoted(program.string()) + " " + quoted(dir.string()) + " " + quoted(f.name) + " " +
                          std::to_string(o.repeat);
    const int ran = run_shell(command);
    if (stopped()) return stop_on_signal(dir, o.keep);
    if (ran != 0) {
      std::cout << f.name << ": FAILED to run\n";
      all_pass = false;
      continue;
    }
    std::vector<eval::HostTensor> reference;
    try {
      reference = eval::evaluate(*checked, f.name, inputs);
    } catch (const std::bad_alloc&) {
      std::cout << f.name << ": the reference evaluator failed: out of memory\n";
      all_pass = false;
      continue;
    } catch (const std::exception& e) {  // an EvalError
      std::cout << f.name << ": the reference evaluator failed: " << e.what() << "\n";
      all_pass = false;
      continue;
    }
    std::istringstream meta(read_text(dir / "out.txt"));
    std::vector<std::string> types;
    double time_ms = 0;
    for (std::string line; std::getline(meta, line);) {
      if (line.rfind("time_ms ", 0) == 0) time_ms = std::stod(line.substr(8));
      else types.push_back(line);
    }
    std::cout << f.name << ": " << types.size() << (types.size() == 1 ? " result, " : " results, ") << std::setprecision(3)
              << time_ms << " ms per call (median of " << o.repeat << ")\n";
    if (types.size() != reference.size()) {  // a driver that stopped early reports fewer: never a pass
      std::cout << "  the driver reported " << types.size() << " results, the evaluator " << reference.size()
                << ": MISMATCH\n";
      all_pass = false;
    }
    for (std::size_t i = 0; i < types.size() && i < reference.size(); ++i) {
      std::string bytes = read_text(dir / ("out_" + std::to_string(i) + ".bin"));
      std::size_t expected = static_cast<std::size_t>(reference[i].size()) * shard::dtype_size(reference[i].dtype);
      if (bytes.size() != expected) {
        std::cout << "  result " << i << ": " << types[i] << " has " << bytes.size() << " bytes, the evaluator's "
                  << expected << ": MISMATCH\n";
        all_pass = false;
        continue;
      }
      eval::HostTensor got = eval::HostTensor::from_bytes(reference[i].dtype, reference[i].shape, bytes.data());
      eval::Comparison c = eval::compare_to_reference(got, reference[i], o.atol);
      all_pass = all_pass && c.ok;
      std::cout << "  result " << i << ": " << types[i] << "  digest " << eval::digest(got) << "  max abs err "
                << std::scientific << std::setprecision(2) << c.max_abs_error << "  normwise err " << c.normwise_error
                << std::fixed << "  " << (c.ok ? "OK" : "MISMATCH (" + c.problem + ")") << "\n";
      if (!c.ok && got.is_float() && c.mismatches > 0 && o.atol == 0)
        std::cout << "  note: each float must be within a relative bound of the evaluator's r (f32: 1e-4*|r| + 1e-5*max|r|;\n"
                     "  bf16 and f16 looser, docs/language.md 6.7), and max|r| = "
                  << std::setprecision(3) << std::defaultfloat << c.scale << std::fixed
                  << " here; for a result near zero by design, such as the difference of two computations of\n"
                     "  one value, allow an absolute error with --atol\n";
      if (o.print) std::cout << eval::format_numpy(got) << "\n";
    }
  }
  if (stopped()) return stop_on_signal(dir, o.keep);
  if (!o.keep) fs::remove_all(dir);
  else
    std::cout << "generated code and driver kept in " << dir.string() << " (build.sh rebuilds it; ./driver "
              << quoted(dir.string()) << " FUNCTION REPEAT runs one function on the inputs there)\n";
  std::cout.flush();
  if (!std::cout) {  // a full disk or /dev/full: the report is lost, so the run failed
    std::cerr << "shardc run: error: could not write the report (standard output)\n";
    return 1;
  }
  return all_pass ? 0 : 1;
}

}  // namespace shardc
