#include "frontend/check/name_suggestions.h"

#include <gtest/gtest.h>

namespace shardc::check {
namespace {

TEST(NameSuggestions, TheNearestNameWithinASlip) {
  const std::vector<std::string_view> names = {"einsum", "exp", "expm1", "square", "sqrt", "x_block"};
  EXPECT_EQ(closest_name("sqaure", names), "square");  // two neighbours swapped: one edit
  EXPECT_EQ(closest_name("einsun", names), "einsum");
  EXPECT_EQ(closest_name("x_blok", names), "x_block");
  EXPECT_EQ(closest_name("expm2", names), "expm1");
  EXPECT_EQ(closest_name("exps", names), "exp");
  EXPECT_EQ(closest_name("sqrtt", names), "sqrt");
}

TEST(NameSuggestions, NoGuessWhenNothingIsNearOrTheNameIsShort) {
  const std::vector<std::string_view> names = {"X", "Z", "dp", "tp", "square"};
  EXPECT_EQ(closest_name("Y", names), std::nullopt);   // one character: every other is one edit away
  EXPECT_EQ(closest_name("dq", names), std::nullopt);
  EXPECT_EQ(closest_name("qqqq", names), std::nullopt);
  EXPECT_EQ(closest_name("squirrel", names), std::nullopt);
  EXPECT_EQ(closest_name("square", names), std::nullopt);  // the name itself is no suggestion
}

TEST(NameSuggestions, JaxSpellings) {
  EXPECT_NE(jax_spelling_hint("P"), std::nullopt);
  EXPECT_NE(jax_spelling_hint("clip"), std::nullopt);
  EXPECT_EQ(jax_spelling_hint("square"), std::nullopt);
  EXPECT_EQ(*jax_keyword_hint("scatter_dimension"), "JAX's scatter_dimension= is dim= here");
  EXPECT_EQ(jax_keyword_hint("dim"), std::nullopt);
}

}  // namespace
}  // namespace shardc::check
