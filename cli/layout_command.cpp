// `dlconform layout`: probe every built-in header and every --header as C and C++, classify each
// pair, write the reports (report/layout_report.h) and print a summary.
#include <cstdio>
#include <future>
#include <map>

#include "exit_codes.h"
#include "layout.h"
#include "layout_report.h"
#include "options.h"
#include "report.h"

namespace dlc::cli {
namespace {

int run(int argc, char** argv) {
  LayoutCommand o;
  const Parsed parsed = parse_layout(argc, argv, &o);
  if (parsed.status == ParseStatus::help) {
    std::fputs(kLayoutUsage, stdout);
    return kExitOk;
  }
  if (parsed.status == ParseStatus::error) {
    std::fprintf(stderr, "dlconform layout: %s\n%s", parsed.message.c_str(), kLayoutUsage);
    return kExitUsage;
  }
  for (const std::string* path : {&o.json, &o.markdown}) {
    std::string error;
    if (!path->empty() && !write_file_atomic(*path + ".probe", "", &error)) {
      std::fprintf(stderr, "dlconform layout: %s\n", error.c_str());
      return kExitHarnessError;
    }
    if (!path->empty()) std::remove((*path + ".probe").c_str());
  }
  std::vector<std::pair<std::string, std::string>> all = builtin_headers();
  const size_t builtin = all.size();
  for (const std::string& h : o.headers) all.emplace_back(h, h);
  std::vector<std::future<HeaderFacts>> jobs;
  for (const auto& [label, path] : all) {
    jobs.push_back(std::async(std::launch::async, probe_header, label, path, o.cc, o.cxx));
  }
  std::vector<HeaderFacts> headers;
  for (auto& j : jobs) headers.push_back(j.get());
  // A header that cannot be probed stops the run before any report is written: a report that
  // silently lacks the header a user asked about would read as a clean bill of health.
  for (const HeaderFacts& h : headers) {
    if (!h.error.empty()) {
      std::fprintf(stderr, "dlconform layout: %s: %s\n", h.path.c_str(), h.error.c_str());
      return kExitHarnessError;
    }
  }
  std::vector<PairReport> pairs;
  for (const HeaderFacts& a : headers) {
    for (const HeaderFacts& b : headers) {
      if (&a != &b) pairs.push_back(classify(a, b));
    }
  }
  for (const auto& [path, text] :
       {std::make_pair(o.json, render_layout_json(headers, pairs, o.run_details)),
        std::make_pair(o.markdown, render_layout_markdown(headers, pairs))}) {
    std::string error;
    if (!path.empty() && !write_file_atomic(path, text, &error)) {
      std::fprintf(stderr, "dlconform layout: %s\n", error.c_str());
      return kExitHarnessError;
    }
  }
  if (!o.quiet) {
    std::printf("dlconform layout: %zu headers probed as C and C++\n", headers.size());
    std::printf("  %-28s %-4s %-4s %9s %16s %17s\n", "header", "C", "C++", "DLTensor",
                "DLManagedTensor", "...Versioned");
    for (const HeaderFacts& h : headers) {
      std::printf("  %-28s %-4s %-4s %9s %16s %17s\n", h.label.substr(0, 28).c_str(),
                  h.compiles_c ? "yes" : "no", h.compiles_cxx ? "yes" : "no",
                  fact_text(h, "size.DLTensor").c_str(), fact_text(h, "size.DLManagedTensor").c_str(),
                  fact_text(h, "size.DLManagedTensorVersioned").c_str());
    }
    std::map<std::string, int> counts;
    for (const PairReport& p : pairs) ++counts[to_string(p.cls)];
    std::printf("  pairs:");
    for (const auto& [name, n] : counts) std::printf(" %d %s", n, name.c_str());
    std::printf("\n");
    // For each header the user passed: the built-in headers it matches, else how v1.3 differs.
    for (size_t i = builtin; i < headers.size(); ++i) {
      const HeaderFacts& h = headers[i];
      std::string same;
      for (size_t k = 0; k < builtin; ++k) {
        if (classify(headers[k], h).cls == PairClass::identical) same += " " + headers[k].label;
      }
      const HeaderFacts* newest = &headers.front();
      for (const HeaderFacts& b : headers) {
        if (b.label == "v1.3") newest = &b;
      }
      const PairReport p = classify(*newest, h);
      if (!same.empty()) {
        std::printf("  %s: same layout and declarations as%s\n", h.label.c_str(), same.c_str());
      } else {
        std::printf("  %s vs %s: %s%s%s\n", h.label.c_str(), p.from.c_str(), to_string(p.cls),
                    p.reasons.empty() ? "" : ": ", p.reasons.empty() ? "" : p.reasons[0].c_str());
      }
    }
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

int layout_main(int argc, char** argv) noexcept {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlconform layout: internal error: %s\n", e.what());
    return kExitHarnessError;
  } catch (...) {
    std::fprintf(stderr, "dlconform layout: internal error\n");
    return kExitHarnessError;
  }
}

}  // namespace dlc::cli
