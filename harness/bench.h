// `dlconform bench`: cases per second with and without crash isolation, against a bare loop.
#pragma once

namespace dlc {
int bench_main(int argc, char** argv) noexcept;
}  // namespace dlc
