#include "deploy/runtime_files.h"

// The digest of the embedded files (generated at build time): ccache sees the preprocessed
// source only, so without it a changed runtime archive would not rebuild this file.
#include "deploy_embedded_digest.h"

static_assert(sizeof(TTUNE_EMBED_DIGEST) > 1, "the embedded files have a digest");

#define TTUNE_INCBIN(sym, path)                                                                \
  __asm__(".section .rodata\n.balign 64\n.hidden " #sym "_begin\n.globl " #sym "_begin\n" #sym \
          "_begin:\n.incbin \"" path "\"\n.hidden " #sym "_end\n.globl " #sym "_end\n" #sym    \
          "_end:\n.byte 0\n.previous\n")

TTUNE_INCBIN(ttune_rt_archive, TTUNE_RT_ARCHIVE);
#ifdef TTUNE_RT_AARCH64_ARCHIVE
TTUNE_INCBIN(ttune_rt_aarch64_archive, TTUNE_RT_AARCH64_ARCHIVE);
extern "C" const char ttune_rt_aarch64_archive_begin[], ttune_rt_aarch64_archive_end[];
#endif
TTUNE_INCBIN(ttune_api_header, TTUNE_API_HEADER);
TTUNE_INCBIN(ttune_embedded_header, TTUNE_EMBEDDED_HEADER);

extern "C" const char ttune_rt_archive_begin[], ttune_rt_archive_end[];
extern "C" const char ttune_api_header_begin[], ttune_api_header_end[];
extern "C" const char ttune_embedded_header_begin[], ttune_embedded_header_end[];

namespace ttune::deploy {

std::string_view runtimeArchive() {
  return {ttune_rt_archive_begin, static_cast<size_t>(ttune_rt_archive_end - ttune_rt_archive_begin)};
}
std::string_view runtimeArchiveAArch64() {
#ifdef TTUNE_RT_AARCH64_ARCHIVE
  return {ttune_rt_aarch64_archive_begin,
          static_cast<size_t>(ttune_rt_aarch64_archive_end - ttune_rt_aarch64_archive_begin)};
#else
  return {};
#endif
}
std::string_view apiHeader() {
  return {ttune_api_header_begin, static_cast<size_t>(ttune_api_header_end - ttune_api_header_begin)};
}
std::string_view embeddedHeader() {
  return {ttune_embedded_header_begin, static_cast<size_t>(ttune_embedded_header_end - ttune_embedded_header_begin)};
}

}  // namespace ttune::deploy
