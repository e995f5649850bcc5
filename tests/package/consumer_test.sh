#!/usr/bin/env bash
# A consumer outside the tree, built against the installed package (docs/embedding.md): installs BUILD_DIR
# into BUILD_DIR/package-test/prefix (fresh), checks what the prefix holds and what its version
# file accepts, then configures and builds CONSUMER_DIR (default SOURCE_DIR/examples/scada_backend)
# in a fresh BUILD_DIR/examples/<name> with Ninja, -j2, and find_package(uactor 0.3 REQUIRED) from
# that prefix only. The binary stays there for the tests that run it
# (BUILD_DIR/examples/scada_backend/scada_backend for interop.node_client_against_example_backend).
#
#   bash consumer_test.sh SOURCE_DIR BUILD_DIR CXX_COMPILER [SANITIZE] [CONSUMER_DIR]
#
# SANITIZE is the tree's UACTOR_SANITIZE (e.g. address,undefined): a sanitized library needs a
# consumer compiled and linked with the same runtime. Exit 0 when the consumer built, 1 on any error
# (the failing step's output is printed).
set -uo pipefail

if [ $# -lt 3 ]; then
    echo "usage: consumer_test.sh SOURCE_DIR BUILD_DIR CXX_COMPILER [SANITIZE] [CONSUMER_DIR]" >&2
    exit 1
fi
source_dir=$(cd "$1" && pwd) || exit 1
build_dir=$(cd "$2" && pwd) || exit 1
cxx=$3
sanitize=${4:-}
consumer_dir=${5:-$source_dir/examples/scada_backend}
consumer_dir=$(cd "$consumer_dir" && pwd) || exit 1
name=$(basename "$consumer_dir")

prefix=$build_dir/package-test/prefix
consumer_build=$build_dir/examples/$name
log=$build_dir/package-test/log
rm -rf "$prefix" "$consumer_build"
mkdir -p "$prefix" "$(dirname "$consumer_build")"

fail() {
    echo "consumer_test: FAIL: $*"
    if [ -s "$log" ]; then
        echo "--- output (last 60 lines):"
        tail -n 60 "$log"
        echo "---"
    fi
    exit 1
}

step() {  # step WHAT COMMAND...: runs it with its output in $log, fails loudly
    local what=$1
    shift
    local t0=$SECONDS
    "$@" >"$log" 2>&1 || fail "$what: '$*' exited with status $?"
    echo "consumer_test: ok $what ($((SECONDS - t0)) s)"
}

step "install into $prefix" cmake --install "$build_dir" --prefix "$prefix"

# What the package holds, and what it must not: the executables' allocation hook replaces
# operator new/delete and stays out of the libraries an application links.
: >"$log"
for f in lib/cmake/uactor/uactorConfig.cmake lib/cmake/uactor/uactorConfigVersion.cmake \
         lib/cmake/uactor/uactorTargets.cmake lib/cmake/uactor/FindCAF.cmake \
         lib/libuactor_protocol.a lib/libuactor_security.a lib/libuactor_actors.a lib/libuactor_runtime.a \
         include/uactor/runtime.hpp include/uactor/server.hpp include/uactor/client.hpp \
         include/uactor/ua/variant.hpp include/uactor/ua/types.hpp include/uactor/subscription.hpp; do
    [ -f "$prefix/$f" ] || fail "the prefix has no $f"
done
if find "$prefix" -name '*alloc_hook*' | grep -q .; then
    fail "the allocation hook is installed: $(find "$prefix" -name '*alloc_hook*')"
fi
if grep -rl 'alloc_hook\|process_stats' "$prefix/lib/cmake/uactor" | grep -q .; then
    fail "the exported targets name the allocation hook or the process figures"
fi
for lib in "$prefix"/lib/libuactor_*.a; do
    if nm -C --defined-only "$lib" 2>/dev/null | grep -qE ' T operator new\(unsigned long\)$'; then
        fail "$(basename "$lib") defines operator new"
    fi
done
echo "consumer_test: ok the prefix holds the libraries, headers and config, no allocation hook"

# The public headers stand alone: each compiles with the prefix's include folder and nothing else,
# so none reaches a header of the library's inside (nor is one installed beside them).
: >"$log"
[ -e "$prefix/include/uactor/internal" ] && fail "the prefix has the library's internal headers (include/uactor/internal)"
header_check() {  # header_check HEADER: compiles <uactor/HEADER> alone
    printf '#include <uactor/%s>\n' "$1" | "$cxx" -std=c++20 -fsyntax-only -x c++ -I"$prefix/include" - 2>&1 \
        || echo "<uactor/$1> does not compile alone"
}
export -f header_check
export prefix cxx
(cd "$prefix/include/uactor" && find . -name '*.hpp' | sed 's|^\./||' | sort \
    | xargs -P 2 -I{} bash -c 'header_check "$1"' _ {}) >"$log" 2>&1
grep -q 'does not compile alone' "$log" && fail "a public header reaches beyond the prefix"
echo "consumer_test: ok each of $(cd "$prefix/include/uactor" && find . -name '*.hpp' | wc -l) public headers compiles alone against the prefix"

# The version file: SameMinorVersion (cmake/install.cmake says why).
: >"$log"
version_file=$prefix/lib/cmake/uactor/uactorConfigVersion.cmake
version_check() {  # version_check REQUESTED EXPECTED(TRUE|FALSE)
    local got
    got=$(cmake -DVERSION_FILE="$version_file" -DREQUESTED="$1" -P "$source_dir/tests/package/version_check.cmake" 2>&1)
    [ "$got" = "$2" ] || fail "uactorConfigVersion.cmake: a request for $1 answered '$got', expected $2"
}
version_check 0.3 TRUE
version_check 0.3.0 TRUE
version_check 0.2 FALSE
version_check 0.4 FALSE
version_check 1.0 FALSE
echo "consumer_test: ok the version file accepts 0.3 and 0.3.0, refuses 0.2, 0.4 and 1.0"

flags=()
if [ -n "$sanitize" ]; then
    flags+=("-DCMAKE_CXX_FLAGS=-fsanitize=$sanitize -fno-omit-frame-pointer"
            "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=$sanitize")
fi
# The prefix only: no package registry, the source tree nowhere on a path.
step "configure $name against the prefix" \
    cmake -S "$consumer_dir" -B "$consumer_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "${flags[@]}"
grep -q "^uactor_DIR:PATH=$prefix/lib/cmake/uactor\$" "$consumer_build/CMakeCache.txt" \
    || fail "uactor was not found in the prefix: $(grep '^uactor_DIR' "$consumer_build/CMakeCache.txt")"
step "build $name" cmake --build "$consumer_build" -j 2
binary=$consumer_build/$name
[ -x "$binary" ] || fail "no executable $binary after the build"
if grep -q "$source_dir/\(protocol\|security\|actors\|include\)" "$consumer_build/build.ninja"; then
    fail "the consumer's build names the source tree's headers instead of the prefix's"
fi
echo "consumer_test: PASS $binary"
exit 0
