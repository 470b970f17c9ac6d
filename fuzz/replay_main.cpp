// Without libFuzzer, every fuzz target links this main: it replays each file given, or each file
// in each folder given, through LLVMFuzzerTestOneInput and prints TAP. A folder is read at run
// time, so a new crasher in corpus/<target>/regressions needs no reconfigure.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
// The largest input a target reads, when it says: a longer corpus file is malformed (it would
// replay as a different, truncated input). Weak: a target without it takes any size.
extern "C" size_t dlc_fuzz_max_input_bytes() __attribute__((weak));
// Tells the harness which file runs, for the reproduce line of a finding.
extern "C" void dlc_fuzz_set_input_file(const char* path) __attribute__((weak));

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (std::filesystem::is_directory(argv[i], ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i], ec)) {
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.' &&
            entry.path().extension() != ".md") {
          files.push_back(entry.path().string());
        }
      }
    } else if (std::filesystem::is_regular_file(argv[i], ec)) {
      files.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 1;
    }
  }
  std::sort(files.begin(), files.end());
  // Every file is read and checked before the first one runs, so a bad corpus is reported
  // in one line instead of halfway through a replay.
  std::vector<std::vector<uint8_t>> inputs;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read corpus file %s\n", file.c_str());
      return 1;
    }
    inputs.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
      std::fprintf(stderr, "replay: cannot read corpus file %s\n", file.c_str());
      return 1;
    }
    if (dlc_fuzz_max_input_bytes != nullptr && inputs.back().size() > dlc_fuzz_max_input_bytes()) {
      std::fprintf(stderr,
                   "replay: malformed corpus file %s: expected at most %zu bytes but found %zu\n",
                   file.c_str(), dlc_fuzz_max_input_bytes(), inputs.back().size());
      return 1;
    }
  }
  std::printf("1..%zu\n", files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const std::vector<uint8_t>& bytes = inputs[i];
    if (dlc_fuzz_set_input_file != nullptr) dlc_fuzz_set_input_file(files[i].c_str());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::printf("ok %zu - %s\n", i + 1, files[i].c_str());
  }
  return 0;
}
