// Text plumbing shared by the report writers: UTF-8 repair, escaping for each output language,
// locale-independent numbers, and a small streaming JSON writer.
//
// Every escaper first repairs its input: a case detail can hold anything a plugin printed,
// including invalid UTF-8, and one bad byte must not make a whole report unreadable.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace dlc::report {

// `raw` with every maximal invalid UTF-8 subsequence replaced by U+FFFD (the Unicode
// recommendation, also what browsers do). Rejects overlong forms, surrogates and code points
// above U+10FFFF.
std::string valid_utf8(std::string_view raw);

// A JSON string literal, quotes included: `"`, `\` and C0 controls escaped; U+2028 and U+2029
// escaped too so the literal is also valid JavaScript. Non-ASCII passes through as UTF-8.
std::string json_quote(std::string_view raw);

// json_quote() that is also safe inside an HTML <script> element: `<`, `>` and `&` are written
// as \u escapes, so no text can close the element or open a comment.
std::string script_quote(std::string_view raw);

// Text for XML 1.0 and HTML, in element content or in a double- or single-quoted attribute.
// Markup characters become entities; characters XML 1.0 forbids (C0 controls other than tab,
// newline and carriage return; U+FFFE; U+FFFF) are dropped; tab, newline and carriage return
// become character references so attribute normalisation cannot change them.
std::string xml_escape(std::string_view raw);

// Text for one GitHub-flavoured Markdown table cell or list item: on one line, with `|` and the
// inline-markup characters backslash-escaped, so a detail string renders literally.
std::string markdown_escape(std::string_view raw);

// Shortest round-trip decimal for `v`, independent of the C locale; "null" for NaN and
// infinities (JSON has no spelling for them).
std::string json_number(double v);

// `v` with exactly `decimals` digits after the point, independent of the C locale; non-finite
// values print as 0.
std::string fixed_number(double v, int decimals);

// A duration a person reads at a glance: "0.84 s", "4 min 05 s", "2 h 07 min".
std::string human_duration(double seconds);

// Builds one JSON document. Containers opened at a depth below `expanded_depth` put each
// member on its own line; deeper ones stay on one line, so a report has one case per line and
// diffs well. Misuse (a value where a key is due) is a programming error caught by assert().
// What a suppression entry matched, for a report cell: "crash consumer (12), ..."; the classes
// it met but does not name after `unnamed_mark` ("❌ not named: "), "stale", "old form".
std::string matched_classes(const SuppressionUse& u, const char* unnamed_mark);

class JsonWriter {
 public:
  explicit JsonWriter(int expanded_depth = 2) : expanded_depth_(expanded_depth) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T n) { return raw_value(std::to_string(n)); }

  // The document so far; complete once every container is closed.
  const std::string& text() const { return out_; }

 private:
  struct Level {
    bool object;
    bool empty = true;
  };
  JsonWriter& raw_value(std::string_view literal);
  void before_value();
  void separate(Level& level);  // the comma, and the line break or space, before an entry
  void open(char bracket, bool object);
  void close(char bracket, bool object);
  void newline(size_t depth);

  int expanded_depth_;
  std::vector<Level> stack_;
  bool after_key_ = false;
  std::string out_;
};

}  // namespace dlc::report
