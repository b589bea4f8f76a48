#include "frontend/driver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "codegen/generate.h"
#include "frontend/ast_printer.h"
#include "frontend/check/check.h"
#include "frontend/diagnostics.h"
#include "frontend/internal_error.h"

namespace shardc {

namespace {

// Up to `max` bytes of `in`, in chunks: what a stream holds beyond that is never read.
std::string read_at_most(std::istream& in, std::size_t max) {
  std::string text;
  char chunk[1 << 16];
  while (text.size() < max && in) {
    in.read(chunk, static_cast<std::streamsize>(std::min(sizeof chunk, max - text.size())));
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  return text;
}

}  // namespace

std::optional<std::string> read_input(const std::string& path, std::istream& in, Diagnostics& diags,
                                      std::size_t max_bytes) {
  if (path == "-") {
    // Standard input that is a directory, or closed, reads as nothing through the stream, which
    // would pass for an empty module.
    if (&in == &std::cin) {
      struct stat st {};
      const int failed = fstat(STDIN_FILENO, &st);
      const int error = failed != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
      if (error != 0) {
        diags.error({}, std::string("cannot read '<stdin>': ") + std::strerror(error));
        return std::nullopt;
      }
    }
    return read_at_most(in, max_bytes + 1);
  }
  // A directory opens as a stream that reads nothing, which would pass for an empty module.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.error({}, "cannot read '" + path + "': " + std::strerror(EISDIR));
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    diags.error({}, "cannot read '" + path + "': " + std::strerror(errno));
    return std::nullopt;
  }
  std::string text = read_at_most(file, max_bytes + 1);
  if (file.bad()) {
    diags.error({}, "cannot read '" + path + "': read error");
    return std::nullopt;
  }
  return text;
}

namespace {

// A plain `shardc FILE...` (no --check, --emit or -o) writes the generated files into the
// current folder.
bool writes_to_current_folder(const DriverOptions& options) {
  return options.emits.empty() && !options.check_only && !asks_for_code_generation(options);
}

// parse -> [--emit=ast] -> check -> [--emit=types|layout] -> [code generation]
void run_file(const std::string& path, const DriverOptions& options, std::istream& in, std::ostream& out,
              Diagnostics& diags) {
  std::optional<std::string> text = read_input(path, in, diags, options.limits.max_file_bytes);
  if (!text) return;
  std::unique_ptr<ast::Module> module = parse(*text, path == "-" ? "<stdin>" : path, diags, options.limits);
  if (!module) return;

  for (EmitKind kind : options.emits) {
    if (kind == EmitKind::ast) ast::print_ast(*module, out);
  }

  check::CheckResult checked = check::check(*module, options.defines, diags);
  if (!checked.module || diags.has_errors()) return;
  for (EmitKind kind : options.emits) {
    if (kind == EmitKind::types) check::emit_types(*checked.module, out);
    if (kind == EmitKind::layout) check::emit_layout(*checked.module, out);
  }

  // Code generation (codegen/generate.h) for -o, --emit=ir|schedule|cpp, or a plain `shardc FILE`
  // (which writes to the current folder); --check runs it too, writing nothing, so that it
  // reports every error a build would (a key parameter, which the C++ API cannot take, say).
  const bool plain = writes_to_current_folder(options);
  if (!plain && !asks_for_code_generation(options) && !options.check_only) return;
  codegen::GenerateRequest request;
  request.check_only = options.check_only;
  for (EmitKind kind : options.emits) {
    request.emit_ir = request.emit_ir || kind == EmitKind::ir;
    request.emit_schedule = request.emit_schedule || kind == EmitKind::schedule;
    request.emit_cpp = request.emit_cpp || kind == EmitKind::cpp;
  }
  request.output_dir = options.output_dir;
  if (plain) request.output_dir.emplace(1, '.');
  request.source_path = path;
  request.outer_namespace = options.outer_namespace;
  request.part_size = options.part_size;
  request.trace_passes = options.trace_passes;
  const std::size_t first_codegen_diagnostic = diags.size();
  codegen::generate(checked.module, request, out, diags);
  diags.sort_by_location(first_codegen_diagnostic);  // its passes go function by function
}

}  // namespace

bool asks_for_code_generation(const DriverOptions& options) {
  return options.output_dir || options.trace_passes ||
         std::any_of(options.emits.begin(), options.emits.end(), [](EmitKind kind) {
           return kind == EmitKind::ir || kind == EmitKind::schedule || kind == EmitKind::cpp;
         });
}

void report_internal_errors(Diagnostics& diags, const std::function<void()>& step) {
  try {
    step();
  } catch (const InternalError& e) {
    diags.error({}, e.what());
  } catch (const std::exception& e) {
    diags.error({}, std::string("internal compiler error: ") + e.what());
  }
}

namespace {

// Inputs that would clash before any is read: standard input twice (the second read is empty),
// or, with -o, two files of one module name, whose generated files would overwrite each other
// (shardc_add_library refuses the same). Returns the exit status: 2 for the first, a usage
// error; 1 for the second, which is about the files; 0 when nothing clashes.
int inputs_clash(const DriverOptions& options, std::ostream& err) {
  std::map<std::string, std::string> modules;
  int clash = 0;
  bool stdin_seen = false;
  const bool writes_files = options.output_dir || writes_to_current_folder(options);
  for (const std::string& path : options.inputs) {
    if (path == "-") {
      if (stdin_seen) {
        err << "shardc: error: '-' (standard input) is given twice\n";
        clash = 2;
      }
      stdin_seen = true;
    }
    if (!writes_files) continue;
    auto [it, fresh] = modules.emplace(module_name_for_file(path), path);
    if (!fresh && path != "-") {
      err << "shardc: error: '" << it->second << "' and '" << path << "' are both module '" << it->first
          << "': their files in '" << options.output_dir.value_or(".") << "' would overwrite each other\n";
      clash = std::max(clash, 1);
    }
  }
  return clash;
}

}  // namespace

int run_driver(const DriverOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  if (const int clash = inputs_clash(options, err); clash != 0) return clash;
  bool failed = false;
  for (const std::string& path : options.inputs) {
    // One Diagnostics per file: each file's errors are rendered together, after its output.
    Diagnostics diags;
    report_internal_errors(diags, [&] { run_file(path, options, in, out, diags); });
    out.flush();
    diags.render(err);
    failed = failed || diags.has_errors();
  }
  if (!out) {
    // A full disk or /dev/full: what --emit printed is lost, so the run failed.
    err << "shardc: error: could not write the output (standard output)\n";
    return 1;
  }
  return failed ? 1 : 0;
}

}  // namespace shardc
