/* run_model: runs a model exported by `ttune export` on NumPy .npy inputs and writes its outputs
 * as .npy files, through the C API only (ttune_model.h), so it works for any exported model.
 *
 *   run_model DIR in0.npy [in1.npy ...] -o out0.npy [out1.npy ...] [--threads N] [--repeat N]
 *
 * DIR is the export directory (libNAME.so, NAME.weights). Build: see Makefile. With --repeat N
 * it also prints the median latency of N runs. A model exported for ranges of sizes
 * (`ttune export --dim seq=1..512`) takes inputs of any size in them: the .npy files' shapes are
 * passed to ttune_model_run_shaped, and each output is written at the shape
 * ttune_model_output_shape gives. Exit status 1 on any error, with one line saying what is wrong. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ttune_model.h"

static const char* npy_descr(int dtype) {
  switch (dtype) {
    case TTUNE_FLOAT32:
      return "<f4";
    case TTUNE_INT32:
      return "<i4";
    case TTUNE_INT64:
      return "<i8";
    case TTUNE_BOOL:
      return "|b1";
    case TTUNE_INT8:
      return "|i1";
    case TTUNE_UINT8:
      return "|u1";
    case TTUNE_INT16:
      return "<i2";
    case TTUNE_UINT16:
      return "<u2";
    case TTUNE_UINT32:
      return "<u4";
    case TTUNE_UINT64:
      return "<u8";
    case TTUNE_FLOAT64:
      return "<f8";
    case TTUNE_FLOAT16:
      return "<f2";
    case TTUNE_BFLOAT16:
      return "<u2"; /* numpy has no bfloat16: its bits */
  }
  return "?";
}

static int64_t elem_bytes(int dtype) {
  const char* d = npy_descr(dtype);
  return d[2] - '0';
}

/* Parses the shape tuple of a compacted .npy header into shape[]; returns its rank, or -1. */
static int parse_shape(const char* compact, int64_t* shape, int max_rank) {
  const char* p = strstr(compact, "'shape':(");
  if (!p) return -1;
  p += 9;
  int rank = 0;
  while (*p && *p != ')') {
    char* end;
    long long v = strtoll(p, &end, 10);
    if (end == p || rank == max_rank || v < 0) return -1;
    shape[rank++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  return *p == ')' ? rank : -1;
}

/* Reads an .npy file (format 1.x/2.x, C order) of info's dtype and rank whose shape agrees with
 * info's (a -1 there takes any length: a size of the model's ranges); fills shape[] and returns a
 * malloc'ed buffer, or NULL after printing why. */
static void* read_npy(const char* path, const ttune_tensor_info* info, int64_t* shape) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open %s\n", path);
    return NULL;
  }
  unsigned char pre[10];
  void* data = NULL;
  char* header = NULL;
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "run_model: %s is not a .npy file\n", path);
    goto done;
  }
  size_t hlen;
  if (pre[6] == 1) {
    if (fread(pre + 8, 1, 2, f) != 2) goto truncated;
    hlen = pre[8] | (size_t)pre[9] << 8;
  } else {
    unsigned char l[4];
    if (fread(l, 1, 4, f) != 4) goto truncated;
    hlen = l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
  }
  header = calloc(hlen + 1, 1);
  if (!header || fread(header, 1, hlen, f) != hlen) goto truncated;
  /* Compare the header without spaces: numpy writes "(1, 3, 224, 224)". */
  char compact[1024];
  size_t n = 0;
  for (size_t i = 0; header[i] && n + 1 < sizeof compact; ++i)
    if (header[i] != ' ') compact[n++] = header[i];
  compact[n] = 0;
  char want_descr[32];
  snprintf(want_descr, sizeof want_descr, "'descr':'%s'", npy_descr(info->dtype));
  int ok = strstr(compact, want_descr) && strstr(compact, "'fortran_order':False") &&
           parse_shape(compact, shape, info->ndim) == info->ndim;
  int64_t elements = 1;
  for (int d = 0; ok && d < info->ndim; ++d) {
    ok = info->shape[d] < 0 || shape[d] == info->shape[d];
    elements *= shape[d];
  }
  if (!ok) {
    fprintf(stderr,
            "run_model: %s must hold %s of rank %d in C order with input %s's fixed dimensions, its header is %s\n",
            path, npy_descr(info->dtype), info->ndim, info->name, compact);
    goto done;
  }
  size_t bytes = (size_t)(elements * elem_bytes(info->dtype));
  data = malloc(bytes > 0 ? bytes : 1);
  if (!data || fread(data, 1, bytes, f) != bytes) {
    free(data);
    data = NULL;
    goto truncated;
  }
  goto done;
truncated:
  fprintf(stderr, "run_model: %s is truncated\n", path);
done:
  free(header);
  fclose(f);
  return data;
}

/* Writes a format 1.0 .npy file of info's dtype and this shape; returns 0 on success. */
static int write_npy(const char* path, const ttune_tensor_info* info, const int64_t* shape, const void* data) {
  char header[512];
  int len =
      snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_descr(info->dtype));
  int64_t elements = 1;
  for (int d = 0; d < info->ndim; ++d) {
    len += snprintf(header + len, sizeof header - (size_t)len,
                    d + 1 < info->ndim || info->ndim == 1 ? "%lld, " : "%lld", (long long)shape[d]);
    elements *= shape[d];
  }
  size_t bytes = (size_t)(elements * elem_bytes(info->dtype));
  len += snprintf(header + len, sizeof header - (size_t)len, "), }");
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE* f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "run_model: cannot write %s\n", path);
    return 1;
  }
  unsigned short hlen = (unsigned short)(len + pad + 1);
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)len, f) == (size_t)len;
  for (int i = 0; ok && i < pad; ++i) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(data, 1, bytes, f) == bytes;
  ok = fclose(f) == 0 && ok;
  if (!ok) fprintf(stderr, "run_model: cannot write %s\n", path);
  return !ok;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (ttune_abi_version() != TTUNE_ABI_VERSION) {
    fprintf(stderr, "run_model: the library implements C API version %d, this program was built for %d\n",
            ttune_abi_version(), TTUNE_ABI_VERSION);
    return 1;
  }
  const char* dir = NULL;
  const char* in_paths[64];
  const char* out_paths[64];
  int n_in = 0, n_out = 0, threads = 0, repeat = 0, to_outputs = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-o"))
      to_outputs = 1;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!dir)
      dir = argv[i];
    else if (to_outputs && n_out < 64)
      out_paths[n_out++] = argv[i];
    else if (!to_outputs && n_in < 64)
      in_paths[n_in++] = argv[i];
  }
  if (!dir) {
    fprintf(stderr, "usage: run_model DIR in0.npy [in1.npy ...] -o out0.npy [...] [--threads N] [--repeat N]\n");
    return 2;
  }
  ttune_model* m = ttune_model_create(dir, threads);
  if (!m) {
    fprintf(stderr, "run_model: %s\n", ttune_last_error());
    return 1;
  }
  int ni = ttune_model_num_inputs(m), no = ttune_model_num_outputs(m);
  if (n_in != ni || n_out > no) {
    fprintf(stderr, "run_model: model %s takes %d inputs and has %d outputs; got %d input and %d output files\n",
            ttune_model_name(m), ni, no, n_in, n_out);
    ttune_model_destroy(m);
    return 1;
  }
  void* inputs[64] = {0};
  void* outputs[64] = {0};
  int64_t in_shapes[64][16], out_shapes[64][16];
  const int64_t* shapes[64];
  ttune_tensor_info info;
  int status = 1;
  for (int i = 0; i < ni; ++i) {
    ttune_model_input_info(m, i, &info);
    shapes[i] = in_shapes[i];
    if (info.ndim > 16) {
      fprintf(stderr, "run_model: input %s has more than 16 dimensions\n", info.name);
      goto cleanup;
    }
    if (!(inputs[i] = read_npy(in_paths[i], &info, in_shapes[i]))) goto cleanup;
  }
  for (int i = 0; i < no; ++i) {
    ttune_model_output_info(m, i, &info);
    /* The output's shape at the inputs' sizes (its declared one for a model of one size). */
    if (info.ndim > 16 || ttune_model_output_shape(m, shapes, i, out_shapes[i]) != TTUNE_OK) {
      fprintf(stderr, "run_model: %s\n", info.ndim > 16 ? "an output has more than 16 dimensions" : ttune_last_error());
      goto cleanup;
    }
    if (!(outputs[i] = malloc(info.bytes > 0 ? (size_t)info.bytes : 1))) goto cleanup;
  }
  if (ttune_model_run_shaped(m, ni, (const void* const*)inputs, shapes, no, outputs) != TTUNE_OK) {
    fprintf(stderr, "run_model: %s\n", ttune_last_error());
    goto cleanup;
  }
  if (repeat > 0) {
    double* t = malloc(sizeof(double) * (size_t)repeat);
    for (int r = 0; t && r < repeat; ++r) {
      double t0 = now_s();
      ttune_model_run_shaped(m, ni, (const void* const*)inputs, shapes, no, outputs);
      t[r] = now_s() - t0;
    }
    if (t) {
      qsort(t, (size_t)repeat, sizeof(double), cmp_double);
      printf("%s: median %.3f ms over %d runs on %d threads\n", ttune_model_name(m), t[repeat / 2] * 1e3, repeat,
             ttune_model_threads(m));
    }
    free(t);
  }
  status = 0;
  for (int i = 0; i < n_out && !status; ++i) {
    ttune_model_output_info(m, i, &info);
    status = write_npy(out_paths[i], &info, out_shapes[i], outputs[i]);
  }
cleanup:
  for (int i = 0; i < 64; ++i) {
    free(inputs[i]);
    free(outputs[i]);
  }
  ttune_model_destroy(m);
  return status;
}
