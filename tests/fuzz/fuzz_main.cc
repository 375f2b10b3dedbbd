// A small stand-in for libFuzzer's driver, for the test suite's smoke runs (built with the
// project's compiler, no sanitizers): runs every seed of a corpus folder through the target, then
// mutates seeds (bit flips, byte changes, insertions, deletions, splices of two seeds) for a
// given number of seconds, with a seeded generator so that a failure can be replayed. A crash
// fails the test; the input is written to `crash-<n>` in the current folder first.
//
//   fuzz_<target> CORPUS_DIR [SECONDS] [SEED]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz_targets.h"

namespace {

std::vector<uint8_t> readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void run(const std::vector<uint8_t>& input, uint64_t n) {
  // Saved before running: if the target crashes, the input that did it is on disk.
  {
    std::ofstream out("crash-" + std::to_string(n), std::ios::binary);
    out.write(reinterpret_cast<const char*>(input.data()), static_cast<std::streamsize>(input.size()));
  }
  LLVMFuzzerTestOneInput(input.data(), input.size());
  std::remove(("crash-" + std::to_string(n)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR [SECONDS] [SEED]\n";
    return 2;
  }
  double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  std::vector<std::vector<uint8_t>> corpus;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(argv[1], ec))
    if (e.is_regular_file()) corpus.push_back(readFile(e.path()));
  if (corpus.empty()) {
    std::cerr << "no seed inputs in " << argv[1] << "\n";
    return 1;
  }
  uint64_t n = 0;
  for (const auto& c : corpus) run(c, n++);
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t k) { return static_cast<size_t>(rng() % std::max<size_t>(k, 1)); };
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    std::vector<uint8_t> x = corpus[pick(corpus.size())];
    int edits = 1 + static_cast<int>(pick(8));
    for (int e = 0; e < edits; ++e) {
      switch (pick(6)) {
        case 0:
          if (!x.empty()) x[pick(x.size())] ^= static_cast<uint8_t>(1u << pick(8));
          break;
        case 1:
          if (!x.empty()) x[pick(x.size())] = static_cast<uint8_t>(rng());
          break;
        case 2:
          x.insert(x.begin() + static_cast<long>(pick(x.size() + 1)), static_cast<uint8_t>(rng()));
          break;
        case 3:
          if (!x.empty()) x.erase(x.begin() + static_cast<long>(pick(x.size())));
          break;
        case 4: {  // interesting values at a random place
          static const uint8_t vals[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', '"', '[', '{', ':', ','};
          if (!x.empty()) x[pick(x.size())] = vals[pick(sizeof vals)];
          break;
        }
        default: {  // splice in a piece of another seed
          const auto& y = corpus[pick(corpus.size())];
          if (y.empty()) break;
          size_t from = pick(y.size()), len = 1 + pick(std::min<size_t>(y.size() - from, 64));
          x.insert(x.begin() + static_cast<long>(pick(x.size() + 1)), y.begin() + static_cast<long>(from),
                   y.begin() + static_cast<long>(from + len));
        }
      }
    }
    run(x, n++);
  }
  std::cout << argv[0] << ": " << n << " inputs, no failure (seed " << seed << ")\n";
  return 0;
}
