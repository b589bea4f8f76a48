#include "evaluator/format_numpy.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>

namespace shardc::eval {
namespace {

constexpr int kPrecision = 8;
constexpr std::size_t kLineWidth = 75;
constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;

std::string chars(float v, std::chars_format fmt, int precision = -1) {
  char buf[128];
  auto r = precision < 0 ? std::to_chars(buf, buf + sizeof buf, v, fmt) : std::to_chars(buf, buf + sizeof buf, v, fmt, precision);
  return std::string(buf, r.ptr);
}

// Drops trailing zeros of a fraction, keeping the point ("2.500" -> "2.5", "3.000" -> "3.").
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s + ".";
  while (s.back() == '0') s.pop_back();
  return s;
}

// "-1.2345e+08" as positional digits, zeros standing for the digits it does not have:
// "-123450000.0" (numpy's dragon4_positional(unique=True) writes 123456789 as float32,
// 123456792, as 123456790., the shortest digits that read back as it, where a fixed-format
// shortest round trip needs all nine integer digits).
std::string positional_of_scientific(const std::string& s) {
  const std::size_t e = s.find('e');
  if (e == std::string::npos) return s;  // inf, nan
  const bool negative = s[0] == '-';
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  const int exponent = std::stoi(s.substr(e + 1));
  std::string out = negative ? "-" : "";
  if (exponent < 0) return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const std::size_t integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) return out + digits + std::string(integer_digits - digits.size(), '0') + ".0";
  return out + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

// The shortest digits (fixed or scientific) that read back as the same value of `dtype`:
// float32's shortest round trip, or for bf16/f16 the fewest digits that round to the same
// 16-bit value (as ml_dtypes prints them). Fixed: those digits placed as numpy places them.
std::string shortest(float v, DType dtype, std::chars_format fmt) {
  if (fmt == std::chars_format::fixed && std::isfinite(v))
    return positional_of_scientific(shortest(v, dtype, std::chars_format::scientific));
  if (dtype != DType::bf16 && dtype != DType::f16) return chars(v, fmt);
  for (int p = 0; p < 9; ++p) {
    std::string s = chars(v, fmt, p);
    float back = 0;
    std::from_chars(s.data(), s.data() + s.size(), back, fmt);  // no exceptions for subnormals
    if (round_to(dtype, back) == v) return s;
  }
  return chars(v, fmt);
}

// dragon4_positional(unique=True, precision=8, trim='.'): the shortest digits that read back
// as the same value, cut to 8 digits after the point.
std::string positional(float v, DType dtype) {
  std::string s = shortest(v, dtype, std::chars_format::fixed);
  auto dot = s.find('.');
  if (dot != std::string::npos && s.size() - dot - 1 > static_cast<std::size_t>(kPrecision))
    s = chars(v, std::chars_format::fixed, kPrecision);
  return trim_zeros(s);
}

struct Scientific {
  std::string mantissa;  // "1.5" (trimmed)
  std::string exponent;  // "-05"
};

Scientific scientific(float v, DType dtype) {
  std::string s = shortest(v, dtype, std::chars_format::scientific);
  auto e = s.find('e');
  std::string m = s.substr(0, e);
  auto dot = m.find('.');
  if (dot != std::string::npos && m.size() - dot - 1 > static_cast<std::size_t>(kPrecision)) {
    s = chars(v, std::chars_format::scientific, kPrecision);
    e = s.find('e');
    m = s.substr(0, e);
  }
  return {trim_zeros(m), s.substr(e + 1)};
}

// One element's text, all of one array padded alike.
class ElementFormat {
 public:
  ElementFormat(const HostTensor& t, const std::vector<std::int64_t>& shown) : t_(t) {
    if (t.dtype == DType::boolean) {
      // numpy pads True to False's width in every array but a 0-d one (BoolFormat's ' True').
      bool_width_ = t.shape.empty() ? 0 : 5;
    } else if (!t.is_float()) {
      for (auto i : shown) int_width_ = std::max(int_width_, std::to_string(t.ints[i]).size());
    } else {
      float_setup(shown);
    }
  }

  std::string operator()(std::int64_t i) const {
    if (t_.dtype == DType::boolean) return pad_left(t_.ints[i] ? "True" : "False", bool_width_);
    if (!t_.is_float()) return pad_left(std::to_string(t_.ints[i]), int_width_);
    float v = t_.floats[i];
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      return pad_left(s, pad_left_ + pad_right_ + 1 + (exp_format_ ? exp_size_ + 2 : 0));
    }
    if (exp_format_) {
      Scientific s = scientific(v, t_.dtype);
      if (s.mantissa.size() - s.mantissa.find('.') - 1 < precision_) {
        // numpy pads a shorter element with the value's own further digits (dragon4 with
        // min_digits), not zeros: 8.756511e-27 beside a longer one prints 8.7565109e-27.
        const std::string full = chars(v, std::chars_format::scientific, static_cast<int>(precision_));
        const auto e = full.find('e');
        s = {full.substr(0, e), full.substr(e + 1)};
      }
      auto dot = s.mantissa.find('.');
      std::string ip = s.mantissa.substr(0, dot), fp = s.mantissa.substr(dot + 1);
      fp.append(precision_ - std::min(precision_, fp.size()), '0');  // precision_ 0: "1." has none
      std::string digits = s.exponent.substr(1);
      if (digits.size() < exp_size_) digits.insert(0, exp_size_ - digits.size(), '0');
      return pad_left(ip, pad_left_) + "." + fp + "e" + s.exponent[0] + digits;
    }
    std::string s = positional(v, t_.dtype);
    auto dot = s.find('.');
    std::string ip = s.substr(0, dot), fp = s.substr(dot + 1);
    return pad_left(ip, pad_left_) + "." + fp + std::string(pad_right_ - std::min(pad_right_, fp.size()), ' ');
  }

 private:
  static std::string pad_left(std::string s, std::size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  }

  void float_setup(const std::vector<std::int64_t>& shown) {
    std::vector<float> finite;
    bool has_nonfinite = false;
    for (auto i : shown) {
      if (std::isfinite(t_.floats[i])) finite.push_back(t_.floats[i]);
      else has_nonfinite = true;
    }
    float max_abs = 0, min_abs = std::numeric_limits<float>::infinity();
    for (float v : finite)
      if (v != 0) {
        max_abs = std::max(max_abs, std::fabs(v));
        min_abs = std::min(min_abs, std::fabs(v));
      }
    if (max_abs > 0)
      exp_format_ = max_abs >= 1e8f || min_abs < 1e-4f || static_cast<double>(max_abs) / min_abs > 1000.0;
    for (float v : finite) {
      if (exp_format_) {
        Scientific s = scientific(v, t_.dtype);
        auto dot = s.mantissa.find('.');
        pad_left_ = std::max(pad_left_, dot);
        precision_ = std::max(precision_, s.mantissa.size() - dot - 1);
        exp_size_ = std::max(exp_size_, s.exponent.size() - 1);
      } else {
        std::string s = positional(v, t_.dtype);
        auto dot = s.find('.');
        pad_left_ = std::max(pad_left_, dot);
        pad_right_ = std::max(pad_right_, s.size() - dot - 1);
      }
    }
    if (exp_format_) pad_right_ = precision_;
    if (has_nonfinite) {
      bool neg_inf = std::any_of(shown.begin(), shown.end(), [&](std::int64_t i) {
        return std::isinf(t_.floats[i]) && t_.floats[i] < 0;
      });
      std::size_t offset = pad_right_ + 1 + (exp_format_ ? exp_size_ + 2 : 0);
      std::size_t need = std::max<std::size_t>(3, 3 + (neg_inf ? 1 : 0));
      if (need > offset) pad_left_ = std::max(pad_left_, need - offset);
    }
  }

  const HostTensor& t_;
  std::size_t bool_width_ = 0, int_width_ = 0;
  bool exp_format_ = false;
  std::size_t pad_left_ = 0, pad_right_ = 0, precision_ = 0, exp_size_ = 0;
};

// numpy's _formatArray: nested brackets, one row per line, wrapping at the line width.
class Layout {
 public:
  Layout(const HostTensor& t, bool summarize, const ElementFormat& fmt)
      : t_(t), summarize_(summarize), fmt_(fmt), strides_(strides_of(t.shape)) {}

  std::string run() { return recurse(0, 0, " ", kLineWidth); }

 private:
  static void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width,
                          const std::string& prefix) {
    bool wrap = line.size() + word.size() > width && line.size() > prefix.size();
    if (wrap) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s += line + "\n";
      line = prefix;
    }
    line += word;
  }

  std::string recurse(int axis, std::int64_t offset, const std::string& hanging, std::size_t width) {
    int rank = t_.rank();
    if (axis == rank) return fmt_(offset);
    std::string next_hanging = hanging + " ";
    std::size_t next_width = width - 1;
    std::int64_t n = t_.shape[axis];
    bool summary = summarize_ && 2 * kEdgeItems < n;
    std::vector<std::int64_t> items;
    for (std::int64_t i = 0; i < n; ++i)
      if (!summary || i < kEdgeItems || i >= n - kEdgeItems) items.push_back(i);
    std::string s;
    if (axis == rank - 1) {
      width -= 1;  // numpy leaves room for the closing bracket
      std::string line = hanging;
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (summary && k == static_cast<std::size_t>(kEdgeItems)) {
          extend_line(s, line, "...", width, hanging);
          line += " ";
        }
        extend_line(s, line, recurse(axis + 1, offset + items[k] * strides_[axis], next_hanging, next_width), width,
                    hanging);
        if (k + 1 < items.size()) line += " ";
      }
      s += line;
    } else {
      std::string sep = std::string(static_cast<std::size_t>(rank - axis - 1), '\n');
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (summary && k == static_cast<std::size_t>(kEdgeItems)) s += hanging + "..." + sep;
        s += hanging + recurse(axis + 1, offset + items[k] * strides_[axis], next_hanging, next_width);
        if (k + 1 < items.size()) s += sep;
      }
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

  const HostTensor& t_;
  bool summarize_;
  const ElementFormat& fmt_;
  std::vector<std::int64_t> strides_;
};

// The elements numpy looks at to choose widths: all, or the edge items when summarising.
std::vector<std::int64_t> shown_elements(const HostTensor& t, bool summarize) {
  std::vector<std::int64_t> out;
  auto strides = strides_of(t.shape);
  std::function<void(int, std::int64_t)> walk = [&](int axis, std::int64_t offset) {
    if (axis == t.rank()) {
      out.push_back(offset);
      return;
    }
    std::int64_t n = t.shape[axis];
    for (std::int64_t i = 0; i < n; ++i)
      if (!summarize || 2 * kEdgeItems >= n || i < kEdgeItems || i >= n - kEdgeItems) walk(axis + 1, offset + i * strides[axis]);
  };
  walk(0, 0);
  return out;
}

// A 0-d array prints as its scalar: Python's repr of the value (float32's shortest digits).
std::string scalar_text(const HostTensor& t) {
  if (t.dtype == DType::boolean) return t.ints[0] ? "True" : "False";
  if (!t.is_float()) return std::to_string(t.ints[0]);
  float v = t.floats[0];
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  float a = std::fabs(v);
  if (a != 0 && (a < 1e-4f || a >= 1e16f)) {
    Scientific s = scientific(v, t.dtype);
    std::string m = s.mantissa;
    if (m.back() == '.') m.pop_back();
    return m + "e" + s.exponent;
  }
  std::string s = shortest(v, t.dtype, std::chars_format::fixed);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string format_numpy(const HostTensor& t) {
  if (t.rank() == 0) return scalar_text(t);
  if (t.size() == 0) return "[]";
  bool summarize = t.size() > kThreshold;
  ElementFormat fmt(t, shown_elements(t, summarize));
  return Layout(t, summarize, fmt).run();
}

}  // namespace shardc::eval
