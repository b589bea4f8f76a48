// emit_cpp: the one printer of C++. Turns a lowered Module into NAME.shard.h and
// NAME.shard.cpp by filling the templates of templates/ (kainjow-mustache): the fixed
// parts live there; this class writes only the per-instruction statements, one line each,
// calling the runtime (shard/*.h) and the prelude (templates/shardgen_prelude.h).
//
//   %2 = einsum(%0, %1) {spec="bd,df->bf"}   ->   Tensor y_2 = p::einsum("bd,df->bf", x_0, w_1, DType::f32);
//   %5 = start(%2) {collective=ppermute}     ->   shard::Pending h_5 = shard::start_ppermute(dev, y_2, {"Y"}, ...);
//
// Names are deterministic (source name + value id), so goldens only change when the program
// or the code generator does. Anything it cannot emit is a located error in `diags`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "codegen/body_parts.h"
#include "codegen/ir.h"
#include "codegen/last_use.h"
#include "frontend/diagnostics.h"

namespace shardc::codegen {

struct GeneratedFiles {
  std::string header;  // NAME.shard.h
  std::string source;  // NAME.shard.cpp
};

struct EmitOptions {
  std::string source_name;     // the .shard file, as named in the generated comment
  std::string shardc_version;
  std::string outer_namespace = "shardgen";  // the module's namespace is OUTER::MODULE (--namespace)
  // A device body of more instructions is cut into functions of about this many (body_parts.h).
  std::size_t part_size = 100;
};

class CppEmitter {
 public:
  CppEmitter(const Module& module, EmitOptions options, Diagnostics& diags)
      : module_(module), options_(std::move(options)), diags_(diags) {}
  GeneratedFiles emit();

 private:
  // Reports a name the generated header would declare twice (a .shard name that is also a
  // function's type helper).
  void check_namespace_names();
  // The C++ names of f's entry point arguments: its parameters' names, kept clear of the
  // names the entry point's body uses.
  std::vector<std::string> entry_arguments(const Function& f) const;
  // A device body: its lines, and when it is long, the functions it calls for its parts
  // (body_parts.h), each with its signature and lines.
  struct Part {
    std::string signature;
    std::string number;  // from 1
    std::vector<std::string> lines;
  };
  struct Body {
    std::vector<std::string> lines;
    std::vector<Part> parts;
    std::size_t statement_lines = 0;  // of the instructions, wherever they are: not the calls of parts
  };
  Body function_body(const Function& f);
  // "TYPE NAME" for the statement defining v; "NAME" when v's part assigns what the caller declared.
  std::string declare(const Function& f, ValueId v, const std::string& type) const;
  std::string statement(const Function& f, const Instr& instr);
  // "// line 12: let y = x @ w;": where an instruction comes from, for a reader of the C++.
  std::string source_comment(const SourceRange& range) const;
  // "model.shard:12:7" as a C++ string literal: where a run-time check's error points.
  std::string source_location_literal(const SourceRange& range) const;
  std::string name(const Function& f, ValueId id) const;
  std::string axes(const Function& f, const AxisList& axes) const;
  std::string spec(const Function& f, const std::vector<AxisList>& spec) const;
  // shard::reshard / shard::start_reshard (prefix "shard::" or "shard::start_") of a reshard_exchange.
  std::string reshard_call(const Function& f, const std::string& prefix, const Instr& instr, const std::string& x) const;

  // Set while a function's body is emitted: which operands may be moved from, and which fills
  // are overwritten whole before anything reads them (overwritten_fills.h).
  const LastUses* uses_ = nullptr;
  const std::vector<bool>* overwritten_fills_ = nullptr;
  const std::vector<bool>* read_ = nullptr;  // per value: read by an instruction or returned
  const BodyParts* parts_ = nullptr;  // set when the body is cut into parts
  std::size_t index_ = 0;  // the instruction being emitted

  const Module& module_;
  EmitOptions options_;
  Diagnostics& diags_;
};

// The generated files' name stem for a module: NAME in NAME.shard.h, the module name as the
// file gives it (letters, digits and '_'; CMake's MAKE_C_IDENTIFIER of it is the same, so
// shardc_add_library knows the files' names without running shardc).
std::string generated_stem(const Module& module);
// The module's C++ namespace under shardgen::: the stem, renamed when C++ reserves it
// (`class.shard` is shardgen::class_).
std::string generated_namespace(const Module& module);
// Why `outer` cannot be the namespace the modules go in (--namespace), or nullopt: it must be
// C identifiers joined by "::", none of them a name C++ or the generated code reserves.
std::optional<std::string> outer_namespace_problem(std::string_view outer);

}  // namespace shardc::codegen
