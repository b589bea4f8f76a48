// Reading tests/vectors/collectives.json (format in tests/vectors/README.md) and applying one
// case's op through the runtime's collectives, in each of their calling forms.
#pragma once

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shard/kernels/float16.h"
#include "shard/shard.h"

namespace shard::test {

using nlohmann::json;

inline json load_collective_vectors() {
  std::ifstream in(std::string(SHARD_TEST_VECTORS_DIR) + "/collectives.json");
  if (!in) throw std::runtime_error("cannot open " + std::string(SHARD_TEST_VECTORS_DIR) + "/collectives.json");
  return json::parse(in);
}

inline DType dtype_from_name(const std::string& name) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean})
    if (dtype_name(t) == name) return t;
  throw std::runtime_error("unknown dtype " + name);
}

inline Tensor tensor_from_json(const json& j, DType fallback) {
  const DType dtype = j.contains("dtype") ? dtype_from_name(j["dtype"]) : fallback;
  Tensor t(dtype, j["shape"].get<Shape>());
  const json& data = j["data"];
  if (static_cast<std::int64_t>(data.size()) != t.numel()) throw std::runtime_error("data/shape mismatch: " + j.dump());
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const json& v = data[i];
    switch (dtype) {
      case DType::f32: t.as<float>()[i] = v.get<float>(); break;
      case DType::bf16: t.as<std::uint16_t>()[i] = kernels::f32_to_bf16(v.get<float>()); break;
      case DType::f16: t.as<std::uint16_t>()[i] = kernels::f32_to_f16(v.get<float>()); break;
      case DType::i32: t.as<std::int32_t>()[i] = v.get<std::int32_t>(); break;
      case DType::i64: t.as<std::int64_t>()[i] = v.get<std::int64_t>(); break;
      case DType::boolean: t.as<std::uint8_t>()[i] = v.is_boolean() ? v.get<bool>() : v.get<int>() != 0; break;
    }
  }
  return t;
}

inline Mesh mesh_from_json(const json& j) {
  std::vector<MeshAxis> axes;
  for (const auto& a : j["axes"]) axes.push_back({a[0].get<std::string>(), a[1].get<int>()});
  return Mesh(std::move(axes), j.value("first_device", 0));
}

inline std::vector<DimAxes> spec_from_json(const json& j) { return j.get<std::vector<DimAxes>>(); }

inline std::vector<std::string> axes_from_json(const json& op) { return op["axes"].get<std::vector<std::string>>(); }

// The blocks of a global tensor under a spec, by device id.
inline std::vector<Tensor> blocks_of(Runtime& rt, const Mesh& mesh, const Tensor& global, const json& spec) {
  const ArrayType type(global.dtype(), global.shape(), Sharding(mesh, spec_from_json(spec)));
  const Array a = Array::from_host(rt, type, global.data());
  std::vector<Tensor> blocks;
  for (int d = mesh.first_device(); d < mesh.end_device(); ++d) blocks.push_back(a.block(d));
  return blocks;
}

// How a test calls a collective: returning its result, writing into a given output, or
// start_X(...).wait().
enum class Form { value, into, async };

inline Permutation perm_of(Device& dev, const json& op) {
  if (op.contains("shift")) {
    const int n = dev.axis_size(axes_from_json(op)), k = op["shift"].get<int>();
    Permutation p;
    for (int j = 0; j < n; ++j) p.push_back({j, ((j + k) % n + n) % n});
    return p;
  }
  return op["perm"].get<Permutation>();
}

// Runs the op on one device. For Form::into the output is first computed by value to learn
// its type, then recomputed into a fresh tensor of that type filled with a poison pattern,
// so a collective that leaves part of it unwritten is caught.
inline Tensor apply_op(Device& dev, const json& op, const std::map<std::string, Tensor>& args, Form form) {
  const std::string name = op["name"];
  const std::vector<std::string> axes_storage = axes_from_json(op);
  const Axes axes(axes_storage);
  auto arg = [&](const char* key) -> const Tensor& { return args.at(key); };
  auto result = [&]() -> Tensor {
    if (name == "axis_index") {
      Tensor t(DType::i32, {});
      t.as<std::int32_t>()[0] = axis_index(dev, axes);
      return t;
    }
    if (name == "axis_size") {
      Tensor t(DType::i32, {});
      t.as<std::int32_t>()[0] = axis_size(dev, axes);
      return t;
    }
    const Tensor& x = arg("x");
    const int axis = op.value("axis", 0);
    const bool tiled = op.value("tiled", false);
    const int dim = op.value("scatter_dimension", 0);
    const int split = op.value("split_axis", 0), concat = op.value("concat_axis", 0);
    if (form == Form::async) {
      Pending p;
      if (name == "psum") p = start_psum(dev, x, axes);
      else if (name == "pmean") p = start_pmean(dev, x, axes);
      else if (name == "pmax") p = start_pmax(dev, x, axes);
      else if (name == "pmin") p = start_pmin(dev, x, axes);
      else if (name == "all_gather" || name == "all_gather_invariant") p = start_all_gather(dev, x, axes, axis, tiled);
      else if (name == "psum_scatter") p = start_psum_scatter(dev, x, axes, dim, tiled);
      else if (name == "ppermute") p = start_ppermute(dev, x, axes, perm_of(dev, op));
      else if (name == "all_to_all") p = start_all_to_all(dev, x, axes, split, concat, tiled);
      if (p.valid()) return p.wait();
    }
    if (name == "psum") return psum(dev, x, axes);
    if (name == "pmean") return pmean(dev, x, axes);
    if (name == "pmax") return pmax(dev, x, axes);
    if (name == "pmin") return pmin(dev, x, axes);
    if (name == "all_gather") return all_gather(dev, x, axes, axis, tiled);
    if (name == "all_gather_invariant") return all_gather_invariant(dev, x, axes, axis, tiled);
    if (name == "psum_scatter") return psum_scatter(dev, x, axes, dim, tiled);
    if (name == "ppermute") return ppermute(dev, x, axes, perm_of(dev, op));
    if (name == "all_to_all") return all_to_all(dev, x, axes, split, concat, tiled);
    if (name == "ragged_all_to_all")
      return ragged_all_to_all(dev, x, arg("output"), arg("input_offsets"), arg("send_sizes"), arg("output_offsets"),
                               arg("recv_sizes"), axes);
    throw std::runtime_error("unknown op " + name);
  };
  Tensor r = result();
  if (form == Form::into) {
    const Tensor& x = args.count("x") ? arg("x") : r;
    Tensor out = Tensor::uninitialized(r.dtype(), r.shape());
    std::memset(out.data(), 0xA5, out.nbytes());
    const int axis = op.value("axis", 0);
    const bool tiled = op.value("tiled", false);
    bool done = true;
    if (name == "psum") psum(dev, x, axes, out);
    else if (name == "pmax") pmax(dev, x, axes, out);
    else if (name == "pmin") pmin(dev, x, axes, out);
    else if (name == "all_gather") all_gather(dev, x, axes, axis, tiled, out);
    else if (name == "psum_scatter") psum_scatter(dev, x, axes, op.value("scatter_dimension", 0), tiled, out);
    else if (name == "ppermute") ppermute(dev, x, axes, perm_of(dev, op), out);
    else if (name == "all_to_all") all_to_all(dev, x, axes, op.value("split_axis", 0), op.value("concat_axis", 0), tiled, out);
    else done = false;
    if (done) r = std::move(out);
  }
  if (op.contains("then_reshape")) r = std::move(r).reshaped(op["then_reshape"].get<Shape>());
  return r;
}

}  // namespace shard::test
