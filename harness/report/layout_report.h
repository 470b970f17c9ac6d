// The layout report (`dlconform layout`): what each header declares and how each pair of
// headers relates, as JSON (through the same JSON writer as the matrix report) and Markdown.
#pragma once

#include <string>
#include <vector>

#include "layout.h"

namespace dlc {

// Paths are left out unless `details`: a committed report must not carry this machine's paths.
std::string render_layout_json(const std::vector<HeaderFacts>& headers,
                               const std::vector<PairReport>& pairs, bool details) noexcept;
std::string render_layout_markdown(const std::vector<HeaderFacts>& headers,
                                   const std::vector<PairReport>& pairs) noexcept;

// A fact's value, or "—" when the header does not declare it.
std::string fact_text(const HeaderFacts& h, const std::string& key);

}  // namespace dlc
