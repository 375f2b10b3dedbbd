// The files `ttune export` links into or ships with every exported model, built with ttune and
// embedded in it (so an installed ttune exports without its build tree): the runtime archive
// (thread pool, kernel ABI, plan interpreter, C API; deploy/deploy.cmake builds it), the public
// C header and the header of the generated model tables.
#pragma once

#include <string_view>

namespace ttune::deploy {

std::string_view runtimeArchive();  // libttune_rt.a
// libttune_rt.a cross-built for AArch64 Linux; empty when ttune was built without the cross
// toolchain (g++-aarch64-linux-gnu).
std::string_view runtimeArchiveAArch64();
std::string_view apiHeader();       // include/ttune/ttune_model.h
std::string_view embeddedHeader();  // deploy/embedded.h

}  // namespace ttune::deploy
