# The WebAssembly module (included by the top CMakeLists.txt when MN_WEB is on): web/bindings.c
# over the static library, linked by emscripten into an ES module factory and its .wasm,
# marionette_core.mjs / marionette_core.wasm, one folder above the library's build folder
# (build/web/ when scripts/web-build builds in build/web/lib).
add_executable(marionette_web ${PROJECT_SOURCE_DIR}/web/bindings.c)
target_compile_options(marionette_web PRIVATE ${MN_WARNINGS})
target_link_libraries(marionette_web PRIVATE marionette_static)
set_target_properties(marionette_web PROPERTIES OUTPUT_NAME marionette_core SUFFIX ".mjs"
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/..)
target_link_options(marionette_web PRIVATE
  # A factory function, as an ES module.  Built for the web environment alone, and used from
  # browsers and Node alike: the JS API hands it the .wasm bytes itself, so none of its loader's
  # environment code runs (emscripten 3.1.6's Node path uses __dirname, which an ES module does
  # not have, and its fetch path misreads Node 20's fetch).
  -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createMarionetteCore -sENVIRONMENT=web
  # Models come in any size: memory grows (views are remade then, web/marionette.mjs).
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432
  -sEXPORTED_FUNCTIONS=_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8,HEAPU8,HEAPF32,HEAPU32
  # No file system: models arrive as bytes (a .gltf's other files through web/bindings.c).
  -sFILESYSTEM=0)

# WebAssembly SIMD: the SSE2 kernels through emscripten's SSE2 headers (core/simd.h).
target_compile_options(marionette_objects PRIVATE -msimd128 -msse2)
target_compile_options(marionette_web PRIVATE -msimd128)
target_link_options(marionette_web PRIVATE -msimd128)
