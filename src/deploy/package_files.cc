#include "deploy/package_files.h"

#include "support/version.h"

namespace ttune::deploy {

std::string cmakeConfigFile(const PackageInfo& p) {
  const std::string& n = p.name;
  std::string s =
      "# CMake package of the ttune export \"" + n + "\" (" + p.source + ", target " + p.target + "), written by\n" +
      "# ttune " TTUNE_VERSION ". Use: find_package(" + n + " CONFIG REQUIRED PATHS <this directory>)\n" + "#   " + n +
      "::" + n + "         the shared library lib" + n + ".so (needs only libc, libm, libpthread)\n" +
      (p.static_archive ? "#   " + n + "::" + n + "_static  the static archive lib" + n + ".a\n" : std::string()) +
      "#   " + n + "_WEIGHTS  the weights file ttune_model_create() takes\n" +
      "# Both targets carry the directory's headers (" + n + ".h, ttune_model.h).\n" + "get_filename_component(_" + n +
      "_dir \"${CMAKE_CURRENT_LIST_DIR}\" ABSOLUTE)\n" + "if(NOT TARGET " + n + "::" + n + ")\n" + "  add_library(" +
      n + "::" + n + " SHARED IMPORTED)\n" + "  set_target_properties(" + n + "::" + n + " PROPERTIES\n" +
      "    IMPORTED_LOCATION \"${_" + n + "_dir}/lib" + n + ".so\"\n" + "    IMPORTED_SONAME lib" + n + ".so\n" +
      "    INTERFACE_INCLUDE_DIRECTORIES \"${_" + n + "_dir}\")\n";
  if (p.static_archive)
    s += "  add_library(" + n + "::" + n + "_static STATIC IMPORTED)\n" + "  set_target_properties(" + n + "::" + n +
         "_static PROPERTIES\n" + "    IMPORTED_LOCATION \"${_" + n + "_dir}/lib" + n + ".a\"\n" +
         "    INTERFACE_INCLUDE_DIRECTORIES \"${_" + n + "_dir}\"\n" +
         "    INTERFACE_LINK_LIBRARIES \"stdc++;m;pthread\")\n";
  s += "endif()\n";
  s += "set(" + n + "_WEIGHTS \"${_" + n + "_dir}/" + n + ".weights\")\n";
  s += "set(" + n + "_VERSION " TTUNE_VERSION ")\n";
  s += "unset(_" + n + "_dir)\n";
  return s;
}

namespace {

std::string pcHeader(const PackageInfo& p, const std::string& what) {
  return "# pkg-config file of the ttune export \"" + p.name + "\" (" + what +
         "); the directory is this file's: PKG_CONFIG_PATH=<dir> pkg-config --cflags --libs " + p.name + "\n" +
         "prefix=${pcfiledir}\nincludedir=${prefix}\nlibdir=${prefix}\n\n" + "Name: " + p.name + "\n" +
         "Description: " + p.source + " compiled by ttune for " + p.target + "\n" + "Version: " TTUNE_VERSION "\n" +
         "Cflags: -I${includedir}\n";
}

}  // namespace

std::string pkgConfigFile(const PackageInfo& p) {
  // The run path lets the program find the library where the export lies, as examples/c does.
  return pcHeader(p, "the shared library") + "Libs: -L${libdir} -l" + p.name + " -Wl,-rpath,${libdir}\n";
}

std::string pkgConfigStaticFile(const PackageInfo& p) {
  return pcHeader(p, "the static archive") + "Libs: ${libdir}/lib" + p.name + ".a -lstdc++ -lm -lpthread\n";
}

}  // namespace ttune::deploy
