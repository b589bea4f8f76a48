#include "codegen/generate.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

#include "codegen/emit_cpp.h"
#include "codegen/pipeline.h"
#include "codegen/print_ir.h"

#ifndef SHARDC_VERSION
#define SHARDC_VERSION "0.1.0"
#endif

namespace shardc::codegen {
namespace {

// Only a regular file is compared or replaced: a directory, a FIFO (whose read would block)
// or a link to a device at the path is an error, not something to read.
// `source` is the .shard file read ("-" for stdin): an output that is the same file (a link to
// it) would overwrite the program with its C++.
bool writable(const std::filesystem::path& path, const std::string& source, Diagnostics& diags) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    diags.error({}, "cannot write '" + path.string() + "': it exists and is not a regular file");
    return false;
  }
  if (source != "-" && std::filesystem::exists(status) && std::filesystem::equivalent(path, source, ec)) {
    diags.error({}, "cannot write '" + path.string() + "': it is the input file '" + source + "' (a link to it)");
    return false;
  }
  return true;
}

// Leaves an identical file untouched, so that builds (ninja's restat) do not recompile it.
bool write_file(const std::filesystem::path& path, const std::string& text, Diagnostics& diags) {
  {
    std::ifstream existing(path, std::ios::binary);
    if (existing) {
      std::string old((std::istreambuf_iterator<char>(existing)), std::istreambuf_iterator<char>());
      if (old == text) return true;
    }
  }
  errno = 0;  // the stream keeps no reason; the failing open or write leaves it here
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    const int reason = errno;
    diags.error({}, "cannot write '" + path.string() + "'" + (reason ? std::string(": ") + std::strerror(reason) : ""));
    return false;
  }
  return true;
}

}  // namespace

void generate(std::shared_ptr<const check::CheckedModule> module, const GenerateRequest& request, std::ostream& out,
              Diagnostics& diags) {
  PipelineOptions options;
  if (request.trace_passes) options.trace = &out;
  std::optional<Module> lowered = lower_module(std::move(module), diags, options);
  if (!lowered) return;
  if (request.emit_ir) print_ir(*lowered, out);
  if (request.emit_schedule) print_schedule(*lowered, out);
  // Emitted even for --emit=ir or --emit=schedule alone: what the C++ boundary cannot take (a
  // key parameter) is found there, and such a program must not look fine (exit 0).
  if (auto problem = outer_namespace_problem(request.outer_namespace)) {
    diags.error({}, "--namespace " + request.outer_namespace + ": " + *problem);
    return;
  }
  // "<stdin>" for "-", as the diagnostics say: generated code names it in comments and errors.
  std::string source_name =
      request.source_path == "-" ? "<stdin>" : std::filesystem::path(request.source_path).filename().string();
  GeneratedFiles files = CppEmitter(*lowered, {source_name, SHARDC_VERSION, request.outer_namespace, request.part_size}, diags).emit();
  if (diags.has_errors() || request.check_only) return;
  const std::string stem = generated_stem(*lowered);
  if (request.emit_cpp) {
    out << "// ==== " << stem << ".shard.h\n" << files.header << "// ==== " << stem << ".shard.cpp\n" << files.source;
  }
  if (request.output_dir) {
    std::filesystem::path dir(*request.output_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      diags.error({}, "cannot create '" + dir.string() + "': " + ec.message());
      return;
    }
    // Both paths are checked first, so that a bad .cpp path leaves no new header behind.
    const std::filesystem::path header = dir / (stem + ".shard.h"), source = dir / (stem + ".shard.cpp");
    if (!writable(header, request.source_path, diags) || !writable(source, request.source_path, diags)) return;
    write_file(header, files.header, diags) && write_file(source, files.source, diags);
  }
}

}  // namespace shardc::codegen
