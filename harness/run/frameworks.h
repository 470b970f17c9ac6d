// Real frameworks in the matrix: `dlconform matrix --framework numpy --framework torch` runs
// python/dlconform_frameworks.py through the CPython bridge and adds its cases to the report.
#pragma once

#include <string>
#include <vector>

#include "result.h"

namespace dlc {

// Runs the framework cases of `frameworks` and appends them to `out`. The interpreter is
// $DLCONFORM_PYTHON, else the one the bridge was built for. A framework that cannot be imported
// becomes one skipped case saying why. False, with a one-line `error`, when the driver cannot run
// at all (no bridge built, no interpreter) or prints something that is not a case record.
[[nodiscard]] bool run_framework_cases(const std::vector<std::string>& frameworks,
                                       const std::string& producers_dir, double timeout,
                                       std::vector<CaseResult>* out, RunInfo* info,
                                       std::string* error);

// Parses one tab-separated record of the driver; false if it is malformed.
[[nodiscard]] bool parse_framework_record(const std::string& line, CaseResult* out);

}  // namespace dlc
