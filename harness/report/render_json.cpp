// The JSON report: the complete record, for tools. Keys are written in a fixed order and cases in
// input order, so two runs of the same matrix diff line by line.
#include "report.h"
#include "report_model.h"
#include "report_text.h"

namespace dlc {

std::string json_string(std::string_view raw) { return report::json_quote(raw); }

std::string render_json(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept {
  try {
    using report::JsonWriter;
    const report::Summary s = report::summarise(cases);
    JsonWriter w;
    w.begin_object();
    w.key("tool").value("dlconform");

    w.key("run").begin_object();
    w.key("tool_version").value(info.tool_version);
    if (info.details) {
      w.key("started_at").value(info.started_at);
      w.key("machine").value(info.machine);
      w.key("wall_seconds").value(info.wall_seconds);
      w.key("jobs").value(info.jobs);
    }
    w.key("parties").begin_array();
    for (const PartyInfo& p : info.parties) {
      w.begin_object();
      w.key("label").value(p.label).key("role").value(p.role).key("builtin").value(p.builtin);
      w.key("profile").value(p.profile);
      if (info.details) w.key("path").value(p.path);
      w.end_object();
    }
    w.end_array();
    w.key("notes").begin_array();
    for (const std::string& n : info.notes) w.value(n);
    w.end_array();
    w.end_object();

    w.key("summary").begin_object();
    w.key("cases").value(s.cases);
    w.key("as_expected").value(s.as_expected);
    w.key("unexpected").value(s.unexpected);
    w.key("known").value(s.known);
    if (s.unavailable > 0) w.key("unavailable").value(s.unavailable);
    w.key("hardening").value(s.hardening).key("hardening_unexpected").value(s.hardening_unexpected);
    // Every verdict, zeros included, so a consumer of the report can index without checking.
    w.key("by_verdict").begin_object();
    for (Verdict v :
         {Verdict::pass, Verdict::fail, Verdict::crash, Verdict::timeout, Verdict::skip}) {
      w.key(to_string(v)).value(s.by_verdict[static_cast<size_t>(v)]);
    }
    w.end_object();
    w.end_object();

    // Every suppression entry and what it matched: its classes (with the role) and its cases.
    w.key("suppressions").begin_array();
    for (const SuppressionUse& u : info.suppressions) {
      w.begin_object();
      w.key("where").value(u.where).key("entry").value(u.entry);
      w.key("form").value(u.old_form ? "old" : "new");
      w.key("matched").value(u.matched);
      if (u.stale) w.key("stale").value(true);
      w.key("classes").begin_object();
      for (const auto& [cls, n] : u.classes) w.key(cls).value(n);
      w.end_object();
      if (!u.unnamed.empty()) {
        w.key("unnamed_classes").begin_object();
        for (const auto& [cls, n] : u.unnamed) w.key(cls).value(n);
        w.end_object();
        w.key("unnamed_cases").begin_array();
        for (const std::string& id : u.unnamed_cases) w.value(id);
        w.end_array();
      }
      w.key("cases").begin_array();
      for (const std::string& id : u.cases) w.value(id);
      w.end_array();
      w.end_object();
    }
    w.end_array();

    w.key("cases").begin_array();
    for (const CaseResult& c : cases) {
      w.begin_object();
      w.key("id").value(c.id);
      w.key("scenario").value(c.scenario);
      w.key("producer").begin_object();
      w.key("name").value(c.producer.name).key("header").value(c.producer.header);
      w.end_object();
      w.key("consumer").begin_object();
      w.key("name").value(c.consumer.name).key("header").value(c.consumer.header);
      w.end_object();
      w.key("tensor").value(c.tensor);
      w.key("verdict").value(to_string(c.verdict));
      w.key("expected").value(to_string(c.expected));
      w.key("finding_class").value(c.finding_class);
      w.key("expected_class").value(c.expected_class);
      w.key("expected_rule").value(c.expected_rule);
      w.key("rule_id").value(c.rule_id);
      if (!c.role.empty()) w.key("role").value(c.role);
      if (c.hardening) w.key("hardening").value(true);
      w.key("severity").value(c.severity);
      w.key("detail").value(c.detail);
      w.key("known").value(c.known);
      if (c.known) w.key("known_reason").value(c.known_reason).key("known_by").value(c.known_by);
      if (c.unavailable) w.key("unavailable").value(true);
      w.key("as_expected").value(c.as_expected());
      if (info.details) {
        w.key("seconds").value(c.seconds).key("handoff_seconds").value(c.handoff_seconds);
      }
      w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.text();
  } catch (...) {  // std::bad_alloc: nothing sensible can be written
    return {};
  }
}

}  // namespace dlc
