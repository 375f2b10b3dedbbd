#!/usr/bin/env python3
"""Make a copy of onnxruntime-node whose ONNX Runtime runs its AVX2 kernels on an AVX-512 host.

ONNX Runtime's MLAS picks its kernels at load time from CPUID and from XCR0, the register that
says which vector states the operating system saves (read with the `xgetbv` instruction): the
AVX-512 kernels only when XCR0 has the opmask and ZMM bits (0xE0), the AVX2/FMA kernels when it
has the YMM bit. Unlike PyTorch (ATEN_CPU_CAPABILITY) and oneDNN (ONEDNN_MAX_CPU_ISA) it has no
switch. This script copies the installed package (hard links) and, in the copy's
libonnxruntime only, replaces every `xgetbv` instruction (0f 01 d0; found by disassembly, so only
real instructions) with `push 7; pop rax` (6a 07 58, the same length): XCR0 then reads as
x87 | SSE | AVX, what an OS that saves no AVX-512 state reports, and every feature check in the
library (MLAS's, ORT's own CPU-info and the bundled cpuinfo's) takes the path it takes on an AVX2
machine. Only XCR0's low bits are ever tested, so the high half (edx) is left as it was.

The ONNX Runtime column of `bench_models.py --peer-isa avx2` uses this copy. Nothing else does.

Usage: ort_avx2.py PEERS_DIR OUT_DIR   (e.g. build/bench-peers build/bench-peers-avx2)
Exit 1 with one sentence when the package or objdump is missing or no xgetbv is found.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

XGETBV = bytes.fromhex("0f01d0")
PUSH7_POP_RAX = bytes.fromhex("6a0758")


def fail(msg):
    print(f"ort_avx2: {msg}", file=sys.stderr)
    sys.exit(1)


def sections(lib):
    """(vma, size, file offset) of every section objdump lists."""
    out = subprocess.run(["objdump", "-h", lib], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].isdigit():
            rows.append((int(f[3], 16), int(f[2], 16), int(f[5], 16)))
    return rows


def xgetbv_offsets(lib):
    # The disassembly of the library runs to hundreds of MB: streamed, not held.
    pattern = re.compile(r"^\s*([0-9a-f]+):\s+0f 01 d0\s+xgetbv")
    addrs = []
    with subprocess.Popen(["objdump", "-d", lib], stdout=subprocess.PIPE, text=True) as p:
        for line in p.stdout:
            if "xgetbv" in line and (m := pattern.match(line)):
                addrs.append(int(m.group(1), 16))
    if p.returncode != 0:
        fail(f"objdump could not disassemble {lib}")
    secs = sections(lib)
    offsets = []
    for a in addrs:
        for vma, size, off in secs:
            if vma <= a < vma + size:
                offsets.append(a - vma + off)
                break
        else:
            fail(f"{lib}: xgetbv at address {a:#x} lies in no section")
    return offsets


def main():
    if len(sys.argv) != 3:
        fail("usage: ort_avx2.py PEERS_DIR OUT_DIR")
    peers, out = (os.path.abspath(p) for p in sys.argv[1:])
    pkg = os.path.join(peers, "node_modules", "onnxruntime-node")
    if not os.path.isdir(pkg):
        fail(f"{pkg} does not exist (run bench/models/setup.sh first)")
    if shutil.which("objdump") is None:
        fail("objdump (Debian binutils) is needed to find the xgetbv instructions")
    libs = [p for p in glob.glob(os.path.join(pkg, "bin", "**", "linux", "x64", "libonnxruntime.so*"), recursive=True)
            if not os.path.islink(p)]
    if not libs:
        fail(f"no x64 libonnxruntime.so under {pkg}/bin")
    version = json.load(open(os.path.join(pkg, "package.json")))["version"]
    stamp = os.path.join(out, "ort_avx2.json")
    if os.path.exists(stamp) and json.load(open(stamp)).get("version") == version:
        print(f"ort_avx2: {out} already holds onnxruntime-node {version} restricted to AVX2")
        return
    if os.path.exists(out):
        shutil.rmtree(out)
    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:  # another file system: a real copy
            shutil.copy2(src, dst)
    shutil.copytree(peers, out, copy_function=link_or_copy, symlinks=True)
    patched = {}
    for lib in libs:
        copy = os.path.join(out, os.path.relpath(lib, peers))
        data = bytearray(open(lib, "rb").read())
        offsets = xgetbv_offsets(lib)
        if not offsets:
            fail(f"{lib} has no xgetbv instruction: this ONNX Runtime detects AVX-512 some other way")
        for off in offsets:
            if data[off:off + 3] != XGETBV:
                fail(f"{lib}: the bytes at file offset {off:#x} are not xgetbv")
            data[off:off + 3] = PUSH7_POP_RAX
        tmp = copy + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, os.stat(lib).st_mode)
        os.replace(tmp, copy)  # breaks the hard link: the original package stays untouched
        patched[os.path.relpath(copy, out)] = len(offsets)
    with open(stamp, "w") as f:
        json.dump({"version": version, "xgetbv_replaced": patched}, f, indent=1)
    for lib, n in patched.items():
        print(f"ort_avx2: {lib}: {n} xgetbv instructions now read XCR0 = 7 (no AVX-512 state)")


if __name__ == "__main__":
    main()
