// MA_VECTOR_CLONES: a hot loop written for the compiler to vectorise is compiled three times, for x86-64-v4
// (AVX-512), AVX2 and the x86-64 baseline, and the dynamic loader picks one by the CPU at start-up (GCC/Clang
// function multiversioning, an ifunc). Debian builds for the baseline, which has 2-wide SSE2 vectors only;
// nearly every machine a model is analysed on has AVX2's 4-wide ones, and the AVX-512 clone of the same
// 4-wide code has 32 vector registers and mask registers where AVX2's spilled (stats on a Q4_K GGUF: 4%
// faster). x86-64-v4 brings FMA, so a file with clones turns floating-point contraction off: every clone
// rounds each product and sum as the baseline does. Elsewhere (other architectures, non-ELF targets) the
// macro is empty and the baseline build is the only one.
//
// Only on a function declared nowhere before its definition: Clang 14 compiles a function that an earlier
// declaration names without the attribute as its first clone alone, x86-64-v4 code with no dispatch, which
// stops with SIGILL on a CPU without AVX-512 (the sanitize build's stats tests on a Zen 1 VM). A public
// function forwards to a cloned one in an anonymous namespace.
#pragma once

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define MA_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define MA_VECTOR_CLONES
#endif
