// The checker over whole programs: traces (inlining, unrolling), static evaluation,
// -D overrides, manual-mode rules and the printers.
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/check/check.h"
#include "frontend/check/checked_module.h"
#include "frontend/parse.h"

namespace shardc::check {
namespace {

struct Checked {
  std::unique_ptr<Diagnostics> diags = std::make_unique<Diagnostics>();
  std::unique_ptr<ast::Module> module;
  std::shared_ptr<const CheckedModule> checked;
  std::string errors() const { return diags->render(); }
};

Checked run(std::string_view text, const Defines& defines = {}) {
  Checked c;
  c.module = parse(text, "test.shard", *c.diags);
  if (c.module) c.checked = check(*c.module, defines, *c.diags).module;
  return c;
}

std::string types_of(const Checked& c) {
  std::ostringstream o;
  emit_types(*c.checked, o);
  return o.str();
}

int count_ops(const CheckedFunction& f, std::string_view name) {
  int n = 0;
  for (const auto& op : f.ops) n += op.name == name;
  return n;
}

const char* kCollectiveMatmul = R"(
mesh g = [X: 2, Y: 4];
shard_map collective_matmul(lhs: f32[1024@X, 2048@Y], rhs: f32[2048, 8192@Y]) -> f32[1024@X, 8192@Y] on g {
  let n = axis_size(Y);
  let i0 = axis_index(Y);
  let chunk = 2048 // n;
  var acc = pvary(zeros(f32[512, 2048]), (X, Y));
  var l = lhs;
  for i in 0..n {
    acc += l @ dynamic_slice(rhs, ((i0 + i) % n) * chunk, chunk, axis=0);
    if i < n - 1 { l = ppermute(l, Y, shift=-1); }
  }
  return acc;
}
)";

TEST(Checker, CollectiveMatmulUnrollsAndKeepsVaryingTypes) {
  auto c = run(kCollectiveMatmul);
  ASSERT_TRUE(c.checked) << c.errors();
  const CheckedFunction& f = c.checked->functions.at(0);
  EXPECT_EQ(count_ops(f, "ppermute"), 3);  // i < n - 1 for n = 4
  EXPECT_EQ(count_ops(f, "dynamic_slice"), 4);
  EXPECT_EQ(count_ops(f, "einsum"), 4);
  std::string t = types_of(c);
  EXPECT_NE(t.find("collective_matmul.lhs: float32[512,512]{V:X,Y}"), std::string::npos) << t;
  EXPECT_NE(t.find("collective_matmul.n: static int32 = 4"), std::string::npos) << t;
  EXPECT_NE(t.find("collective_matmul.acc: float32[512,2048]{V:X,Y}"), std::string::npos) << t;
  EXPECT_NE(t.find("collective_matmul.i0: int32[]{V:Y}"), std::string::npos) << t;
  ASSERT_EQ(f.results.size(), 1u);
}

TEST(Checker, DefinesOverrideConstsBeforeDependentsFold) {
  const char* src = R"(
mesh m = [dp: 4];
const B = 1024;
const H = B * 2;
func f(x: f32[H@dp]) -> f32[H@dp] on m { return x; }
)";
  auto c = run(src, {Define{"B", std::int64_t{8}, "8"}});
  ASSERT_TRUE(c.checked) << c.errors();
  EXPECT_EQ(to_string(c.checked->functions[0].param_types[0]), "float32[16@dp]");
  auto bad = run(src, {Define{"B", std::int64_t{1}, "1"}});
  EXPECT_FALSE(bad.checked);
  EXPECT_NE(bad.errors().find("not divisible by 4"), std::string::npos);
}

TEST(Checker, FnHelpersAreInlinedPerCallSite) {
  auto c = run(R"(
mesh m = [X: 2, Y: 2];
fn twice(x) { return x + x; }
func f(a: f32[8@X], b: i32[4@Y]) -> (f32[8@X], i32[4@Y]) on m {
  let p = twice(a);
  let q = twice(b);
  return (p, q);
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  const CheckedFunction& f = c.checked->functions[0];
  EXPECT_EQ(count_ops(f, "add"), 2);
  std::string t = types_of(c);
  EXPECT_NE(t.find("f.p: float32[8@X]"), std::string::npos) << t;
  EXPECT_NE(t.find("f.q: int32[4@Y]"), std::string::npos) << t;
}

// A number passed for a typed rank-0 fn parameter is accepted when it fits the dtype, as for a
// func's parameter, and stays weak, as a Python scalar does in JAX: bf16 * (s: f32 = 2.0) is bf16.
TEST(Checker, TypedScalarFnParametersTakeNumbers) {
  auto c = run(R"(
mesh m = [X: 2];
fn scale(x, s: f32) { return x * s; }
fn shift(x, n: i32) { return x + n; }
func f(a: bf16[8@X], b: i32[8@X]) -> (bf16[8@X], i32[8@X]) on m {
  let p = scale(a, 2.0);
  let q = shift(b, 3);
  return (p, q);
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  std::string t = types_of(c);
  EXPECT_NE(t.find("f.p: bfloat16[8@X]"), std::string::npos) << t;
  EXPECT_NE(t.find("f.q: int32[8@X]"), std::string::npos) << t;
}

TEST(Checker, StaticValuesFold) {
  auto c = run(R"(
mesh m = [X: 4, Y: 2];
func f(x: f32[16@X, 6]) -> f32[16@X, 6] on m {
  let d = x.shape[1] * 2 - 1;
  let n = psum(1, (X, Y));
  let r = (0 - 1) % 4;
  let q = -7 // 2;
  let t = 7 / 2;
  let fq = 1.0 // 0.1;
  let fr = -7.5 % 2.0;
  let fd = -7.5 // 2.0;
  let pm = pmean(3, (X, Y));
  let pf = pmean(2.5, X);
  return x;
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  std::string t = types_of(c);
  EXPECT_NE(t.find("f.d: static int32 = 11"), std::string::npos) << t;
  EXPECT_NE(t.find("f.n: static int32 = 8"), std::string::npos) << t;
  EXPECT_NE(t.find("f.r: static int32 = 3"), std::string::npos) << t;
  EXPECT_NE(t.find("f.q: static int32 = -4"), std::string::npos) << t;
  EXPECT_NE(t.find("f.t: static float32 = 3.5"), std::string::npos) << t;
  // Python's float // and %: the quotient that goes with fmod's remainder, not floor(a / b).
  EXPECT_NE(t.find("f.fq: static float32 = 9"), std::string::npos) << t;
  EXPECT_NE(t.find("f.fr: static float32 = 0.5"), std::string::npos) << t;
  EXPECT_NE(t.find("f.fd: static float32 = -4"), std::string::npos) << t;
  // pmean = psum(x) / psum(1): a Python float.
  EXPECT_NE(t.find("f.pm: static float32 = 3"), std::string::npos) << t;
  EXPECT_NE(t.find("f.pf: static float32 = 2.5"), std::string::npos) << t;
}

// pmean of a number is weak like any Python float: bf16 + pmean(3, X) stays bf16, as
// bf16 + psum(3, X) / psum(1, X) does (it was a concrete f32 and made the result f32).
TEST(Checker, PmeanOfANumberIsWeak) {
  auto c = run(R"(
mesh m = [X: 2];
shard_map f(a: bf16[4@X]) -> bf16[4@X] on m { return a + pmean(3, X); }
)");
  ASSERT_TRUE(c.checked) << c.errors();
}

// transpose's perm may count from the end, as jnp.transpose's axes (it was "not a permutation").
TEST(Checker, TransposeTakesNegativeAxes) {
  auto c = run(R"(
mesh m = [X: 2];
func f(a: f32[4@X, 6]) -> f32[6, 4@X] on m {
  let t = transpose(a, (-1, 0));
  return t;
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  const std::string t = types_of(c);
  EXPECT_NE(t.find("f.t: float32[6,4@X]"), std::string::npos) << t;
}

// The branch an `if` does not take is not typed (here it would multiply mismatched shapes),
// but its names are resolved, including names bound inside it and loop indices.
TEST(Checker, UntakenIfBranchResolvesNamesOnly) {
  const char* src = R"(
mesh m = [X: 2];
const WIDE = 0;
func f(a: f32[8@X, 4]) -> f32[8@X, 4] on m {
  var y = a;
  if WIDE == 1 {
    let w = zeros(f32[6, 6]);
    for i in 0..2 { y = y @ w + i; }
  } else {
    y = y * 2.0;
  }
  return y;
}
)";
  auto c = run(src);
  ASSERT_TRUE(c.checked) << c.errors();
  EXPECT_EQ(count_ops(c.checked->functions[0], "einsum"), 0);

  auto bad = run(R"(
mesh m = [X: 2];
func f(a: f32[8@X]) -> f32[8@X] on m {
  if false { let b = scale(a) + offset; return b; }
  return a;
}
)");
  EXPECT_FALSE(bad.checked);
  EXPECT_NE(bad.errors().find("unknown function 'scale'"), std::string::npos) << bad.errors();
  EXPECT_NE(bad.errors().find("unknown name 'offset'"), std::string::npos) << bad.errors();
}

TEST(Checker, HelperUntakenCodeMayNameAnotherMeshsAxes) {
  // An fn called from two meshes: each call leaves the other mesh's branch untaken, and a
  // branch of a helper may name the axes of any mesh (a func's own untaken code may not).
  const char* src = R"(
mesh a = [dp: 4];
mesh b = [tp: 2] devices 4..6;
fn reduce_on(x, on_b) {
  var y = x;
  if on_b { y = psum(x, tp); } else { y = psum(x, dp); }
  return y;
}
fn unused(x) { return psum(x, tp) + psum(x, dp); }
shard_map fa(x: f32[16@dp]) -> f32[4] on a unchecked { return reduce_on(x, false); }
shard_map fb(x: f32[16@tp]) -> f32[8] on b unchecked { return reduce_on(x, true); }
)";
  auto c = run(src);
  EXPECT_TRUE(c.checked) << c.errors();
}

TEST(Checker, UntakenCodeInsideLongLoopsIsResolvedOnce) {
  // 900,000 iterations, each reaching an empty loop of 2,000 statements: resolved on every
  // iteration, that took minutes; resolved once, under a second.
  std::string src = "mesh m = [X: 2];\nfunc f(a: f32[8@X]) -> f32[8@X] on m {\n  for i in 0..900000 {\n"
                    "    for j in 0..0 {\n";
  for (int k = 0; k < 2000; ++k) src += "      let v" + std::to_string(k) + " = a * j;\n";
  src += "    }\n    if i < 0 { let u = a + i; }\n  }\n  return a;\n}\n";
  auto c = run(src);
  EXPECT_TRUE(c.checked) << c.errors();
}

TEST(Checker, UncheckedShardMapSkipsTheVmaChecks) {
  const char* body = R"(
mesh m = [i: 2];
shard_map f(x: f32[8@i], y: f32[4]) -> f32[4] on m %s {
  let g = all_gather(y, i, tiled=true);
  return x;
}
)";
  char checked_src[512], unchecked_src[512];
  std::snprintf(checked_src, sizeof checked_src, body, "");
  std::snprintf(unchecked_src, sizeof unchecked_src, body, "unchecked");
  auto ok = run(unchecked_src);
  EXPECT_TRUE(ok.checked) << ok.errors();
  auto bad = run(checked_src);
  EXPECT_FALSE(bad.checked);
  // Both the all_gather and the output are reported in one run.
  EXPECT_EQ(bad.diags->error_count(), 2u) << bad.errors();
}

TEST(Checker, ExplicitModeOpsRecordTheirCommunicationPoints) {
  auto c = run(R"(
mesh grid = [X: 4, Y: 2];
func f(In: f32[8@X, 2048@Y], W: f32[2048@Y, 8192]) -> (f32[8@X, 8192@Y], f32[8@X, 8192]) on grid {
  let sq = square(In);
  let a = einsum("bd,df->bf", sq, W, out=[X, Y]);
  let b = matmul(sq, W, out=[X, None]);
  return (a, b);
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  const CheckedFunction& f = c.checked->functions[0];
  int with_out = 0;
  for (const auto& op : f.ops)
    if (op.name == "einsum" && op.attrs.count("out")) ++with_out;
  EXPECT_EQ(with_out, 2);
  EXPECT_EQ(f.results.size(), 2u);
}

TEST(Checker, CallsBetweenFunctionsAndNodeTypes) {
  auto c = run(R"(
mesh m = [dp: 4, tp: 2];
shard_map mm(x: f32[1024@dp, 4096], w: f32[4096, 256@tp]) -> f32[1024@dp, 256@tp] on m {
  return x @ w;
}
func main() -> f32[1024, 256] on m {
  let x = normal(key(0), f32[1024@dp, 4096]);
  let w = uniform(key(1), f32[4096, 256@tp], min=-1, max=1);
  let y = mm(x, w);
  return reshard(y, []);
}
)");
  ASSERT_TRUE(c.checked) << c.errors();
  const CheckedFunction* main = c.checked->find_function("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(count_ops(*main, "call"), 1);
  EXPECT_EQ(count_ops(*main, "reshard"), 1);
  int typed_nodes = 0;
  for (const auto& t : c.checked->node_types) typed_nodes += t.has_value();
  EXPECT_GT(typed_nodes, 5);
  std::string t = types_of(c);
  EXPECT_NE(t.find("mm.x: float32[256,4096]{V:dp}"), std::string::npos) << t;
  EXPECT_NE(t.find("main.y: float32[1024@dp,256@tp]"), std::string::npos) << t;
}

TEST(Checker, LayoutDrawsWhichDevicesHoldWhichBlock) {
  auto c = run(R"(
mesh m = [dp: 4, tp: 2];
func f(x: f32[8@tp, 4@dp]) -> f32[8, 4] on m { return reshard(x, []); }
)");
  ASSERT_TRUE(c.checked) << c.errors();
  std::ostringstream o;
  emit_layout(*c.checked, o);
  EXPECT_NE(o.str().find("| 0 | 2 | 4 | 6 |"), std::string::npos) << o.str();
  EXPECT_NE(o.str().find("| 1 | 3 | 5 | 7 |"), std::string::npos) << o.str();
  EXPECT_NE(o.str().find("| 0,1,2,3,4,5,6,7 |"), std::string::npos) << o.str();
}

TEST(Checker, EveryErrorOfAFileIsReported) {
  auto c = run(R"(
mesh m = [X: 4];
func f(x: f32[8@X]) -> f32[8@X] on m { return x * nope; }
func g(x: f32[6@X]) -> f32[6] on m { return x; }
func h(x: f32[8@X]) -> f32[8] on m { return psum(x, X); }
)");
  EXPECT_FALSE(c.checked);
  EXPECT_EQ(c.diags->error_count(), 3u) << c.errors();
}

}  // namespace
}  // namespace shardc::check
