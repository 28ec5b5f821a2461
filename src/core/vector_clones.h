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
//
// MA_X86_64_V4: a loop that needs code of its own for AVX-512 (vectors of eight doubles, which GCC 12 keeps
// in memory on AVX2) is built once for x86-64-v4 alone, and called only where cpu_runs_x86_64_v4(); the
// clones serve every other CPU. Elsewhere the macro is empty and the function is never called.
#pragma once

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define MA_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define MA_X86_64_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define MA_VECTOR_CLONES
#define MA_X86_64_V4
#endif

namespace ma {

// True on a CPU with x86-64-v4's AVX-512 subsets (F, BW, CD, DQ, VL), the ones the loader's pick of a clone
// checks; always false off x86-64.
inline bool cpu_runs_x86_64_v4() {
#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
  static const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                         __builtin_cpu_supports("avx512vl");
  return v4;
#else
  return false;
#endif
}

}  // namespace ma
