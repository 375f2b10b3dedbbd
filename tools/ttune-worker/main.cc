// ttune-worker: the measurement worker process started by measure::Runner. Not for direct use.
// Requests come on file descriptor 3 and answers go to 4; with --stdio (a worker started on
// another host through ssh) on stdin and stdout.
#include <cstring>

#include "measure/runner.h"

int main(int argc, char** argv) {
  bool stdio = argc > 1 && std::strcmp(argv[1], "--stdio") == 0;
  return ttune::measure::workerMain(stdio);
}
