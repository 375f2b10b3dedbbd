// ttune-worker: the measurement worker process started by measure::Runner. Not for direct use.
#include "measure/runner.h"

int main() { return ttune::measure::workerMain(); }
