#include "layout_report.h"

#include "report_text.h"

namespace dlc {
namespace {

const char* pair_symbol(PairClass c) {
  switch (c) {
    case PairClass::identical:
      return "=";
    case PairClass::compatible_additions:
      return "+";
    case PairClass::layout_break:
      return "**L**";
    case PairClass::source_break:
      return "S";
    case PairClass::error:
      return "!";
  }
  return "?";
}

}  // namespace

std::string fact_text(const HeaderFacts& h, const std::string& key) {
  const auto it = h.facts.find(key);
  return it == h.facts.end() ? "—" : std::to_string(it->second);
}

std::string render_layout_json(const std::vector<HeaderFacts>& headers,
                               const std::vector<PairReport>& pairs, bool details) noexcept {
  try {
    report::JsonWriter w(3);
    w.begin_object();
    w.key("tool").value("dlconform layout");
    w.key("headers").begin_array();
    for (const HeaderFacts& h : headers) {
      w.begin_object();
      w.key("label").value(h.label);
      // A built-in header is named by its label; a user's by the path they passed.
      if (details) w.key("path").value(h.path);
      w.key("compiles_c").value(h.compiles_c).key("compiles_cxx").value(h.compiles_cxx);
      w.key("error").value(h.error);
      w.key("facts").begin_object();
      for (const auto& [key, value] : h.facts) w.key(key).value(value);
      w.end_object();
      w.end_object();
    }
    w.end_array();
    w.key("pairs").begin_array();
    for (const PairReport& p : pairs) {
      w.begin_object();
      w.key("from").value(p.from).key("to").value(p.to).key("class").value(to_string(p.cls));
      w.key("reasons").begin_array();
      for (const std::string& r : p.reasons) w.value(r);
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.text() + "\n";
  } catch (...) {
    return {};
  }
}

std::string render_layout_markdown(const std::vector<HeaderFacts>& headers,
                                   const std::vector<PairReport>& pairs) noexcept {
  try {
    std::string o =
        "# DLPack header layouts\n\n| header | C | C++ | DLTensor | DLManagedTensor (deleter at) "
        "| DLManagedTensorVersioned (dl_tensor at) | device types | dtype codes |\n"
        "|---|:-:|:-:|--:|--:|--:|--:|--:|\n";
    for (const HeaderFacts& h : headers) {
      size_t devices = 0, codes = 0;
      for (const auto& [key, value] : h.facts) {
        devices += device_enum_key(key);
        codes += dtype_enum_key(key);
      }
      o += "| " + report::markdown_escape(h.label) + " | " + (h.compiles_c ? "yes" : "no") +
           " | " + (h.compiles_cxx ? "yes" : "no") + " | " + fact_text(h, "size.DLTensor") +
           " | " + fact_text(h, "size.DLManagedTensor") + " (" +
           fact_text(h, "offset.DLManagedTensor.deleter") + ") | " +
           fact_text(h, "size.DLManagedTensorVersioned") + " (" +
           fact_text(h, "offset.DLManagedTensorVersioned.dl_tensor") + ") | " +
           std::to_string(devices) + " | " + std::to_string(codes) + " |\n";
    }
    o += "\n## Pairs (row: older, column: newer)\n\n`=` identical · `+` compatible additions · "
         "**L** layout break · `S` source break · `!` not probed\n\n|  |";
    for (const HeaderFacts& h : headers) o += " " + report::markdown_escape(h.label) + " |";
    o += "\n|---|";
    for (size_t i = 0; i < headers.size(); ++i) o += ":-:|";
    o += "\n";
    for (const HeaderFacts& a : headers) {
      o += "| **" + report::markdown_escape(a.label) + "** |";
      for (const HeaderFacts& b : headers) {
        if (&a == &b) {
          o += "  |";
          continue;
        }
        for (const PairReport& p : pairs) {
          if (p.from == a.label && p.to == b.label) o += std::string(" ") + pair_symbol(p.cls) + " |";
        }
      }
      o += "\n";
    }
    o += "\n## Breaks\n\n";
    for (const PairReport& p : pairs) {
      if (p.cls != PairClass::layout_break && p.cls != PairClass::source_break) continue;
      o += "- **" + report::markdown_escape(p.from + " → " + p.to) + "** (" + to_string(p.cls) +
           "): " + report::markdown_escape(p.reasons.front());
      if (p.reasons.size() > 1) o += " (+" + std::to_string(p.reasons.size() - 1) + " more)";
      o += "\n";
    }
    return o;
  } catch (...) {
    return {};
  }
}

}  // namespace dlc
