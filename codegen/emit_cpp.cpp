#include "codegen/emit_cpp.h"

#include <kainjow/mustache.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "codegen/embedded_templates.h"
#include "codegen/header_macros.h"
#include "codegen/overwritten_fills.h"
#include "codegen/wrap_lines.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace mu = kainjow::mustache;
namespace {

// Names a generated identifier must not take: every C++20 keyword and alternative token, the
// standard library's macros a generated file can see, and the names the generated code itself
// declares. A .shard name among them gets a trailing '_'.
const std::set<std::string> kReserved = {
    // C++20 keywords
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t",
    "class", "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
    "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    // alternative tokens
    "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq",
    // identifiers with a special meaning; `assert`, a macro of <cassert>, which a user's file may
    // include before the header (the macros the generated code itself sees: header_macros())
    "final", "override", "import", "module", "assert",
    // what the generated code declares or uses unqualified (call_N holds the results of the
    // call that is instruction N: a value named call is call__N; top_k cannot be rebound)
    "rt", "dev", "p", "blocks", "result0", "result1", "Tensor", "DType", "shard", "std", "detail", "call",
    "ParameterlessFunction", "parameterless_functions", "FunctionInfo", "all_functions", "functions", "args",
    // a module's namespace is shardgen::NAME, beside the prelude's shardgen::prelude
    "prelude"};

// The most lines of statements code generation writes for one device body, whatever its parts
// (see where it is checked).
constexpr std::size_t kMaxBodyLines = 50000;

// '_' and a capital, or two '_', start a name reserved to the implementation (macros like _X,
// and the compiler's own: __cplusplus, __LINE__, __x86_64__): such a name gets "v_" in front.
// So does a name that already starts with "v_" followed by such a name, so that two .shard
// names never become one C++ name: every prefixed result needs the prefix by this rule, and no
// unprefixed one does.
bool needs_prefix(std::string_view name) {
  if (name.size() > 1 && name[0] == '_' && (std::isupper(static_cast<unsigned char>(name[1])) || name[1] == '_'))
    return true;
  return name.starts_with("v_") && needs_prefix(name.substr(2));
}

// The same for the trailing '_' of a reserved name or a macro of the headers generated code
// includes: `class` is `class_`, so `class_` is `class__`; INT_MAX is INT_MAX_.
bool needs_suffix(std::string_view name) {
  if (kReserved.count(std::string(name)) || header_macros().count(std::string(name))) return true;
  return name.ends_with('_') && needs_suffix(name.substr(0, name.size() - 1));
}

bool is_c_identifier(std::string_view name) {
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// .shard names and module names (module_name_for_file) are C identifiers already.
std::string identifier(std::string name) {
  SHARDC_ASSERT(is_c_identifier(name), "not a C identifier: '" + name + "'");
  if (needs_prefix(name)) name = "v_" + name;
  if (needs_suffix(name)) name += "_";
  return name;
}

// C++ that calls an entry point (`call`) and hands its results out as the
// std::vector<shard::Array> of all_functions() and parameterless_functions(): one result is
// moved in, a tuple unpacked into it (the prelude's result_vector).
std::string results_as_vector(const Function& f, const std::string& call) {
  return f.result_types.size() == 1
             ? "p::result_vector(" + call + ")"
             : "std::apply([](auto&&... r) { return p::result_vector(std::move(r)...); }, " + call + ")";
}

// Where parameter i of f is declared (its param instruction), and where result i is computed
// (the instruction that produces it): for messages about the function's boundary.
SourceRange param_range(const Function& f, std::size_t i) {
  for (const InstrPtr& instr : f.body)
    if (instr->kind() == OpKind::param && instr->int_attr("index") == static_cast<std::int64_t>(i)) return instr->range();
  return {};
}
SourceRange result_range(const Function& f, std::size_t i) {
  if (i >= f.results.size()) return {};
  for (const InstrPtr& instr : f.body)
    for (ValueId out : instr->outputs())
      if (out == f.results[i]) return instr->range();
  return {};
}

std::string dtype_text(DType t) {
  return t == DType::boolean ? "DType::boolean" : "DType::" + std::string(shard::dtype_short_name(t));
}

// An int64 as a C++ literal. INT64_MIN cannot be written as a negated literal: 9223372036854775808
// does not fit any signed type, so compilers warn that it is taken as unsigned (an error
// under -Werror) before negating it.
std::string int_text(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807 - 1)";
  return std::to_string(v);
}

std::string ints_text(const std::vector<std::int64_t>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + int_text(v[i]);
  return s + "}";
}

// Stands for the module's inline namespace while the files are rendered; replaced by a name made
// from a hash of both files, so the name follows everything the code says.
constexpr std::string_view kCodeIdentityPlaceholder = "code_identity_placeholder";

// FNV-1a, 64 bits, as 16 hex digits: stable across platforms and runs (std::hash is neither).
std::string code_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
  return out;
}

// Mustache's "standalone" rule, which kainjow implements only for sections that render: an empty
// section leaves its tag lines behind as a blank line (a function without parameters, a body
// not cut into parts). A line holding nothing but a section tag ({{#x}}, {{/x}}, {{^x}}) is
// joined to the next line, which then starts with the tag, unless that line is blank: kainjow
// drops the newline right after an opening tag, and a section that starts with a blank line
// (one between functions) keeps its tag line, the blank it leaves when empty being collapsed
// after rendering.
std::string standalone_tags_joined(const std::string& text) {
  std::vector<std::string_view> lines;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.emplace_back(text.data() + begin, end - begin);
    begin = end;
  }
  const auto blank = [](std::string_view line) { return line.find_first_not_of(" \t\n") == std::string_view::npos; };
  // The line's section tag without its indentation and newline, if the line holds nothing else.
  const auto lone_tag = [](std::string_view line) -> std::optional<std::string_view> {
    const auto first = line.find_first_not_of(" \t"), last = line.find_last_not_of(" \t\n");
    if (first == std::string_view::npos || last == std::string_view::npos || last < first + 4) return std::nullopt;
    const std::string_view tag = line.substr(first, last + 1 - first);
    const bool section = std::string_view("#/^").find(tag[2]) != std::string_view::npos;
    if (!tag.starts_with("{{") || !tag.ends_with("}}") || !section || tag.find("}}") != tag.size() - 2)
      return std::nullopt;
    return tag;
  };
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto tag = lone_tag(lines[i]);
    out.append(tag && i + 1 < lines.size() && !blank(lines[i + 1]) ? *tag : lines[i]);
  }
  return out;
}

std::string double_text(double d) {
  std::ostringstream s;
  s << std::setprecision(std::numeric_limits<double>::max_digits10) << d;
  std::string t = s.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t;
}

const char* binary_enum(const std::string& fn) {
  if (fn == "rem") return "mod";
  if (fn == "maximum") return "max";
  if (fn == "minimum") return "min";
  if (fn == "and") return "logical_and";
  if (fn == "or") return "logical_or";
  return nullptr;
}

std::string shape_text(const std::vector<std::int64_t>& v) { return "shard::Shape" + ints_text(v); }

// The type helper the header declares beside function F: F_in0_type, F_out1_type, ...
std::string helper_name(const std::string& function, const char* in_out, std::size_t index) {
  return identifier(function) + "_" + in_out + std::to_string(index) + "_type";
}

}  // namespace

std::string generated_stem(const Module& module) { return module.name; }

std::optional<std::string> outer_namespace_problem(std::string_view outer) {
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(outer.find("::", begin), outer.size());
    const std::string_view part = outer.substr(begin, end - begin);
    if (!is_c_identifier(part)) return "'" + std::string(part) + "' is not a C++ identifier";
    if (needs_prefix(part) || needs_suffix(part))
      return "'" + std::string(part) + "' is reserved (a C++ keyword or macro, or a name the generated code uses)";
    // At global scope a namespace 'main' and the program's int main() cannot both be declared.
    if (begin == 0 && part == "main")
      return "'main' at global scope would clash with the program's int main(); nest it (a::main) or choose another name";
    if (end == outer.size()) return std::nullopt;
    begin = end + 2;
  }
}

std::string generated_namespace(const Module& module) { return identifier(module.name); }

std::string CppEmitter::name(const Function& f, ValueId id) const {
  const Value& v = f.values.at(static_cast<std::size_t>(id));
  if (v.kind == ValueKind::pending) return "h" + std::to_string(id);
  if (!v.name.empty()) return identifier(v.name) + "_" + std::to_string(id);
  return "t" + std::to_string(id);
}

std::string CppEmitter::axes(const Function& f, const AxisList& list) const {
  std::string s = "{";
  for (std::size_t i = 0; i < list.size(); ++i)
    s += (i ? ", \"" : "\"") + f.mesh->axis_names.at(static_cast<std::size_t>(list[i])) + "\"";
  return s + "}";
}

std::string CppEmitter::spec(const Function& f, const std::vector<AxisList>& dims) const {
  std::string s = "{";
  for (std::size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + std::string("shard::DimAxes") + axes(f, dims[d]);
  return s + "}";
}

std::string CppEmitter::reshard_call(const Function& f, const std::string& prefix, const Instr& instr,
                                     const std::string& x) const {
  const Value& in = f.values.at(static_cast<std::size_t>(instr.inputs().at(0)));
  return prefix + "reshard(dev, " + x + ", " + shape_text(in.global_shape) + ", shard::Sharding(dev.mesh(), " +
         spec(f, instr.spec_attr("from")) + "), shard::Sharding(dev.mesh(), " + spec(f, instr.spec_attr("to")) + "))";
}

std::string collective_call(const std::string& prefix, const std::string& kind, const std::string& x,
                            const std::string& axes_text, const Instr& instr) {
  std::string head = prefix + kind + "(dev, " + x + ", " + axes_text;
  if (kind == "psum" || kind == "pmean" || kind == "pmax" || kind == "pmin" || kind == "pprod") return head + ")";
  if (kind == "all_gather" || kind == "all_gather_invariant")
    return head + ", " + std::to_string(instr.int_attr("axis")) + ", " + (instr.bool_attr("tiled") ? "true" : "false") + ")";
  if (kind == "psum_scatter")
    return head + ", " + std::to_string(instr.int_attr("dim")) + ", " + (instr.bool_attr("tiled") ? "true" : "false") + ")";
  if (kind == "all_to_all")
    return head + ", " + std::to_string(instr.int_attr("split")) + ", " + std::to_string(instr.int_attr("concat")) + ", " +
           (instr.bool_attr("tiled") ? "true" : "false") + ")";
  if (kind == "ppermute") {
    const auto& flat = instr.ints_attr("perm");
    std::string pairs;
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2)
      pairs += (i ? ", {" : "{") + std::to_string(flat[i]) + ", " + std::to_string(flat[i + 1]) + "}";
    return head + ", shard::Permutation{" + pairs + "})";
  }
  SHARDC_ASSERT(false, "no call form for collective " + kind);
  return "";
}

CppEmitter::Body CppEmitter::function_body(const Function& f) {
  Body body;
  const LastUses uses(f);
  uses_ = &uses;
  const std::vector<bool> overwritten = find_overwritten_fills(f);
  overwritten_fills_ = &overwritten;
  const DefUse def_use(f);
  std::vector<bool> read(f.values.size(), false);
  for (std::size_t v = 0; v < read.size(); ++v) read[v] = !def_use.readers[v].empty();
  for (ValueId r : f.results) read[static_cast<std::size_t>(r)] = true;
  read_ = &read;
  const BodyParts parts(f, uses, options_.part_size);
  parts_ = &parts;
  // The statements of instructions [begin, end): all of them, or only the parameters' or only
  // the others.
  enum class Which { all, params, others };
  auto statements = [&](std::size_t begin, std::size_t end, Which which, std::vector<std::string>& lines) {
    std::uint32_t commented_line = 0;  // the .shard line named last in these lines
    for (index_ = begin; index_ < end; ++index_) {
      const Instr& instr = *f.body[index_];
      const bool param = instr.kind() == OpKind::param;
      if ((which == Which::params && !param) || (which == Which::others && param)) continue;
      const std::string text = statement(f, instr);
      // Each run of statements from one .shard line is headed by that line (not counted below).
      if (!text.empty() && instr.range().valid() && instr.range().begin.line != commented_line) {
        commented_line = instr.range().begin.line;
        lines.push_back(source_comment(instr.range()));
      }
      const std::size_t before = lines.size();
      std::istringstream split(text);
      for (std::string line; std::getline(split, line);) lines.push_back(line);
      std::string released;
      for (ValueId r : uses.released_after(index_)) released += (released.empty() ? "" : ", ") + name(f, r);
      if (!released.empty()) lines.push_back("p::release(" + released + ");");
      body.statement_lines += lines.size() - before;
    }
  };
  if (parts.parts().empty()) {
    statements(0, f.body.size(), Which::all, body.lines);
  } else {
    statements(0, f.body.size(), Which::params, body.lines);
    const std::string count = std::to_string(parts.parts().size());
    body.lines.push_back("// In " + count + " parts, each a function of its own: a C++ compiler's time on one");
    body.lines.push_back("// function grows much faster than its length.");
    for (std::size_t k = 0; k < parts.parts().size(); ++k) {
      const BodyPart& part = parts.parts()[k];
      const std::string function = identifier(f.name) + "_device_part" + std::to_string(k + 1);
      std::string signature = "void " + function + "([[maybe_unused]] shard::Device& dev";
      std::string call = function + "(dev";
      for (std::size_t j = 0; j < part.inputs.size(); ++j) {
        const ValueId v = part.inputs[j];
        const ValueKind kind = f.values.at(static_cast<std::size_t>(v)).kind;
        signature += kind == ValueKind::key       ? ", p::Key "
                     : kind == ValueKind::pending ? ", shard::Pending& "  // waited for in this part
                     : part.moved_from[j]         ? ", Tensor& "
                                                  : ", const Tensor& ";
        signature += name(f, v);
        call += ", " + name(f, uses.root(v));  // an alias is a second name of its root's block
      }
      for (ValueId v : part.outputs) {
        const ValueKind kind = f.values.at(static_cast<std::size_t>(v)).kind;
        const std::string type = kind == ValueKind::key ? "p::Key" : kind == ValueKind::pending ? "shard::Pending" : "Tensor";
        body.lines.push_back(type + " " + name(f, v) + ";");
        signature += ", " + type + "& " + name(f, v);
        call += ", " + name(f, v);
      }
      body.lines.push_back(call + ");");
      Part emitted{signature + ")", std::to_string(k + 1), {}};
      statements(part.begin, part.end, Which::others, emitted.lines);
      body.parts.push_back(std::move(emitted));
    }
  }
  // Results: the storage moved out at its last mention (through an alias: its root), copied
  // before (a value returned twice) and from parameters (the caller owns them). After parts,
  // an alias is named by its root: the alias itself was a name inside a part.
  std::string ret = "return {";
  for (std::size_t i = 0; i < f.results.size(); ++i) {
    ValueId r = f.results[i];
    const std::string named = name(f, parts.parts().empty() ? r : uses.root(r));
    ret += (i ? ", " : "") + (uses.result_movable(i) ? "std::move(" + name(f, uses.root(r)) + ")" : named);
  }
  body.lines.push_back(ret + "};");
  uses_ = nullptr;
  overwritten_fills_ = nullptr;
  read_ = nullptr;
  parts_ = nullptr;
  return body;
}

std::string CppEmitter::source_comment(const SourceRange& range) const {
  std::string comment = "// line " + std::to_string(range.begin.line);
  const SourceFile* file = diags_.sources().find(range.file);
  if (!file) return comment;
  std::string text(file->line_text(range.begin.line));
  // Control bytes (tabs, CR, form feeds, NUL, ...) become spaces; then a backslash left at the
  // end would splice the next C++ line into this comment.
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  text.erase(0, std::min(text.size(), text.find_first_not_of(' ')));
  while (!text.empty() && (text.back() == '\\' || text.back() == ' ')) text.pop_back();
  constexpr std::size_t kShown = 80;  // a long line is cut: the comment points, it does not quote
  if (text.size() > kShown) {
    text.resize(kShown);
    while (text.back() == ' ') text.pop_back();
    text += " ...";
  }
  return text.empty() ? comment : comment + ": " + text;
}

std::string CppEmitter::source_location_literal(const SourceRange& range) const {
  std::string where = options_.source_name;
  if (range.valid()) where += ":" + std::to_string(range.begin.line) + ":" + std::to_string(range.begin.column);
  std::string literal = "\"";
  for (char c : where) {
    if (c == '"' || c == '\\') literal += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {  // a file name may hold anything
      char octal[8];
      std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned char>(c));
      literal += octal;
    } else {
      literal += c;
    }
  }
  return literal + "\"";
}

std::string CppEmitter::declare(const Function& f, ValueId v, const std::string& type) const {
  if (parts_ && parts_->declared_by_caller(v)) return name(f, v);
  return type + " " + name(f, v);
}

std::string CppEmitter::statement(const Function& f, const Instr& instr) {
  auto in = [&](std::size_t i) { return name(f, instr.inputs().at(i)); };
  // Operand i, moved from (its root's storage) when nothing reads it afterwards.
  auto can_consume = [&](std::size_t i) { return uses_ && uses_->consumable(index_, i); };
  auto consume = [&](std::size_t i) {
    return can_consume(i) ? "std::move(" + name(f, uses_->root(instr.inputs().at(i))) + ")" : in(i);
  };
  auto val = [&](ValueId id) -> const Value& { return f.values.at(static_cast<std::size_t>(id)); };
  const std::string out = instr.outputs().empty() ? "" : name(f, instr.outputs()[0]);
  const Value* ov = instr.outputs().empty() ? nullptr : &val(instr.outputs()[0]);
  auto def = [&](const std::string& expr) { return declare(f, instr.outputs()[0], "Tensor") + " = " + expr + ";"; };
  // Windows (views into a block, last_use.h): whether the output is one; operand i as a view.
  const bool window = uses_ && !instr.outputs().empty() && uses_->is_window(instr.outputs()[0]);
  auto def_window = [&](const std::string& expr) { return "const p::k::View " + out + " = " + expr + ";"; };
  auto view = [&](std::size_t i) {
    return uses_ && uses_->is_window(instr.inputs().at(i)) ? in(i) : "p::in_view(" + in(i) + ")";
  };
  auto dt = [&] { return dtype_text(ov->dtype); };
  auto shp = [&] { return ints_text(ov->shape); };
  switch (instr.kind()) {
    case OpKind::param: {
      // A parameter the body never reads is still bound, by name, for readers of the code.
      const bool unread = read_ && !(*read_)[static_cast<std::size_t>(instr.outputs().at(0))];
      return std::string(unread ? "[[maybe_unused]] " : "") + "const Tensor& " + out + " = in" +
             std::to_string(instr.int_attr("index")) + ";";
    }
    // A second name for a block; unused when every reader moved from the block itself.
    case OpKind::alias:
    case OpKind::pvary: return "[[maybe_unused]] const Tensor& " + out + " = " + in(0) + ";";
    case OpKind::constant: {
      const Attr& a = instr.attrs().at("value");
      if (auto* i = std::get_if<std::int64_t>(&a)) return def("p::scalar_int(" + dt() + ", " + int_text(*i) + ")");
      if (auto* d = std::get_if<double>(&a)) return def("p::scalar_float(" + dt() + ", " + double_text(*d) + ")");
      return def("p::scalar_int(" + dt() + ", " + (std::get<bool>(a) ? "1" : "0") + ")");
    }
    case OpKind::unary:
      return def("p::unary(p::k::UnaryOp::" + instr.string_attr("fn") + ", " + in(0) + ", " + dt() + ")");
    case OpKind::binary: {
      const std::string& fn = instr.string_attr("fn");
      const char* e = binary_enum(fn);
      DType compute = ov->dtype;
      for (DType t : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean})
        if (shard::dtype_short_name(t) == instr.string_attr("dtype")) compute = t;
      // acc = acc + x: the dead first operand's block becomes the result (when dtype and shape
      // already are the result's; binary_reusing checks and falls back to a new block).
      const char* helper = can_consume(0) ? "p::binary_reusing(" : "p::binary(";
      return def(helper + std::string("p::k::BinaryOp::") + std::string(e ? e : fn) + ", " + consume(0) + ", " +
                 in(1) + ", " + dtype_text(compute) + ", " + shp() + ")");
    }
    case OpKind::compare: {
      DType compute = DType::f32;
      for (DType t : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean})
        if (shard::dtype_short_name(t) == instr.string_attr("dtype")) compute = t;
      return def("p::compare(p::k::CompareOp::" + instr.string_attr("fn") + ", " + in(0) + ", " + in(1) + ", " +
                 dtype_text(compute) + ", " + shp() + ")");
    }
    case OpKind::select:
      return def("p::select(" + in(0) + ", " + in(1) + ", " + in(2) + ", " + dt() + ", " + shp() + ")");
    case OpKind::convert: return def("p::convert(" + in(0) + ", " + dt() + ")");
    case OpKind::einsum:
      if (instr.inputs().size() == 1)
        return def("p::einsum(\"" + instr.string_attr("spec") + "\", " + in(0) + ", " + dt() + ")");
      if (instr.inputs().size() != 2) {
        diags_.error(instr.range(), "code generation supports einsum of one or two operands only");
        return "// unsupported einsum";
      }
      if (uses_ && (uses_->is_window(instr.inputs()[0]) || uses_->is_window(instr.inputs()[1])))
        return def("p::matmul(" + view(0) + ", " + view(1) + ", " + dt() + ")");
      return def("p::einsum(\"" + instr.string_attr("spec") + "\", " + in(0) + ", " + in(1) + ", " + dt() + ")");
    case OpKind::reduce: {
      const std::string& fn = instr.string_attr("fn");
      if (fn == "argmax" || fn == "argmin")  // one axis, checked by the front end
        return def("p::" + fn + "(" + in(0) + ", " + std::to_string(instr.ints_attr("axes").at(0)) + ", " + shp() + ")");
      std::vector<std::int64_t> axes_list = instr.ints_attr("axes");
      if (axes_list.empty())
        for (std::size_t d = 0; d < val(instr.inputs()[0]).shape.size(); ++d) axes_list.push_back(static_cast<std::int64_t>(d));
      return def("p::reduce(p::k::ReduceOp::" + instr.string_attr("fn") + ", " + in(0) + ", " + ints_text(axes_list) +
                 ", " + dt() + ", " + shp() + ")");
    }
    case OpKind::softmax: return def("p::softmax(" + in(0) + ", " + std::to_string(instr.int_attr("axis")) + ")");
    case OpKind::top_k: {
      std::string tuple = "top_k_" + std::to_string(instr.outputs()[0]);
      return "auto " + tuple + " = p::top_k(" + in(0) + ", " + std::to_string(instr.int_attr("k")) + ", " + shp() +
             ");\n" + declare(f, instr.outputs()[0], "Tensor") + " = std::move(std::get<0>(" + tuple + "));\n" +
             declare(f, instr.outputs()[1], "Tensor") + " = p::convert(std::get<1>(" + tuple + "), " +
             dtype_text(val(instr.outputs()[1]).dtype) + ");";
    }
    case OpKind::reshape:
      if (window) return def_window("p::reshape_window(" + view(0) + ", " + shp() + ")");
      return def("p::reshape(" + consume(0) + ", " + shp() + ")");
    case OpKind::transpose: {
      std::string perm = "{";
      const auto& pv = instr.ints_attr("perm");
      for (std::size_t i = 0; i < pv.size(); ++i) perm += (i ? ", " : "") + std::to_string(pv[i]);
      return def("p::transpose(" + in(0) + ", " + perm + "})");
    }
    case OpKind::slice: {
      const Value& x = val(instr.inputs()[0]);
      std::vector<std::int64_t> starts = instr.ints_attr("starts"), limits = instr.ints_attr("limits"),
                                steps = instr.ints_attr("steps");
      // A sharded dimension is only sliced here where each block keeps the same elements (its
      // whole, or every s-th from a start below s; lower_to_spmd): the slice runs to the block's end.
      for (std::size_t d = 0; d < x.spec.size() && d < starts.size(); ++d)
        if (!x.spec[d].empty()) limits[d] = x.shape[d];
      const std::string bounds = ints_text(starts) + ", " + ints_text(limits) + ", " + ints_text(steps);
      if (window) return def_window("p::slice_window(" + view(0) + ", " + bounds + ")");
      std::string squeezed = "{";
      const auto& sq = instr.ints_attr("squeezed");
      for (std::size_t i = 0; i < sq.size(); ++i) squeezed += (i ? ", " : "") + std::to_string(sq[i]);
      return def("p::slice(" + in(0) + ", " + bounds + ", " + squeezed + "})");
    }
    case OpKind::dynamic_slice: {
      const Value& x = val(instr.inputs()[0]);
      std::string starts = "{";
      if (instr.has("axis")) {
        for (std::size_t d = 0; d < x.shape.size(); ++d)
          starts += std::string(d ? ", " : "") +
                    (static_cast<std::int64_t>(d) == instr.int_attr("axis") ? "p::to_index(" + in(1) + ")" : "0");
      } else {
        for (std::size_t d = 1; d < instr.inputs().size(); ++d)
          starts += std::string(d > 1 ? ", " : "") + "p::to_index(" + in(d) + ")";
      }
      const std::string args = starts + "}, " + ints_text(instr.ints_attr("sizes")) + ")";
      if (window) return def_window("p::dynamic_window(" + view(0) + ", " + args);
      return def("p::dynamic_slice(" + in(0) + ", " + args);
    }
    case OpKind::dynamic_update_slice: {
      const Value& x = val(instr.inputs()[0]);
      std::string starts = "{";
      std::int64_t axis = instr.int_attr("axis");
      if (axis >= 0) {
        for (std::size_t d = 0; d < x.shape.size(); ++d)
          starts += std::string(d ? ", " : "") + (static_cast<std::int64_t>(d) == axis ? "p::to_index(" + in(2) + ")" : "0");
      } else {
        for (std::size_t d = 2; d < instr.inputs().size(); ++d)
          starts += std::string(d > 2 ? ", " : "") + "p::to_index(" + in(d) + ")";
      }
      if (instr.attrs().count("across_blocks")) {
        // Starts are global along these dimensions: each device writes what falls in its block.
        std::string dims = "{";
        for (std::int64_t d : instr.ints_attr("across_blocks"))
          dims += std::string(dims.size() > 1 ? ", " : "") + "{" + std::to_string(d) + ", " +
                  int_text(x.global_shape.at(static_cast<std::size_t>(d))) + ", " +
                  axes(f, x.spec.at(static_cast<std::size_t>(d))) + "}";
        return def("p::dynamic_update_slice_across_blocks(dev, " + consume(0) + ", " + in(1) + ", " + starts + "}, " +
                   dims + "})");
      }
      return def("p::dynamic_update_slice(" + consume(0) + ", " + in(1) + ", " + starts + "})");
    }
    case OpKind::dynamic_index:
      if (window) return def_window("p::index_window(" + view(0) + ", p::to_index(" + in(1) + "))");
      return def("p::dynamic_index(" + in(0) + ", p::to_index(" + in(1) + "))");
    case OpKind::concat:
    case OpKind::stack: {
      std::string list = "{";
      for (std::size_t i = 0; i < instr.inputs().size(); ++i) list += (i ? ", &" : "&") + in(i);
      return def(std::string(instr.kind() == OpKind::concat ? "p::concat(" : "p::stack(") + list + "}, " +
                 std::to_string(instr.int_attr("axis")) + ", " + dt() + ", " + shp() + ")");
    }
    case OpKind::roll:
      return def("p::roll(" + in(0) + ", " + int_text(instr.int_attr("shift")) + ", " +
                 std::to_string(instr.int_attr("axis")) + ")");
    case OpKind::fill:
      if (overwritten_fills_ && overwritten_fills_->at(static_cast<std::size_t>(instr.output())))
        return def("p::uninitialized(" + dt() + ", " + shp() + ")");
      if (instr.inputs().empty()) return def("p::fill(" + dt() + ", " + shp() + ", " + double_text(instr.float_attr("value")) + ")");
      return def("p::full(" + dt() + ", " + shp() + ", " + in(0) + ")");
    case OpKind::arange: {
      std::vector<AxisList> s = instr.spec_attr("spec");
      if (s.empty()) s.resize(1);
      return def("p::arange(dev, " + dt() + ", " + double_text(instr.float_attr("start")) + ", " +
                 double_text(instr.float_attr("step")) + ", " + std::to_string(instr.int_attr("size")) + ", " +
                 spec(f, s) + ")");
    }
    // Keys are plain structs: one drawn but never used would warn; a seed's key often is.
    case OpKind::key: return declare(f, instr.outputs()[0], "[[maybe_unused]] p::Key") + " = p::make_key(" + in(0) + ");";
    case OpKind::split_key: {
      std::string s;
      for (std::size_t i = 0; i < instr.outputs().size(); ++i)
        s += (i ? "\n" : "") + declare(f, instr.outputs()[i], "[[maybe_unused]] p::Key") + " = p::split_at(" + in(0) + ", " +
             std::to_string(i) + ");";
      return s;
    }
    case OpKind::fold_in:
      return declare(f, instr.outputs()[0], "[[maybe_unused]] p::Key") + " = p::fold_in(" + in(0) + ", " + in(1) + ");";
    case OpKind::random: {
      std::vector<AxisList> s = instr.spec_attr("spec");
      const auto& global = instr.ints_attr("global_shape");
      if (s.empty()) s.resize(global.size());
      std::string head = "p::" + instr.string_attr("fn") + "(dev, " + in(0) + ", " + dt() + ", " + ints_text(global) +
                         ", " + spec(f, s);
      if (instr.string_attr("fn") == "uniform")
        return def(head + ", " + double_text(instr.float_attr("min")) + ", " + double_text(instr.float_attr("max")) + ")");
      return def(head + ")");
    }
    case OpKind::axis_index: return def("p::axis_index(dev, " + axes(f, instr.axes_attr("axes")) + ")");
    case OpKind::take_piece:
      return def("p::take_piece(dev, " + in(0) + ", " + std::to_string(instr.int_attr("dim")) + ", " +
                 axes(f, instr.axes_attr("axes")) + ")");
    case OpKind::call: {
      std::string tuple = "call_" + std::to_string(instr.outputs().empty() ? 0 : instr.outputs()[0]);
      std::string s = "auto " + tuple + " = detail::" + identifier(instr.string_attr("callee")) + "_device(dev";
      for (std::size_t i = 0; i < instr.inputs().size(); ++i) s += ", " + in(i);
      s += ");";
      for (std::size_t i = 0; i < instr.outputs().size(); ++i)
        s += "\n" + declare(f, instr.outputs()[i], "Tensor") + " = std::move(std::get<" + std::to_string(i) + ">(" + tuple + "));";
      return s;
    }
    case OpKind::psum:
    case OpKind::pmean:
    case OpKind::pmax:
    case OpKind::pmin:
    case OpKind::pprod:
    case OpKind::all_gather:
    case OpKind::all_gather_invariant:
    case OpKind::psum_scatter:
    case OpKind::all_to_all:
    case OpKind::ppermute:
      return def(collective_call("shard::", std::string(op_kind_name(instr.kind())), in(0),
                                 axes(f, instr.axes_attr("axes")), instr));
    case OpKind::ragged_all_to_all:  // synchronous: the runtime's start form reads five of the six inputs at once
      // Its sizes are values, checked only at run time: the error says which line.
      return def("p::at_source(" + source_location_literal(instr.range()) +
                 ", [&] { return shard::ragged_all_to_all(dev, " + in(0) + ", " + in(1) + ", " + in(2) + ", " + in(3) +
                 ", " + in(4) + ", " + in(5) + ", " + axes(f, instr.axes_attr("axes")) + "); })");
    case OpKind::reshard_exchange: return def(reshard_call(f, "shard::", instr, in(0)));
    case OpKind::start:
      if (instr.string_attr("collective") == op_kind_name(OpKind::reshard_exchange))
        return declare(f, instr.outputs()[0], "shard::Pending") + " = " + reshard_call(f, "shard::start_", instr, in(0)) + ";";
      return declare(f, instr.outputs()[0], "shard::Pending") + " = " +
             collective_call("shard::start_", instr.string_attr("collective"), in(0), axes(f, instr.axes_attr("axes")),
                             instr) +
             ";";
    case OpKind::wait: return def(in(0) + ".wait()");
    case OpKind::reshard:
      SHARDC_ASSERT(false, "reshard reached the emitter: lower_reshards did not run");
  }
  return "";
}

void CppEmitter::check_namespace_names() {
  // What each name at namespace scope of the generated header stands for. The .shard names
  // are distinct and identifier() keeps them so; what can clash is a .shard name with the
  // type helpers of a function (`f_in0_type` beside f's parameter 0).
  std::map<std::string, std::string> taken;
  const check::CheckedModule& cm = *module_.checked;
  for (const check::ConstValue& c : cm.consts) taken.emplace(identifier(c.name), "const '" + c.name + "'");
  for (const auto& m : cm.meshes) taken.emplace(identifier(m->name), "the accessor of mesh '" + m->name + "'");
  for (const Function& f : module_.functions) taken.emplace(identifier(f.name), "function '" + f.name + "'");
  for (const Function& f : module_.functions) {
    const check::CheckedFunction* cf = cm.find_function(f.name);
    SourceRange where = cf && cf->decl ? cf->decl->name.range : SourceRange{};
    auto claim = [&](const char* in_out, std::size_t i) {
      std::string helper = helper_name(f.name, in_out, i);
      auto [it, fresh] = taken.emplace(helper, "");
      if (fresh) return;
      diags_
          .error(where, "the generated C++ would declare '" + helper + "' twice: as the type of " +
                            (in_out == std::string("in") ? "parameter " : "result ") + std::to_string(i) + " of '" +
                            f.name + "' and as " + it->second)
          .note("each function F gets F_inN_type() and F_outN_type() beside it; rename one of the two");
    };
    for (std::size_t i = 0; i < f.param_types.size(); ++i) claim("in", i);
    for (std::size_t i = 0; i < f.result_types.size(); ++i) claim("out", i);
  }
}

std::vector<std::string> CppEmitter::entry_arguments(const Function& f) const {
  // The entry point's body also names its mesh's accessor, its type helpers and its result
  // locals: an argument named like one of them gets '_' appended until it is not (the header
  // declares the same names, so what a reader sees there is what the body uses).
  std::set<std::string> body_names = {identifier(f.mesh->name)};
  for (std::size_t i = 0; i < f.param_types.size(); ++i) body_names.insert(helper_name(f.name, "in", i));
  for (std::size_t i = 0; i < f.result_types.size(); ++i) {
    body_names.insert(helper_name(f.name, "out", i));
    body_names.insert("result" + std::to_string(i));
    body_names.insert("result" + std::to_string(i) + "_blocks");
  }
  std::vector<std::string> args;
  for (const std::string& param : f.param_names) {
    std::string arg = identifier(param);
    while (body_names.count(arg)) arg += "_";
    body_names.insert(arg);
    args.push_back(arg);
  }
  return args;
}

GeneratedFiles CppEmitter::emit() {
  const check::CheckedModule& cm = *module_.checked;
  mu::data ctx;
  ctx.set("module", generated_namespace(module_));
  ctx.set("outer_namespace", options_.outer_namespace);
  ctx.set("code_identity", std::string(kCodeIdentityPlaceholder));  // replaced by the code's hash
  ctx.set("file_stem", generated_stem(module_));
  // In a // comment: a line break in the file name would end it.
  std::string source_in_comment = options_.source_name;
  std::replace_if(source_in_comment.begin(), source_in_comment.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  ctx.set("source", source_in_comment);
  ctx.set("shardc_version", options_.shardc_version);
  ctx.set("prelude_version", std::string("4"));  // shardgen_prelude.h's kVersion

  mu::data consts{mu::data::type::list};
  for (const check::ConstValue& c : cm.consts) {
    mu::data d;
    d.set("name", identifier(c.name));
    if (auto* i = std::get_if<std::int64_t>(&c.value)) {
      d.set("cpp_type", "std::int64_t");
      d.set("value", int_text(*i));
    } else if (auto* x = std::get_if<double>(&c.value)) {
      d.set("cpp_type", "double");
      d.set("value", double_text(*x));
    } else {
      d.set("cpp_type", "bool");
      d.set("value", std::get<bool>(c.value) ? "true" : "false");
    }
    consts.push_back(d);
  }
  ctx.set("has_consts", !cm.consts.empty());
  ctx.set("consts", consts);

  mu::data meshes{mu::data::type::list};
  for (const auto& m : cm.meshes) {
    mu::data d;
    d.set("name", identifier(m->name));
    std::string text = "[", axes_text = "{";
    for (std::size_t i = 0; i < m->axis_names.size(); ++i) {
      text += (i ? ", " : "") + m->axis_names[i] + ": " + std::to_string(m->axis_sizes[i]);
      axes_text += (i ? ", {\"" : "{\"") + m->axis_names[i] + "\", " + std::to_string(m->axis_sizes[i]) + "}";
    }
    text += "]";
    if (m->first_device != 0)
      text += " devices " + std::to_string(m->first_device) + ".." + std::to_string(m->first_device + m->device_count());
    d.set("text", text);
    d.set("axes", "std::vector<shard::MeshAxis>" + axes_text + "}");
    d.set("first_device", std::to_string(m->first_device));
    meshes.push_back(d);
  }
  ctx.set("meshes", meshes);

  check_namespace_names();

  mu::data functions{mu::data::type::list};
  mu::data parameterless{mu::data::type::list};
  for (const Function& f : module_.functions) {
    if (f.param_types.empty()) {
      mu::data e;
      e.set("name", identifier(f.name));
      e.set("shard_name", f.name);  // what users look functions up by (run_driver, --func)
      e.set("unpack", results_as_vector(f, identifier(f.name) + "(rt)"));
      parameterless.push_back(e);
    }
    mu::data d;
    const std::string fname = identifier(f.name);
    const std::string mesh = identifier(f.mesh->name);
    d.set("name", fname);
    d.set("shard_name", f.name);
    d.set("kind", f.manual ? (f.unchecked ? "shard_map (unchecked)" : "shard_map") : "func");
    d.set("mesh", mesh);
    std::string comment = "(";
    std::string entry = "shard::Runtime& rt";
    std::string device_sig = "std::tuple<";
    std::string device_args = "dev";
    mu::data params{mu::data::type::list};
    const std::vector<std::string> args = entry_arguments(f);
    for (std::size_t i = 0; i < f.param_types.size(); ++i) {
      const check::Type& t = f.param_types[i];
      if (t.kind != check::TypeKind::array) {
        diags_
            .error(param_range(f, i), "code generation does not support a " + check::to_string(t) + " parameter: '" +
                                          f.param_names[i] + "' of " + f.name + " (the C++ entry point takes arrays)")
            .note("pass the seed as an integer array and call key(seed) in the function");
        continue;
      }
      mu::data pd;
      const std::string& arg = args[i];
      pd.set("function", fname);
      pd.set("shard_function", f.name);
      pd.set("mesh", mesh);
      pd.set("index", std::to_string(i));
      pd.set("param_name", f.param_names[i]);
      pd.set("arg", arg);
      pd.set("type_text", check::to_string(t));
      pd.set("dtype", dtype_text(t.dtype));
      pd.set("shape", shape_text(t.shape()));
      std::vector<AxisList> s;
      for (const check::Dim& dim : t.dims) s.push_back(dim.axes);
      pd.set("spec", spec(f, s));
      params.push_back(pd);
      comment += (i ? ", " : "") + f.param_names[i] + ": " + check::to_string(t);
      entry += ", const shard::Array& " + arg;
      device_args += ", " + arg + ".block(dev.id())";
    }
    comment += ") -> ";
    std::string results_text;
    mu::data results{mu::data::type::list};
    std::string return_value;
    for (std::size_t i = 0; i < f.result_types.size(); ++i) {
      const check::Type& t = f.result_types[i];
      if (t.kind != check::TypeKind::array) {
        diags_
            .error(result_range(f, i), "code generation does not support a " + check::to_string(t) + " result: result " +
                                           std::to_string(i) + " of " + f.name + " (the C++ entry point returns arrays)")
            .note("return the arrays drawn from the key, or its seed");
        continue;
      }
      mu::data rd;
      rd.set("function", fname);
      rd.set("mesh", mesh);
      rd.set("index", std::to_string(i));
      rd.set("type_text", check::to_string(t));
      rd.set("dtype", dtype_text(t.dtype));
      rd.set("shape", shape_text(t.shape()));
      std::vector<AxisList> s;
      for (const check::Dim& dim : t.dims) s.push_back(dim.axes);
      rd.set("spec", spec(f, s));
      results.push_back(rd);
      results_text += (i ? ", " : "") + check::to_string(t);
      device_sig += (i ? ", Tensor" : "Tensor");
      return_value += (i ? ", std::move(result" : "std::move(result") + std::to_string(i) + ")";
    }
    // As the .shard file writes it, with the mesh (how many devices a Runtime needs).
    comment += (f.result_types.size() == 1 ? results_text : "(" + results_text + ")") + " on " + f.mesh->name;
    device_sig += "> " + fname + "_device([[maybe_unused]] shard::Device& dev";  // unused without collectives
    for (std::size_t i = 0; i < f.param_types.size(); ++i) device_sig += ", const Tensor& in" + std::to_string(i);
    device_sig += ")";
    bool several = f.result_types.size() != 1;
    d.set("return_type", several ? "std::tuple<" + [&] {
      std::string s;
      for (std::size_t i = 0; i < f.result_types.size(); ++i) s += (i ? ", shard::Array" : "shard::Array");
      return s;
    }() + ">" : std::string("shard::Array"));
    d.set("return_value", several ? "{" + return_value + "}" : "result0");
    std::string type_list = "{", call_args = "rt";
    for (std::size_t i = 0; i < f.param_types.size(); ++i) {
      type_list += (i ? ", " : "") + fname + "_in" + std::to_string(i) + "_type()";
      call_args += ", args[" + std::to_string(i) + "]";
    }
    d.set("param_type_list", type_list + "}");
    d.set("param_count", std::to_string(f.param_types.size()));
    d.set("param_count_text",
          std::to_string(f.param_types.size()) + (f.param_types.size() == 1 ? " argument" : " arguments"));
    d.set("generic_call", results_as_vector(f, fname + "(" + call_args + ")"));
    d.set("signature_comment", comment);
    d.set("entry_params", entry);
    d.set("device_signature", device_sig);
    d.set("device_args", device_args);
    d.set("params", params);
    d.set("results", results);
    mu::data lines{mu::data::type::list};
    const Body body = function_body(f);
    const std::size_t body_lines = body.statement_lines;
    if (body_lines > kMaxBodyLines) {
      // Cut into parts, a body builds in time linear in its length (g++ -O2: 21,000 lines in
      // 29 s and 770 MB); a body far past any seed's is refused rather than left to look like
      // a hang of the C++ build.
      diags_.error(result_range(f, 0), "'" + f.name + "' would be " + std::to_string(body_lines) +
                                          " lines of C++; code generation stops at " +
                                          std::to_string(kMaxBodyLines))
          .note("for loops are unrolled and fn calls inlined: use fewer iterations, or split the work over "
                "several functions");
    }
    for (const std::string& line : body.lines) lines.push_back(line);
    d.set("lines", lines);
    mu::data parts{mu::data::type::list};
    for (const Part& part : body.parts) {
      mu::data pd;
      pd.set("signature", part.signature);
      pd.set("number", part.number);
      pd.set("count", std::to_string(body.parts.size()));
      mu::data part_lines{mu::data::type::list};
      for (const std::string& line : part.lines) part_lines.push_back(line);
      pd.set("lines", part_lines);
      parts.push_back(pd);
    }
    d.set("parts", parts);
    functions.push_back(d);
  }
  ctx.set("functions", functions);
  ctx.set("parameterless", parameterless);

  auto render = [&](const std::string& text, const char* what) {
    mu::mustache tmpl(standalone_tags_joined(text));
    SHARDC_ASSERT(tmpl.is_valid(), std::string("template ") + what + ": " + tmpl.error_message());
    tmpl.set_custom_escape([](const std::string& s) { return s; });
    std::string r = tmpl.render(ctx);
    SHARDC_ASSERT(tmpl.is_valid(), std::string("template ") + what + ": " + tmpl.error_message());
    // At most one blank line in a row (an empty section whose tag line was kept leaves one).
    std::string tidy;
    for (char c : r)
      if (c != '\n' || !tidy.ends_with("\n\n")) tidy += c;
    return wrap_long_lines(tidy);
  };
  GeneratedFiles files{render(templates::module_header(), "module.shard.h"),
                       render(templates::module_source(), "module.shard.cpp")};
  const std::string identity = "code_" + code_hash(files.header + '\0' + files.source);
  for (std::string* text : {&files.header, &files.source})
    for (std::size_t at = text->find(kCodeIdentityPlaceholder); at != std::string::npos;
         at = text->find(kCodeIdentityPlaceholder, at + identity.size()))
      text->replace(at, kCodeIdentityPlaceholder.size(), identity);
  return files;
}

}  // namespace shardc::codegen
