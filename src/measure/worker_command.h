// Where a target's candidates are measured: the command that starts a measurement worker for it.
//
//   * this machine's code: the local `ttune-worker` (relocatable objects, loaded by its JIT);
//   * $TTUNE_WORKER_COMMAND, e.g. "ssh board /opt/ttune/ttune-worker": a worker on the device,
//     started through ssh and spoken to on its stdin/stdout (--stdio is appended); candidates go
//     as shared objects linked here, since a device worker has no LLVM;
//   * AArch64 code on an x86-64 machine without such a command: the cross-built worker under QEMU
//     user emulation ($TTUNE_EMULATOR, default "qemu-aarch64 -L /usr/aarch64-linux-gnu"). Its
//     timings are emulated: they check that the flow and the code work, and are never stored as
//     measurements of the target (docs/edge.md).
#pragma once

#include <string>
#include <vector>

#include "schedule/target.h"
#include "support/expected.h"

namespace ttune::measure {

struct WorkerCommand {
  std::vector<std::string> argv;  // program and arguments (a program without '/' is searched in PATH)
  bool stdio = false;             // requests on the worker's stdin, answers on its stdout (else fds 3/4)
  bool shared_objects = false;    // candidates are linked into shared objects before they are sent
  bool emulated = false;          // timings come from an emulator, not the target's hardware
  double timeout_scale = 1;       // emulation is tens of times slower than the hardware
  std::string describe() const;   // "qemu-aarch64 -L ... ttune-worker (emulated)"
};

// The worker for `target`, or the reason (one sentence) no worker can measure it here.
Expected<WorkerCommand> workerCommandFor(const schedule::Target& target);

}  // namespace ttune::measure
