// ragged_all_to_all in both forms against a naive reference: random row counts between every
// pair of ranks (zero included), gaps in the receivers' outputs that must keep their values,
// groups over one axis of a 2-D mesh, and the asynchronous form with compute and other
// collectives in between.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "naive_collectives.h"

namespace shard::test {
namespace {

// Who sends how many rows where, for one group of n ranks: rows[k][r] go from rank k to rank r,
// landing in r's output after the rows of lower-ranked senders and a gap of `gap[k][r]` rows.
struct Traffic {
  int n = 0;
  std::vector<std::vector<std::int64_t>> rows, input_offset, output_offset;
  std::vector<std::int64_t> operand_rows, output_rows;
};

Traffic random_traffic(std::mt19937& rng, int n) {
  Traffic t;
  t.n = n;
  auto square = [&] { return std::vector<std::vector<std::int64_t>>(n, std::vector<std::int64_t>(n, 0)); };
  t.rows = square();
  t.input_offset = square();
  t.output_offset = square();
  t.operand_rows.assign(n, 0);
  t.output_rows.assign(n, 0);
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < n; ++r) t.rows[k][r] = rng() % 4;
  for (int k = 0; k < n; ++k) {
    std::int64_t at = rng() % 2;  // rows of the operand nobody sends
    for (int r = 0; r < n; ++r) {
      t.input_offset[k][r] = at;
      at += t.rows[k][r];
    }
    t.operand_rows[k] = at + rng() % 2;
  }
  for (int r = 0; r < n; ++r) {
    std::int64_t at = 0;
    for (int k = 0; k < n; ++k) {
      at += rng() % 2;  // a gap: rows of `output` nobody writes
      t.output_offset[k][r] = at;
      at += t.rows[k][r];
    }
    t.output_rows[r] = at + rng() % 2;
  }
  return t;
}

Tensor sizes_tensor(DType t, const std::vector<std::int64_t>& v) {
  Tensor x(t, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == DType::i32) x.as<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
    else x.as<std::int64_t>()[i] = v[i];
  }
  return x;
}

Tensor filled(DType t, const Shape& shape, std::mt19937& rng) {
  Tensor x(t, shape);
  for (std::size_t i = 0; i < x.nbytes(); ++i) x.bytes()[i] = static_cast<std::byte>(rng());
  return x;
}

// Rank r's result: its `output`, with each sender's rows copied in.
Tensor naive_ragged(const Traffic& t, int r, const std::vector<const Tensor*>& operands, const Tensor& output) {
  Tensor out = output;
  const std::size_t row_bytes = output.numel() == 0 ? 0 : output.nbytes() / output.dim(0);
  for (int k = 0; k < t.n; ++k)
    for (std::int64_t i = 0; i < t.rows[k][r]; ++i)
      std::memcpy(out.bytes() + (t.output_offset[k][r] + i) * row_bytes,
                  operands[k]->bytes() + (t.input_offset[k][r] + i) * row_bytes, row_bytes);
  return out;
}

TEST(RaggedAllToAll, BothFormsMatchNaiveReference) {
  Runtime rt{8};
  std::mt19937 rng(11);
  const Mesh mesh({{"x", 4}, {"y", 2}});
  const NaiveMesh naive{{"x", "y"}, {4, 2}};
  static const DType dtypes[] = {DType::f32, DType::bf16, DType::i64, DType::boolean};
  static const std::vector<std::vector<std::string>> groups = {{"x"}, {"y"}, {"x", "y"}, {"y", "x"}, {}};
  for (int trial = 0; trial < 60; ++trial) {
    const auto& axes = groups[trial % groups.size()];
    const int n = naive.group_size(axes);
    const DType dtype = dtypes[rng() % 4];
    const DType index_type = rng() % 2 ? DType::i32 : DType::i64;
    const std::int64_t width = 1 + rng() % 5;
    const bool async = trial % 2;
    SCOPED_TRACE("over " + Axes(axes).to_string() + " " + std::string(dtype_name(dtype)) + (async ? " async" : ""));
    // One traffic pattern per group (indexed by the group's rank-0 device).
    std::vector<Traffic> traffic(8);
    for (int d = 0; d < 8; ++d)
      if (naive.rank(d, axes) == 0) traffic[d] = random_traffic(rng, n);
    auto traffic_of = [&](int d) -> const Traffic& { return traffic[naive.peer(d, axes, 0)]; };
    std::vector<Tensor> operands(8), outputs(8), results(8), summed(8);
    for (int d = 0; d < 8; ++d) {
      const int r = naive.rank(d, axes);
      operands[d] = filled(dtype, {traffic_of(d).operand_rows[r], width}, rng);
      outputs[d] = filled(dtype, {traffic_of(d).output_rows[r], width}, rng);
    }
    rt.run(mesh, [&](Device& dev) {
      const int d = dev.id();
      const Traffic& t = traffic_of(d);
      const int r = naive.rank(d, axes);
      std::vector<std::int64_t> in_off(n), send(n), out_off(n), recv(n);
      for (int j = 0; j < n; ++j) {
        in_off[j] = t.input_offset[r][j];
        send[j] = t.rows[r][j];
        out_off[j] = t.output_offset[r][j];
        recv[j] = t.rows[j][r];
      }
      if (!async) {
        results[d] = ragged_all_to_all(dev, operands[d], outputs[d], sizes_tensor(index_type, in_off),
                                       sizes_tensor(index_type, send), sizes_tensor(index_type, out_off),
                                       sizes_tensor(index_type, recv), Axes(axes));
        return;
      }
      Pending p;
      {
        // Everything but the operand may go away once the collective has started.
        const Tensor output_copy = outputs[d];
        p = start_ragged_all_to_all(dev, operands[d], output_copy, sizes_tensor(index_type, in_off),
                                    sizes_tensor(index_type, send), sizes_tensor(index_type, out_off),
                                    sizes_tensor(index_type, recv), Axes(axes));
      }
      summed[d] = psum(dev, Tensor(DType::f32, {3}), {"y"});  // another collective while it is in flight
      results[d] = p.wait();
    });
    for (int d = 0; d < 8; ++d) {
      std::vector<const Tensor*> group;
      for (int k = 0; k < n; ++k) group.push_back(&operands[naive.peer(d, axes, k)]);
      const Tensor want = naive_ragged(traffic_of(d), naive.rank(d, axes), group, outputs[d]);
      ASSERT_TRUE(results[d].same_bytes(want)) << "device " << d;
    }
  }
}

// A started ragged_all_to_all whose checks fail on the receiver reports the error at wait().
TEST(RaggedAllToAll, AsyncFormReportsMismatchedSizes) {
  Runtime rt{2};
  const Mesh mesh({{"i", 2}});
  auto sizes = [](std::int32_t a, std::int32_t b) { return sizes_tensor(DType::i32, {a, b}); };
  EXPECT_THROW(rt.run(mesh,
                      [&](Device& dev) {
                        const Tensor operand(DType::f32, {2, 3}), output(DType::f32, {2, 3});
                        // Device 0 expects 2 rows from device 1, which sends 1.
                        const Tensor recv = dev.id() == 0 ? sizes(1, 2) : sizes(1, 1);
                        Pending p = start_ragged_all_to_all(dev, operand, output, sizes(0, 1), sizes(1, 1),
                                                            sizes(0, 1), recv, "i");
                        p.wait();
                      }),
               DeviceError);
}

// Offsets and sizes are values: ones whose sum overflows i64 are out of range like any other,
// on the sender's check (input rows) and on the receiver's (output rows), never a wild copy.
TEST(RaggedAllToAll, OffsetsWhoseSumOverflowsAreOutOfRange) {
  Runtime rt{2};
  const Mesh mesh({{"i", 2}});
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto sizes = [](std::int64_t a, std::int64_t b) { return sizes_tensor(DType::i64, {a, b}); };
  auto message_of = [&](const Tensor& in_off, const Tensor& send, const Tensor& out_off) {
    try {
      rt.run(mesh, [&](Device& dev) {
        const Tensor operand(DType::f32, {2, 3}), output(DType::f32, {2, 3});
        Tensor result = ragged_all_to_all(dev, operand, output, in_off, send, out_off, send, "i");
      });
    } catch (const DeviceError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(message_of(sizes(1, 1), sizes(kMax, kMax), sizes(0, 0)),
            "ragged_all_to_all: input rows [1, 1 + 9223372036854775807) for rank 0 are outside the operand's 2 rows");
  // A negative size is named as such, not as a range outside the operand.
  EXPECT_EQ(message_of(sizes(0, 1), sizes(1, -1), sizes(0, 1)),
            "ragged_all_to_all: send_sizes[1] is -1; sizes must be >= 0");
  std::string out_of_range = message_of(sizes(0, 0), sizes(1, 1), sizes(kMax, kMax));
  EXPECT_NE(out_of_range.find("to rows [9223372036854775807, 9223372036854775807 + 1) of an output with 2 rows "
                              "are out of bounds"),
            std::string::npos)
      << out_of_range;
}

}  // namespace
}  // namespace shard::test
