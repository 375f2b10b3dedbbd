// The weights file of an exported model (NAME.weights): every weight the execution plan reads
// (constants, and constants packed into the layouts the schedules chose), in plan order, each at
// a 64-byte aligned offset, behind a header with their sizes and a digest of their bytes. The
// library embeds the digest, so the weights of another export, or a damaged or truncated file,
// are refused with the reason instead of producing wrong outputs. Standard library only
// (compiled into exported runtimes).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace ttune::deploy {

// A fast non-cryptographic 64-bit digest (corruption and mix-ups, not attacks).
class WeightsDigest {
 public:
  void add(const void* data, size_t bytes);
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

struct WeightSpan {
  const void* data;
  int64_t bytes;
};

uint64_t weightsDigest(const std::vector<WeightSpan>& weights);

// Writes the file; false with one sentence naming the file on failure.
bool writeWeightsFile(const std::string& path, const std::vector<WeightSpan>& weights, uint64_t digest,
                      std::string& error);

enum class LoadStatus { Ok, IoError, Corrupt, OutOfMemory };

struct LoadedWeights {
  std::unique_ptr<char, void (*)(void*)> data{nullptr, &std::free};  // the whole file, 64-byte aligned
  std::vector<void*> ptrs;                                           // one per weight, 64-byte aligned
};

// Reads and checks the file against what the plan needs (`expected_bytes` per weight) and the
// digest the library holds; on failure, one sentence naming the file and what is wrong.
LoadStatus loadWeightsFile(const std::string& path, const std::vector<int64_t>& expected_bytes,
                           uint64_t expected_digest, LoadedWeights& out, std::string& error);

}  // namespace ttune::deploy
