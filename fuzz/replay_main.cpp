// Without libFuzzer, every fuzz target links this main: it replays each file given, or each file
// in each folder given, through LLVMFuzzerTestOneInput and prints TAP. A folder is read at run
// time, so a new crasher in corpus/<target>/regressions needs no reconfigure.
//
// With --mutate SECONDS it fuzzes instead, where no libFuzzer can be had (the GPU machine has no
// clang): the files given are the starting inputs, each execution mutates one of them with the
// target's structure-aware mutator or a byte mutation, with no coverage guidance, and writes it
// to --input-file first, so that a finding's process leaves its input behind.
//   TARGET --mutate SECONDS [--seed N] [--input-file PATH] FILE|FOLDER...
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
// The largest input a target reads, when it says: a longer corpus file is malformed (it would
// replay as a different, truncated input). Weak: a target without it takes any size.
extern "C" size_t dlc_fuzz_max_input_bytes() __attribute__((weak));
// Tells the harness which file runs, for the reproduce line of a finding.
extern "C" void dlc_fuzz_set_input_file(const char* path) __attribute__((weak));
// The target's structure-aware mutator, where it has one.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) __attribute__((weak));

namespace {

bool g_mutating = false;

// The longest input a mutation may make.
constexpr size_t kDefaultMaxInputBytes = 4096;

struct MutateOptions {
  double seconds = -1;  // < 0: replay
  unsigned seed = 1;
  std::string input_file = "dlconform-mutated-input.bin";
};

bool parse_number(const char* text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text, &end);
  return end != text && *end == '\0' && *out >= 0;
}

// Takes --mutate, --seed and --input-file out of argv; false (after one line) when one is bad.
bool take_mutate_options(int* argc, char** argv, MutateOptions* options) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--mutate" || flag == "--seed" || flag == "--input-file") {
      if (i + 1 >= *argc) {
        std::fprintf(stderr, "replay: expected a value after %s but found none\n", flag.c_str());
        return false;
      }
      const char* value = argv[++i];
      double number = 0;
      if (flag == "--input-file") {
        options->input_file = value;
      } else if (!parse_number(value, &number)) {
        std::fprintf(stderr, "replay: expected a number of %s after %s but found '%s'\n",
                     flag == "--mutate" ? "seconds" : "a seed", flag.c_str(), value);
        return false;
      } else if (flag == "--mutate") {
        options->seconds = number;
      } else {
        options->seed = static_cast<unsigned>(number);
      }
      continue;
    }
    argv[kept++] = argv[i];
  }
  *argc = kept;
  return true;
}

// A byte-level mutation: a bit flipped, a byte set to an edge value, or a byte inserted or
// dropped; where the target has no mutator of its own, and for half of the executions otherwise.
void mutate_bytes(std::vector<uint8_t>& bytes, size_t max_size, std::minstd_rand& rng) {
  static constexpr uint8_t kEdges[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
  if (bytes.empty()) bytes.push_back(0);
  const size_t at = rng() % bytes.size();
  switch (rng() % 4) {
    case 0: bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
    case 1: bytes[at] = kEdges[rng() % sizeof kEdges]; break;
    case 2:
      if (bytes.size() < max_size) bytes.insert(bytes.begin() + at, static_cast<uint8_t>(rng()));
      break;
    default:
      if (bytes.size() > 1) bytes.erase(bytes.begin() + at);
      break;
  }
}

bool write_input(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// The --mutate loop. A finding ends the process in the harness (its report names the input
// file); returning means none was found.
int mutate(const std::vector<std::vector<uint8_t>>& inputs, const MutateOptions& options) {
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: expected at least one starting input for --mutate but found "
                         "none\n");
    return 1;
  }
  const size_t max_size = dlc_fuzz_max_input_bytes != nullptr ? dlc_fuzz_max_input_bytes()
                                                               : kDefaultMaxInputBytes;
  if (!write_input(options.input_file, inputs[0])) {
    std::fprintf(stderr, "replay: expected a writable --input-file but found %s: %s\n",
                 options.input_file.c_str(), std::strerror(errno));
    return 1;
  }
  if (dlc_fuzz_set_input_file != nullptr) dlc_fuzz_set_input_file(options.input_file.c_str());
  std::minstd_rand rng(options.seed);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point next_progress = start + std::chrono::seconds(10);
  uint64_t executions = 0;
  std::vector<uint8_t> bytes;
  for (;;) {
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (elapsed >= options.seconds) break;
    if (now >= next_progress) {
      std::printf("dlconform fuzz: mutate: %llu executions, %.0f exec/s\n",
                  static_cast<unsigned long long>(executions), executions / elapsed);
      std::fflush(stdout);
      next_progress = now + std::chrono::seconds(10);
    }
    bytes = inputs[rng() % inputs.size()];
    const unsigned rounds = 1 + rng() % 3;
    for (unsigned r = 0; r < rounds; ++r) {
      if (LLVMFuzzerCustomMutator != nullptr && rng() % 2 == 0) {
        const size_t original = bytes.size();
        bytes.resize(std::max(max_size, original));
        bytes.resize(LLVMFuzzerCustomMutator(bytes.data(), original, bytes.size(),
                                             static_cast<unsigned>(rng())));
      } else {
        mutate_bytes(bytes, max_size, rng);
      }
    }
    if (bytes.size() > max_size) bytes.resize(max_size);
    if (!write_input(options.input_file, bytes)) {
      std::fprintf(stderr, "replay: cannot write %s: %s\n", options.input_file.c_str(),
                   std::strerror(errno));
      return 1;
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++executions;
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("dlconform fuzz: mutate: %llu executions in %.1f s (%.0f exec/s) from %zu "
              "inputs, seed %u: no finding\n",
              static_cast<unsigned long long>(executions), elapsed,
              elapsed > 0 ? executions / elapsed : 0.0, inputs.size(), options.seed);
  return 0;
}

}  // namespace

// Whether this run fuzzes (--mutate): the harness then says what it fuzzes, as under libFuzzer.
extern "C" bool dlc_fuzz_mutating() { return g_mutating; }

int main(int argc, char** argv) {
  MutateOptions options;
  if (!take_mutate_options(&argc, argv, &options)) return 2;
  g_mutating = options.seconds >= 0;
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
  if (g_mutating) return mutate(inputs, options);
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
