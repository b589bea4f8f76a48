// Rendering of diagnostics (clang's form) and the located errors of the transformer.
#include <gtest/gtest.h>

#include "test_helpers.h"

namespace shardc::test {
namespace {

// The rendering of a file with one error, at its bytes [begin, end).
std::string render_one_error(const std::string& name, const std::string& text, std::uint32_t begin, std::uint32_t end,
                             const std::string& message) {
  Diagnostics diags;
  FileId id = diags.sources().add(name, text);
  const SourceFile& f = diags.sources().file(id);
  diags.error(SourceRange{id, f.location(begin), f.location(end)}, message);
  return diags.render();
}

TEST(DiagnosticsRendering, CaretTildesAndNotes) {
  Diagnostics diags;
  FileId id = diags.sources().add("m.shard", "line one\n  return einsum(sq, W);\n");
  const SourceFile& f = diags.sources().file(id);
  diags.error(SourceRange{id, f.location(18), f.location(31)}, "something is wrong")
      .note("unlocated note")
      .note(SourceRange{id, f.location(0), f.location(4)}, "located note");
  EXPECT_EQ(diags.render(),
            "m.shard:2:10: error: something is wrong\n"
            "  return einsum(sq, W);\n"
            "         ^~~~~~~~~~~~~\n"
            "note: unlocated note\n"
            "m.shard:1:1: note: located note\n"
            "line one\n"
            "^~~~\n");
  EXPECT_EQ(diags.error_count(), 1u);
}

TEST(DiagnosticsRendering, TabsAreKeptSoTheCaretLinesUp) {
  EXPECT_EQ(render_one_error("t.shard", "\tlet x = $;\n", 9, 10, "bad"),
            "t.shard:1:10: error: bad\n\tlet x = $;\n\t        ^\n");
}

// The quote shows one character per byte: a byte order mark is three spaces (the lexer reads
// it as whitespace, so the column counts it) and control bytes are '?', so that the caret lines
// up and no escape sequence reaches the terminal.
TEST(DiagnosticsRendering, ByteOrderMarkAndControlBytesKeepTheCaretInPlace) {
  EXPECT_EQ(render_one_error("b.shard", "\xEF\xBB\xBF" "const A = Z; // \x1b[31m\n", 13, 14, "unknown name 'Z'"),
            "b.shard:1:14: error: unknown name 'Z'\n   const A = Z; // ?[31m\n             ^\n");
}

// A long line is quoted as a window of 200 bytes around the caret.
TEST(DiagnosticsRendering, LongLinesAreCutAroundTheCaret) {
  const std::string line = std::string(1000, 'a') + " $ " + std::string(1000, 'b');
  EXPECT_EQ(render_one_error("l.shard", line + "\n", 1001, 1002, "bad"),
            "l.shard:1:1002: error: bad\n..." + line.substr(901, 200) + "...\n" + std::string(103, ' ') + "^\n");
}

TEST(DiagnosticsRendering, MultiLineRangeUnderlinesToEndOfFirstLine) {
  EXPECT_EQ(render_one_error("t.shard", "ab cd\nef\n", 3, 8, "span"), "t.shard:1:4: error: span\nab cd\n   ^~\n");
}

TEST(DiagnosticsRendering, LinesEndAtLfCrLfOrALoneCr) {
  // A file with CR-only line endings used to be one line: every error said line 1.
  Diagnostics diags;
  FileId id = diags.sources().add("t.shard", "a\rbc\r\nd $\ne");
  const SourceFile& f = diags.sources().file(id);
  EXPECT_EQ(f.line_count(), 4u);
  EXPECT_EQ(f.line_text(2), "bc");
  diags.error(SourceRange{id, f.location(8), f.location(9)}, "bad");
  EXPECT_EQ(diags.render(), "t.shard:3:3: error: bad\nd $\n  ^\n");
}

// The marker has a column per character, not per byte: UTF-8 in a string before the range
// pushed the caret one column right per extra byte. The column number stays the byte's.
TEST(DiagnosticsRendering, TheCaretCountsUtf8CharactersOnce) {
  EXPECT_EQ(render_one_error("t.shard", "s = \"\xce\xb1\xce\xb2\"; y = zz;\n", 16, 18, "unknown name 'zz'"),
            "t.shard:1:17: error: unknown name 'zz'\ns = \"\xce\xb1\xce\xb2\"; y = zz;\n              ^~\n");
}

// A message quoting user text (a string literal's escape byte) never sends control bytes on.
TEST(DiagnosticsRendering, ControlBytesInMessagesArePrintedAsQuestionMarks) {
  Diagnostics diags;
  diags.error({}, "bad spec 'ij\x1b[31m'").note("see '\x07'");
  EXPECT_EQ(diags.render(), "shardc: error: bad spec 'ij?[31m'\nnote: see '?'\n");
}

TEST(DiagnosticsRendering, UnlocatedErrorsNameTheTool) {
  Diagnostics diags;
  diags.error({}, "cannot read 'x.shard': No such file or directory");
  EXPECT_EQ(diags.render(), "shardc: error: cannot read 'x.shard': No such file or directory\n");
}

TEST(DiagnosticsRendering, KeepsAtMostTheLimitAndSaysHowManyMore) {
  Diagnostics diags;
  for (std::size_t i = 0; i < Diagnostics::kMaxKeptErrors + 5; ++i) diags.error({}, "e").note("n");
  EXPECT_EQ(diags.error_count(), Diagnostics::kMaxKeptErrors + 5);
  EXPECT_EQ(diags.diagnostics().size(), Diagnostics::kMaxKeptErrors);
  const std::size_t more = Diagnostics::kMaxKeptErrors + 5 - Diagnostics::kMaxShownErrors;
  EXPECT_NE(diags.render().find(std::to_string(more) + " more diagnostics not shown (limit 200)"), std::string::npos);
}

// Those shown are the first in file order once sorted, whatever order they were found in.
TEST(DiagnosticsRendering, ShowsTheFirstInFileOrderAfterASort) {
  Diagnostics diags;
  std::string text(Diagnostics::kMaxShownErrors + 3, 'x');
  FileId id = diags.sources().add("t.shard", text);
  const SourceFile& f = diags.sources().file(id);
  for (std::size_t i = text.size(); i-- > 0;) diags.error(SourceRange{id, f.location(i), f.location(i + 1)}, "e");
  diags.sort_by_location(0);
  const std::string shown = diags.render();
  EXPECT_EQ(shown.rfind("t.shard:1:1: error: e", 0), 0u) << shown.substr(0, 200);
  EXPECT_NE(shown.find("t.shard:1:200: error: e"), std::string::npos);
  EXPECT_EQ(shown.find("t.shard:1:201: error: e"), std::string::npos);
  EXPECT_NE(shown.find("3 more diagnostics not shown"), std::string::npos);
}

TEST(SyntaxErrors, AllOfAFileAreReportedInFileOrder) {
  auto p = parse_text(
      "mesh grid = [X: 4, Y: 2]\n"        // missing ';' at the end of line 1
      "func f(x: f32[8]) on grid {\n"
      "  let a = (x + ;\n"                 // missing operand
      "  let b = x +* 2;\n"                // operator where an operand belongs
      "  return a;\n"
      "}\n"
      "const = 3;\n");                     // missing name
  EXPECT_FALSE(p.module);
  auto h = p.headlines();
  ASSERT_GE(h.size(), 4u) << p.rendered();
  EXPECT_EQ(h[0], "t.shard:1:25: error: expected ';'");
  EXPECT_EQ(h[1], "t.shard:3:16: error: unexpected ';'; expected an expression");
  EXPECT_EQ(h[2], "t.shard:4:14: error: unexpected '*'; expected an expression");
  EXPECT_EQ(h.back(), "t.shard:7:7: error: unexpected '='; expected a name");
}

TEST(SyntaxErrors, UnexpectedEndOfFile) {
  auto p = parse_text("fn f() {\n  return 1;\n");
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u) << p.rendered();
  EXPECT_EQ(p.headlines()[0].substr(0, 41), "t.shard:3:1: error: unexpected end of fil");
}

TEST(SyntaxErrors, IndexedAssignmentIsNotAStatement) {
  auto p = parse_text("fn f(x) {\n  x[0] = 1;\n  return x;\n}\n");
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u);
  EXPECT_EQ(p.headlines()[0], "t.shard:2:8: error: unexpected '='; expected ';'");
}

struct TransformerCase {
  std::string source;
  std::string headline;
};

class TransformerErrors : public ::testing::TestWithParam<TransformerCase> {};

TEST_P(TransformerErrors, IsLocated) {
  auto p = parse_text(GetParam().source);
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u) << p.rendered();
  EXPECT_EQ(p.headlines()[0], GetParam().headline);
}

// The transformer errors that keep the module: the checker still reads the rest of the file
// (tests/diagnostics/unknown_element_type_then_checked.shard and
// syntax_fn_mesh_checks_the_rest.shard show what it then reports). An unknown element type
// reads as f32; what a declaration of its kind may not have is dropped.
class RecoverableTransformerErrors : public ::testing::TestWithParam<TransformerCase> {};

TEST_P(RecoverableTransformerErrors, KeepTheModule) {
  auto p = parse_text(GetParam().source);
  ASSERT_TRUE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u) << p.rendered();
  EXPECT_EQ(p.headlines()[0], GetParam().headline);
}

INSTANTIATE_TEST_SUITE_P(
    Frontend, RecoverableTransformerErrors,
    ::testing::Values(
        TransformerCase{"fn f(x: g32[4]) { return x; }", "t.shard:1:9: error: unknown type 'g32'"},
        TransformerCase{"fn f() on grid { return 0; }",
                        "t.shard:1:11: error: fn helper 'f' cannot name a mesh; it runs on the mesh of its caller"},
        TransformerCase{"fn f(x) -> i64[99] { return x; }",
                        "t.shard:1:12: error: fn helper 'f' cannot declare a result type; it returns the type of its "
                        "return value"},
        TransformerCase{"func f() unchecked { return 0; }",
                        "t.shard:1:10: error: 'unchecked' applies only to a shard_map, not to func 'f'"}));

TEST(TransformerRecovery, AnyOtherErrorBesideItDropsTheModule) {
  auto p = parse_text("fn f(x: g32[4]) { return 9223372036854775808; }");
  EXPECT_FALSE(p.module);
  EXPECT_EQ(p.headlines().size(), 2u) << p.rendered();
}

INSTANTIATE_TEST_SUITE_P(
    Frontend, TransformerErrors,
    ::testing::Values(
        TransformerCase{"fn f() { return 9223372036854775808; }",
                        "t.shard:1:17: error: integer literal 9223372036854775808 does not fit in a 64-bit signed "
                        "integer (i64)"},
        TransformerCase{"fn f() { return 0x8000_0000_0000_0000; }",
                        "t.shard:1:17: error: integer literal 0x8000_0000_0000_0000 does not fit in a 64-bit "
                        "signed integer (i64)"},
        TransformerCase{"fn f() { return 1e999; }", "t.shard:1:17: error: floating-point literal 1e999 is too large"},
        TransformerCase{"fn f() { return a < b < c; }",
                        "t.shard:1:23: error: comparisons do not chain: '<' and '<' in one expression"},
        TransformerCase{"fn f() { return a == b != c; }",
                        "t.shard:1:24: error: comparisons do not chain: '==' and '!=' in one expression"},
        TransformerCase{"fn f() { (a, b) += 2; return a; }",
                        "t.shard:1:10: error: '+=' needs a single variable on its left"},
        TransformerCase{"fn f() { _ -= 2; return a; }", "t.shard:1:10: error: '-=' needs a single variable on its left"},
        TransformerCase{"fn f() { for (i, j) in 0..2 { } return 0; }",
                        "t.shard:1:14: error: a for loop binds a single index variable, not a tuple"},
        TransformerCase{"fn f(k: key[4]) { return k; }", "t.shard:1:9: error: a key is a scalar; 'key' takes no dimensions"},
        TransformerCase{"fn f(x: f32[4]{W:dp}) { return x; }",
                        "t.shard:1:16: error: expected 'V' in a varying-axes suffix, found 'W'"},
        TransformerCase{"fn f() { return g(a=1, 2); }",
                        "t.shard:1:24: error: positional argument after keyword argument 'a'"},
        TransformerCase{"fn f() { return g(a=1, a=2); }", "t.shard:1:24: error: keyword argument 'a' is given twice"},
        TransformerCase{"mesh m = [X: 2] auto explicit;", "t.shard:1:22: error: the kind of mesh 'm' is given twice"},
        TransformerCase{"mesh m = [X: 2] devices 0..2 devices 2..4;",
                        "t.shard:1:30: error: the device range of mesh 'm' is given twice"}));

TEST(TransformerErrors, ReportsEveryErrorOfTheFile) {
  auto p = parse_text(
      "fn f() {\n"
      "  let a = 99999999999999999999;\n"
      "  let b = x < y < z;\n"
      "  return g(k=1, 2);\n"
      "}\n");
  EXPECT_FALSE(p.module);
  auto h = p.headlines();
  ASSERT_EQ(h.size(), 3u) << p.rendered();
  EXPECT_EQ(h[0].substr(0, 20), "t.shard:2:11: error:");
  EXPECT_EQ(h[1].substr(0, 20), "t.shard:3:17: error:");
  EXPECT_EQ(h[2].substr(0, 20), "t.shard:4:17: error:");
}

}  // namespace
}  // namespace shardc::test
