// ttune: the command-line program. All behaviour lives in the library (src/cli).
#include "cli/cli.h"

int main(int argc, char** argv) { return ttune::cli::run(argc, argv); }
