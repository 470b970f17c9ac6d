// UTF-8 repair, escaping and number formatting for the report writers.
#include "report_text.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace dlc::report {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Calls fn(code_point) for every scalar of `s`, U+FFFD for each maximal invalid subsequence.
// Table 3-7 of the Unicode standard gives the well-formed byte ranges used here.
template <typename Fn>
void for_each_scalar(std::string_view s, Fn fn) {
  size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    if (lead < 0x80) {
      fn(static_cast<char32_t>(lead));
      ++i;
      continue;
    }
    size_t length = 0;
    char32_t cp = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      cp = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      cp = lead & 0x0F;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      cp = lead & 0x07;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      fn(kReplacement);
      ++i;
      continue;
    }
    size_t k = 1;
    for (; k < length && i + k < s.size(); ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (c < low || c > high) break;
      cp = (cp << 6) | (c & 0x3F);
      low = 0x80;
      high = 0xBF;
    }
    fn(k == length ? cp : kReplacement);
    i += k;
  }
}

void append_utf8(std::string* out, char32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

void append_u_escape(std::string* out, char32_t cp) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  *out += buf;
}

std::string quote(std::string_view raw, bool for_script) {
  std::string out = "\"";
  out.reserve(raw.size() + 2);
  for_each_scalar(raw, [&](char32_t cp) {
    switch (cp) {
      case '"':
        out += "\\\"";
        return;
      case '\\':
        out += "\\\\";
        return;
      case '\b':
        out += "\\b";
        return;
      case '\f':
        out += "\\f";
        return;
      case '\n':
        out += "\\n";
        return;
      case '\r':
        out += "\\r";
        return;
      case '\t':
        out += "\\t";
        return;
      default:
        break;
    }
    const bool script_markup = for_script && (cp == '<' || cp == '>' || cp == '&');
    if (cp < 0x20 || cp == 0x2028 || cp == 0x2029 || script_markup) {
      append_u_escape(&out, cp);
    } else {
      append_utf8(&out, cp);
    }
  });
  out += '"';
  return out;
}

}  // namespace

std::string valid_utf8(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for_each_scalar(raw, [&](char32_t cp) { append_utf8(&out, cp); });
  return out;
}

std::string json_quote(std::string_view raw) { return quote(raw, false); }

std::string script_quote(std::string_view raw) { return quote(raw, true); }

std::string xml_escape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for_each_scalar(raw, [&](char32_t cp) {
    switch (cp) {
      case '&':
        out += "&amp;";
        return;
      case '<':
        out += "&lt;";
        return;
      case '>':
        out += "&gt;";
        return;
      case '"':
        out += "&quot;";
        return;
      case '\'':
        out += "&#39;";
        return;
      case '\t':
        out += "&#9;";
        return;
      case '\n':
        out += "&#10;";
        return;
      case '\r':
        out += "&#13;";
        return;
      default:
        break;
    }
    if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF) return;  // not allowed in XML 1.0
    append_utf8(&out, cp);
  });
  return out;
}

std::string markdown_escape(std::string_view raw) {
  // Decode first so that the emphasis rule below can look at neighbouring characters.
  std::u32string text;
  for_each_scalar(raw, [&](char32_t cp) { text += cp; });
  auto alnum = [&](size_t i) {
    if (i >= text.size()) return false;
    const char32_t c = text[i];
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c > 0x7F;
  };
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t cp = text[i];
    if (cp == '\n' || cp == '\r' || cp == '\t') {
      out += ' ';  // a table row is one line
    } else if (cp < 0x20 || cp == 0x7F) {
      continue;
    } else if (cp == '_') {
      // An underscore inside a word never emphasises, so tensor names stay readable in the raw
      // text ("f32_8x8"); one at a word boundary could, so it is escaped.
      out += (i > 0 && alnum(i - 1) && alnum(i + 1)) ? "_" : "\\_";
    } else if (cp < 0x80 && std::string_view("\\`*[]<>&|~$#!").find(static_cast<char>(cp)) !=
                                std::string_view::npos) {
      out += '\\';
      out += static_cast<char>(cp);
    } else {
      append_utf8(&out, cp);
    }
  }
  return out;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string fixed_number(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (result.ec != std::errc()) return "0";  // |v| beyond 1e60: not a duration we print
  return std::string(buf, result.ptr);
}

std::string human_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (seconds < 60) return fixed_number(seconds, seconds < 10 ? 2 : 1) + " s";
  const int64_t total = std::llround(seconds);
  auto two_digits = [](int64_t n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  if (total < 3600) return std::to_string(total / 60) + " min " + two_digits(total % 60) + " s";
  return std::to_string(total / 3600) + " h " + two_digits(total / 60 % 60) + " min";
}

// ---- JsonWriter ------------------------------------------------------------------------------

void JsonWriter::newline(size_t depth) {
  out_ += '\n';
  out_.append(2 * depth, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& level = stack_.back();
  assert(!level.object && "a value inside an object needs a key first");
  separate(level);
}

void JsonWriter::separate(Level& level) {
  if (!level.empty) out_ += ',';
  if (static_cast<int>(stack_.size()) <= expanded_depth_) {
    newline(stack_.size());
  } else if (!level.empty) {
    out_ += ' ';
  }
  level.empty = false;
}

void JsonWriter::open(char bracket, bool object) {
  before_value();
  out_ += bracket;
  stack_.push_back({object});
}

void JsonWriter::close(char bracket, bool object) {
  assert(!stack_.empty() && stack_.back().object == object && !after_key_);
  (void)object;
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty && static_cast<int>(stack_.size()) < expanded_depth_) newline(stack_.size());
  out_ += bracket;
  if (stack_.empty()) out_ += '\n';
}

JsonWriter& JsonWriter::begin_object() { open('{', true); return *this; }
JsonWriter& JsonWriter::end_object() { close('}', true); return *this; }
JsonWriter& JsonWriter::begin_array() { open('[', false); return *this; }
JsonWriter& JsonWriter::end_array() { close(']', false); return *this; }
JsonWriter& JsonWriter::key(std::string_view name) {
  assert(!stack_.empty() && stack_.back().object && !after_key_);
  Level& level = stack_.back();
  separate(level);
  out_ += json_quote(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw_value(std::string_view literal) {
  before_value();
  out_ += literal;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) { return raw_value(json_quote(s)); }

JsonWriter& JsonWriter::value(bool b) { return raw_value(b ? "true" : "false"); }

JsonWriter& JsonWriter::value(double d) { return raw_value(json_number(d)); }

std::string matched_classes(const SuppressionUse& u, const char* unnamed_mark) {
  std::string text;
  for (const auto& [cls, n] : u.classes) {
    text += (text.empty() ? "" : ", ") + cls + " (" + std::to_string(n) + ")";
  }
  for (const auto& [cls, n] : u.unnamed) {
    text += (text.empty() ? "" : ", ") + std::string(unnamed_mark) + cls + " (" +
            std::to_string(n) + ")";
  }
  if (u.stale) text += std::string(text.empty() ? "" : "; ") + "stale: matched nothing";
  if (u.old_form) text += std::string(text.empty() ? "" : "; ") + "old form";
  return text;
}

}  // namespace dlc::report
