// MA_VECTOR_CLONES: a hot loop written for the compiler to vectorise is compiled twice, for AVX2 and for the
// x86-64 baseline, and the dynamic loader picks one by the CPU at start-up (GCC/Clang function
// multiversioning, an ifunc). Debian builds for the baseline, which has 2-wide SSE2 vectors only; nearly
// every machine a model is analysed on has AVX2's 4-wide ones. Elsewhere (other architectures, non-ELF
// targets) the macro is empty and the baseline build is the only one.
#pragma once

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define MA_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MA_VECTOR_CLONES
#endif
