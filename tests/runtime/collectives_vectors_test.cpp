// Every case of tests/vectors/collectives.json, in each calling form of the collectives.
#include <gtest/gtest.h>

#include <set>

#include "collective_vectors.h"

namespace shard::test {
namespace {

struct CaseParam {
  json c;
  Form form;
};

std::string form_name(Form f) { return f == Form::value ? "value" : f == Form::into ? "into" : "async"; }

void PrintTo(const CaseParam& p, std::ostream* os) { *os << p.c["name"].get<std::string>() << " " << form_name(p.form); }

class CollectiveVectors : public ::testing::TestWithParam<CaseParam> {};

TEST_P(CollectiveVectors, MatchesExpected) {
  const json& c = GetParam().c;
  const Form form = GetParam().form;
  SCOPED_TRACE(c["name"].get<std::string>() + " (" + c.value("source", "") + ")");
  const Mesh mesh = mesh_from_json(c["mesh"]);
  const DType dtype = dtype_from_name(c["dtype"]);
  static Runtime rt{8};
  const int n = mesh.size();

  // Per-device arguments.
  std::vector<std::map<std::string, Tensor>> args(n);
  const json& input = c["input"];
  if (input.contains("global")) {
    const auto blocks = blocks_of(rt, mesh, tensor_from_json(input["global"], dtype), input["spec"]);
    for (int d = 0; d < n; ++d) args[d].emplace("x", blocks[d]);
  } else if (input.contains("per_device")) {
    for (int d = 0; d < n; ++d)
      for (const auto& [key, value] : input["per_device"][d].items()) args[d].emplace(key, tensor_from_json(value, dtype));
  }

  std::vector<Tensor> results(n);
  if (c.contains("error")) {
    try {
      rt.run(mesh, [&](Device& dev) { apply_op(dev, c["op"], args[dev.id()], form); });
      FAIL() << "expected an error";
    } catch (const DeviceError& e) {
      EXPECT_NE(e.message().find(c["error"]["contains"].get<std::string>()), std::string::npos) << e.message();
    }
    return;
  }
  rt.run(mesh, [&](Device& dev) { results[dev.id()] = apply_op(dev, c["op"], args[dev.id()], form); });

  const json& expected = c["expected"];
  std::vector<Tensor> want(n);
  if (expected.contains("global")) {
    // The result blocks assemble into the expected global array under the output spec.
    want = blocks_of(rt, mesh, tensor_from_json(expected["global"], dtype), expected["spec"]);
  } else if (expected.contains("per_device")) {
    for (int d = 0; d < n; ++d) want[d] = tensor_from_json(expected["per_device"][d], dtype);
  } else {
    for (int d = 0; d < n; ++d) want[d] = tensor_from_json(expected["same_on_every_device"], dtype);
  }
  for (int d = 0; d < n; ++d)
    EXPECT_TRUE(results[d].same_bytes(want[d])) << "device " << d << ": got " << results[d].type_string()
                                                << ", want " << want[d].type_string();
}

std::vector<CaseParam> all_cases() {
  std::vector<CaseParam> out;
  const json doc = load_collective_vectors();
  for (const auto& c : doc["cases"])
    for (Form f : {Form::value, Form::into, Form::async}) out.push_back({c, f});
  return out;
}

INSTANTIATE_TEST_SUITE_P(File, CollectiveVectors, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<CaseParam>& info) {
                           std::string name = info.param.c["name"].get<std::string>() + "_" + form_name(info.param.form);
                           for (char& ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(CollectiveVectorsFile, HasTheCasesIssue3Names) {
  const json doc = load_collective_vectors();
  EXPECT_EQ(doc["format"], "shardc-collective-vectors/1");
  std::set<std::string> names;
  for (const auto& c : doc["cases"]) names.insert(c["name"]);
  for (const char* required : {"seed002/ring_shift_tp_dp_forward", "seed002/ring_shift_tp_dp_backward",
                               "jax_rules/psum_scatter_dim1_tiled", "jax_rules/all_to_all_1_0"})
    EXPECT_TRUE(names.count(required)) << required;
}

}  // namespace
}  // namespace shard::test
