"""Builds the `ttune` wheel: the native module and the measurement worker come from the CMake
build (one build for the command line and Python), the shipped bank from bank/.

The CMake build directory is $TTUNE_BUILD_DIR, else build/ (the one scripts/build.sh makes): an
existing build is reused and brought up to date, so `pip install .` after the quick start only
packages; without one, it is configured with tests and benchmarks off. The package keeps the
install layout under its own folder (ttune/libexec/ttune/ttune-worker, ttune/share/ttune/bank),
where the native module finds them (src/support/install_layout.h).
"""

import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("TTUNE_BUILD_DIR") or os.path.join(ROOT, "build"))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(ttune VERSION ([0-9.]+)", f.read())
    if not m:
        sys.exit("setup.py: no `project(ttune VERSION x.y.z)` in CMakeLists.txt")
    return m.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def run(self):
        build = BUILD
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            self.spawn(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        "-DTTUNE_BUILD_TESTS=OFF", "-DTTUNE_BUILD_BENCH=OFF", "-DTTUNE_BUILD_PYTHON=ON",
                        "-DPython3_EXECUTABLE=" + sys.executable])
        self.spawn(["cmake", "--build", build, "--target", "ttune_python", "ttune-worker"])
        for ext in self.extensions:
            self.copy_built(build, os.path.dirname(self.get_ext_fullpath(ext.name)))

    def copy_built(self, build, package_dir):
        modules = glob.glob(os.path.join(build, "python", "ttune", "_ttune*.so"))
        if len(modules) != 1:
            sys.exit("setup.py: expected one native module in %s/python/ttune, found %d" % (build, len(modules)))
        os.makedirs(package_dir, exist_ok=True)
        shutil.copy2(modules[0], package_dir)
        workers = {"libexec/ttune/ttune-worker": os.path.join(build, "bin", "ttune-worker"),
                   "libexec/ttune/aarch64/ttune-worker": os.path.join(build, "cross-aarch64", "ttune-worker")}
        for relative, built in workers.items():
            if os.path.exists(built):  # the AArch64 worker only where the cross toolchain was found
                os.makedirs(os.path.dirname(os.path.join(package_dir, relative)), exist_ok=True)
                shutil.copy2(built, os.path.join(package_dir, relative))
        bank = os.path.join(package_dir, "share", "ttune", "bank")
        shutil.rmtree(bank, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "bank"), bank)


# setuptools' own scratch space, kept out of the source tree and beside CMake's files.
SCRATCH = os.path.join(BUILD, "setuptools")
os.makedirs(SCRATCH, exist_ok=True)

setup(
    version=project_version(),
    ext_modules=[CMakeExtension("ttune._ttune")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
    zip_safe=False,
)
