# cmake -DOUT=header -DFILES="a;b;c" -P EmbedDigest.cmake: writes a header defining
# TTUNE_EMBED_DIGEST, the SHA-256 of the files' contents, rewritten only when it changes.
set(all "")
foreach(f IN LISTS FILES)
  file(SHA256 "${f}" h)
  string(APPEND all "${h}")
endforeach()
string(SHA256 digest "${all}")
file(WRITE "${OUT}.tmp" "#define TTUNE_EMBED_DIGEST \"${digest}\"\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
