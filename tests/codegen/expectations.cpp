#include "expectations.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "evaluator/compare.h"
#include "shard/kernels/float16.h"

Expectations read_expectations(const std::string& path) {
  Expectations out;
  std::ifstream file(path);
  for (const expectations::Line& line : expectations::read_lines(file)) {
    const auto a = expectations::parse_result_ref(line.lhs);
    if (!a) continue;  // about a binding, not a result
    if (line.kind == "value") {
      out.values.push_back({*a, line.rhs});
    } else if (const auto b = expectations::parse_result_ref(line.rhs)) {
      out.equals.push_back({*a, *b});
    }
  }
  return out;
}

std::vector<double> host_values(const shard::Array& a) {
  std::vector<double> out;
  switch (a.type().dtype) {
    case shard::DType::f32:
      for (float v : a.to_host<float>()) out.push_back(v);
      break;
    case shard::DType::bf16:
      for (std::uint16_t v : a.to_host<std::uint16_t>()) out.push_back(shard::kernels::bf16_to_f32(v));
      break;
    case shard::DType::f16:
      for (std::uint16_t v : a.to_host<std::uint16_t>()) out.push_back(shard::kernels::f16_to_f32(v));
      break;
    case shard::DType::i32:
      for (std::int32_t v : a.to_host<std::int32_t>()) out.push_back(v);
      break;
    case shard::DType::i64:
      for (std::int64_t v : a.to_host<std::int64_t>()) out.push_back(static_cast<double>(v));
      break;
    case shard::DType::boolean:
      for (std::uint8_t v : a.to_host<std::uint8_t>()) out.push_back(v ? 1 : 0);
      break;
  }
  return out;
}

PrintedNumbers parse_printed(const std::string& text) {
  PrintedNumbers p;
  std::string cleaned;
  for (char c : text) cleaned += (c == '[' || c == ']' || c == ',') ? ' ' : c;
  std::istringstream in(cleaned);
  for (std::string word; in >> word;) {
    if (word == "True" || word == "False") {
      p.values.push_back(word == "True" ? 1 : 0);
      p.last_digit.push_back(0);
      continue;
    }
    p.values.push_back(std::stod(word));
    auto dot = word.find('.');
    auto exp = word.find_first_of("eE");
    if (dot != std::string::npos || exp != std::string::npos) p.floating = true;
    double unit = 0;
    if (dot != std::string::npos) {
      std::size_t digits = (exp == std::string::npos ? word.size() : exp) - dot - 1;
      unit = std::pow(10.0, -static_cast<double>(digits));
      if (exp != std::string::npos) unit *= std::pow(10.0, std::stod(word.substr(exp + 1)));
    }
    p.last_digit.push_back(unit);
  }
  return p;
}

std::string compare_values(const std::vector<double>& got, const std::vector<double>& want, shard::DType dtype,
                           const std::vector<double>& slack) {
  if (got.size() != want.size())
    return "element counts differ: got " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  const double scale = shardc::eval::reference_scale(want.data(), static_cast<std::int64_t>(want.size()));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double extra = shard::is_floating(dtype) && i < slack.size() ? slack[i] : 0;
    if (!shardc::eval::element_matches(dtype, got[i], want[i], scale, extra)) {
      std::ostringstream s;
      s << "element " << i << ": got " << got[i] << ", expected " << want[i] << " (tolerance "
        << shardc::eval::tolerance(dtype, want[i], scale) + extra << ")";
      return s.str();
    }
  }
  return "";
}
