#!/usr/bin/env bash
# The tree's style checks (CI: Style.FormatAndSize): every C/C++ file formatted by .clang-format,
# no file over 700 lines and no function over 150 (scripts/code_shape.py).
#   scripts/check_style.sh          check, print what is off, exit 1 if anything is
#   scripts/check_style.sh --fix    reformat the files in place, then check the sizes
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.h' '*.cc' '*.c' 2>/dev/null || true)
if [ ${#files[@]} -eq 0 ]; then  # not a git checkout (a source tarball): every file under the tree
  mapfile -t files < <(find src include tests bench examples python -name '*.h' -o -name '*.cc' -o -name '*.c')
fi
status=0
if ! command -v clang-format >/dev/null; then
  echo "check_style: clang-format is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
elif ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/check_style.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/check_style.$$ | sed -E 's/:([0-9]+):[0-9]+: .*/:\1: not formatted as .clang-format says/' | sort -u -t: -k1,1 >&2
  echo "check_style: run scripts/check_style.sh --fix" >&2
  status=1
fi
rm -f /tmp/check_style.$$
python3 scripts/code_shape.py --check src python/src bench examples tests include || status=1
exit $status
