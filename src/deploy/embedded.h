/* The data an exported library embeds for its runtime: the kernel table and the model image
 * (deploy/image.h: name, target, required CPU features, weights digest, execution plan).
 * `ttune export` generates one C file defining ttune_embedded; the runtime (capi.cc) reads it.
 * Plain C: the generated file is compiled by the export host's C compiler. Hidden: every exported
 * library has its own, and a static archive localizes it. */
#ifndef TTUNE_DEPLOY_EMBEDDED_H
#define TTUNE_DEPLOY_EMBEDDED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when this struct changes; the runtime refuses a library generated for another layout. */
#define TTUNE_EMBEDDED_VERSION 1

typedef void (*ttune_kernel_fn)(void** args);

struct ttune_embedded_model {
  uint32_t version;
  uint32_t num_kernels;
  const ttune_kernel_fn* kernels;
  const unsigned char* image;
  uint64_t image_bytes;
};

extern const struct ttune_embedded_model ttune_embedded __attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif

#endif /* TTUNE_DEPLOY_EMBEDDED_H */
