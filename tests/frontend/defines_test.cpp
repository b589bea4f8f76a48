// -D NAME=VALUE parsing (docs/language.md, section 2.2).
#include <gtest/gtest.h>

#include "frontend/defines.h"

namespace shardc {
namespace {

std::optional<Define> parse_ok(std::string_view option) {
  Diagnostics diags;
  auto d = parse_define(option, diags);
  EXPECT_FALSE(diags.has_errors()) << option << ": " << diags.render();
  return d;
}

std::string parse_error(std::string_view option) {
  Diagnostics diags;
  EXPECT_FALSE(parse_define(option, diags)) << option;
  return diags.render();
}

TEST(Defines, Integers) {
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=1024")->value), 1024);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=-3")->value), -3);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=1_000")->value), 1000);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=0xFF")->value), 255);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=-0x10")->value), -16);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=9223372036854775807")->value), INT64_MAX);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=-9223372036854775808")->value), INT64_MIN);
  EXPECT_EQ(std::get<std::int64_t>(parse_ok("B=-0x8000000000000000")->value), INT64_MIN);
  auto d = parse_ok("_name9=7");
  EXPECT_EQ(d->name, "_name9");
  EXPECT_EQ(d->text, "7");
}

TEST(Defines, FloatsAndBools) {
  EXPECT_DOUBLE_EQ(std::get<double>(parse_ok("LR=0.01")->value), 0.01);
  EXPECT_DOUBLE_EQ(std::get<double>(parse_ok("LR=-1e-3")->value), -1e-3);
  EXPECT_EQ(std::get<bool>(parse_ok("CHECK=true")->value), true);
  EXPECT_EQ(std::get<bool>(parse_ok("CHECK=false")->value), false);
}

TEST(Defines, OutOfRangeIsAnError) {
  EXPECT_EQ(parse_error("B=9223372036854775808"),
            "shardc: error: -D B=9223372036854775808: 9223372036854775808 does not fit in a 64-bit signed integer "
            "(i64)\n");
  EXPECT_NE(parse_error("B=-9223372036854775809").find("does not fit"), std::string::npos);
  EXPECT_NE(parse_error("B=0x8000000000000000").find("does not fit"), std::string::npos);
  EXPECT_NE(parse_error("B=1e999").find("too large"), std::string::npos);
}

TEST(Defines, MalformedOptions) {
  EXPECT_EQ(parse_error("B"), "shardc: error: -D B: expected NAME=VALUE\n");
  EXPECT_NE(parse_error("=3").find("is not a valid constant name"), std::string::npos);
  EXPECT_NE(parse_error("9B=3").find("is not a valid constant name"), std::string::npos);
  for (std::string bad : {"B=", "B=abc", "B=1_", "B=1__0", "B=0x", "B=0x_1", "B=+-1", "B=--1", "B=1.5.2", "B=12x",
                          "B=True"}) {
    EXPECT_NE(parse_error(bad).find("is not a number, true or false"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace shardc
