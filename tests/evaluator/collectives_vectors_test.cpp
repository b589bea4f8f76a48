// Every case of tests/vectors/collectives.json (the written source of collective semantics
// that the runtime's tests read too; format in tests/vectors/README.md), run through the
// evaluator's groups, block placement and collectives.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "evaluator/blocks.h"
#include "evaluator/collectives.h"
#include "evaluator/eval_error.h"
#include "evaluator/format_numpy.h"
#include "evaluator/ops_shape.h"

namespace shardc::eval {
namespace {

using nlohmann::json;

const json& all_cases() {
  static const json cases = [] {
    std::ifstream in(std::string(SHARD_TEST_VECTORS_DIR) + "/collectives.json");
    json doc = json::parse(in);
    if (doc.at("format") != "shardc-collective-vectors/1") throw std::runtime_error("unknown vectors format");
    return doc.at("cases");
  }();
  return cases;
}

DType dtype_named(const std::string& name) {
  for (DType d : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean})
    if (shard::dtype_name(d) == name) return d;
  throw std::runtime_error("unknown dtype " + name);
}

HostTensor tensor(const json& t, DType fallback) {
  DType dt = t.contains("dtype") ? dtype_named(t.at("dtype")) : fallback;
  Shape shape = t.at("shape").get<Shape>();
  const json& data = t.at("data");
  if (shard::is_floating(dt)) return HostTensor::from_floats(dt, shape, data.get<std::vector<double>>());
  return HostTensor::from_ints(dt, shape, data.get<std::vector<std::int64_t>>());
}

Mesh mesh_of(const json& c) {
  Mesh m;
  m.name = "vectors";
  for (const json& axis : c.at("mesh").at("axes")) {
    m.axis_names.push_back(axis.at(0));
    m.axis_sizes.push_back(axis.at(1));
  }
  return m;
}

// Axis names to mesh axis indices (in the compiler the checker does this; an unknown name is
// its error, worded as the runtime words it).
AxisList axes_of(const Mesh& m, const json& names) {
  AxisList axes;
  for (const json& n : names) {
    auto a = m.find_axis(n.get<std::string>());
    if (!a) throw EvalError("mesh has no axis named '" + n.get<std::string>() + "'");
    axes.push_back(*a);
  }
  return axes;
}

std::string axes_text(const Mesh& m, const AxisList& axes) { return check::format_axes(m, axes); }

Spec spec_of(const Mesh& m, const json& spec) {
  Spec s;
  for (const json& dim : spec) s.push_back(axes_of(m, dim));
  return s;
}

// Operand `name` of every device, from a global array and its spec or per-device tensors.
std::vector<HostTensor> operand(const Mesh& m, const json& c, const std::string& name, DType dt) {
  const json& in = c.at("input");
  std::vector<HostTensor> out;
  if (in.contains("global")) {
    HostTensor g = tensor(in.at("global"), dt);
    for (std::int64_t d = 0; d < m.device_count(); ++d) out.push_back(block_of(m, g, spec_of(m, in.at("spec")), d));
  } else {
    for (const json& dev : in.at("per_device")) out.push_back(tensor(dev.at(name), dt));
  }
  return out;
}

// The op on every group; results by device id.
std::vector<HostTensor> run_case(const Mesh& m, const json& c) {
  const json& op = c.at("op");
  std::string name = op.at("name");
  DType dt = dtype_named(c.at("dtype"));
  AxisList axes = axes_of(m, op.at("axes"));
  std::vector<HostTensor> x;
  if (!c.at("input").contains("none")) x = operand(m, c, "x", dt);
  auto tiled = op.value("tiled", false);
  std::vector<HostTensor> out(static_cast<std::size_t>(m.device_count()));
  for (const auto& members : groups(m, axes)) {
    auto from = [&](const std::vector<HostTensor>& per_device) {
      Blocks b;
      for (auto d : members) b.push_back(per_device.at(d));
      return b;
    };
    Blocks r;
    if (name == "axis_index" || name == "axis_size") {
      for (std::size_t j = 0; j < members.size(); ++j)
        r.push_back(HostTensor::from_ints(DType::i32, {}, {static_cast<std::int64_t>(name == "axis_index" ? j : members.size())}));
    } else if (name == "psum" || name == "pmean" || name == "pmax" || name == "pmin") {
      ReduceOp k = name == "psum" ? ReduceOp::sum : name == "pmean" ? ReduceOp::mean : name == "pmax" ? ReduceOp::max : ReduceOp::min;
      DType result = name == "pmean" ? (shard::is_floating(dt) ? dt : DType::f32)
                     : name == "psum" && dt == DType::boolean ? DType::i32 : dt;
      r = all_reduce(k, from(x), result);
    } else if (name == "all_gather" || name == "all_gather_invariant") {
      r = all_gather(from(x), op.value("axis", 0), tiled);
    } else if (name == "psum_scatter") {
      r = psum_scatter(from(x), op.value("scatter_dimension", 0), tiled, dt == DType::boolean ? DType::i32 : dt);
    } else if (name == "all_to_all") {
      r = all_to_all(from(x), op.at("split_axis"), op.at("concat_axis"), tiled, axes_text(m, axes));
    } else if (name == "ppermute") {
      std::vector<std::pair<std::int64_t, std::int64_t>> perm;
      if (op.contains("shift")) perm = shift_permutation(static_cast<std::int64_t>(members.size()), op.at("shift"));
      else
        for (const json& p : op.at("perm")) perm.emplace_back(p.at(0), p.at(1));
      r = ppermute(from(x), perm);
    } else if (name == "ragged_all_to_all") {
      auto arg = [&](const char* n) { return from(operand(m, c, n, dt)); };
      r = ragged_all_to_all(from(x), arg("output"), arg("input_offsets"), arg("send_sizes"), arg("output_offsets"),
                            arg("recv_sizes"));
    } else {
      throw std::runtime_error("vectors name an op the evaluator has no collective for: " + name);
    }
    for (std::size_t j = 0; j < members.size(); ++j) out[members[j]] = r.at(j);
  }
  if (op.contains("then_reshape"))
    for (HostTensor& t : out) t = reshape(t, op.at("then_reshape").get<Shape>());
  return out;
}

void expect_same(const HostTensor& got, const HostTensor& want, const std::string& what) {
  EXPECT_TRUE(identical(got, want)) << what << ": got " << shard::dtype_name(got.dtype) << shape_text(got.shape) << " "
                                    << format_numpy(got) << ", expected " << shard::dtype_name(want.dtype)
                                    << shape_text(want.shape) << " " << format_numpy(want);
}

class Vector : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Vector, MatchesTheEvaluator) {
  const json& c = all_cases().at(GetParam());
  SCOPED_TRACE(c.at("name").get<std::string>() + " (" + c.at("source").get<std::string>() + ")");
  Mesh m = mesh_of(c);
  DType dt = dtype_named(c.at("dtype"));
  if (c.contains("error")) {
    try {
      run_case(m, c);
      ADD_FAILURE() << "expected an error containing: " << c.at("error").at("contains");
    } catch (const EvalError& e) {
      EXPECT_NE(std::string(e.what()).find(c.at("error").at("contains").get<std::string>()), std::string::npos)
          << "the message was: " << e.what();
    }
    return;
  }
  std::vector<HostTensor> got = run_case(m, c);
  const json& want = c.at("expected");
  if (want.contains("per_device")) {
    ASSERT_EQ(want.at("per_device").size(), got.size());
    for (std::size_t d = 0; d < got.size(); ++d)
      expect_same(got[d], tensor(want.at("per_device").at(d), dt), "device " + std::to_string(d));
  } else if (want.contains("same_on_every_device")) {
    HostTensor w = tensor(want.at("same_on_every_device"), dt);
    for (std::size_t d = 0; d < got.size(); ++d) expect_same(got[d], w, "device " + std::to_string(d));
  } else {
    HostTensor w = tensor(want.at("global"), dt);
    HostTensor g = assemble(m, got.at(0).dtype, w.shape, spec_of(m, want.at("spec")), got, true, "the assembled result");
    expect_same(g, w, "global result");
  }
}

std::vector<std::size_t> case_indices() {
  std::vector<std::size_t> v(all_cases().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string n = all_cases().at(info.param).at("name");
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(CollectiveVectors, Vector, ::testing::ValuesIn(case_indices()), case_name);

TEST(CollectiveVectors, FileHasCasesOfEveryCollective) {
  std::set<std::string> names;
  for (const json& c : all_cases()) names.insert(c.at("op").at("name"));
  for (const char* op : {"psum", "pmean", "pmax", "pmin", "all_gather", "all_gather_invariant", "psum_scatter",
                         "ppermute", "all_to_all", "ragged_all_to_all", "axis_index"})
    EXPECT_TRUE(names.count(op)) << op;
}

}  // namespace
}  // namespace shardc::eval
