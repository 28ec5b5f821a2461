// The hardware table's rows as their sources print them: one row per device, in the units and conventions
// below. analysis/perf/hardware.h turns them into Hardware profiles and looks them up by name.
#pragma once
#include <span>

namespace ma {

// One row of the hardware table. Conventions, used for every row:
//  - TFLOP/s are dense peaks (no 2:4 structured sparsity). Vendors print the sparse figure for tensor
//    formats (NVIDIA marks it with '*'); those are halved here. fp32 is the non-tensor (CUDA core / vector)
//    FP32 rate; tf32 the tensor-core TF32 rate. 0 = the format is not supported (or not published: the
//    source says which).
//  - Tensor rates are those with FP32 accumulation (what cuBLAS/PyTorch use for bf16/fp16/fp8 GEMMs).
//  - interconnect_gbps is GPU-to-GPU bandwidth PER DIRECTION, GB/s (10^9 B/s): NVIDIA's NVLink figures are
//    totals over both directions (H100 SXM "900 GB/s" = 450 per direction); PCIe Gen4 x16 = 32, Gen5 x16 =
//    64 per direction (vendors print 64 / 128 "bidirectional"); AMD Infinity Fabric: the sum over the
//    GPU's links, per direction.
//  - hbm_gbps: peak memory bandwidth (GB/s); hbm_gb: capacity as printed ("80 GB"; GPU makers' GB are GiB).
//  - cuda_total_gib: the capacity CUDA reports (torch.cuda.mem_get_info's total, what engines size their
//    pools from), where a log in ../shared/data/engines printed it; the driver keeps the rest. 0 = not
//    measured: the printed capacity stands in for it.
//  - b_sat = 64 (seed 001's default) and kernel overheads 0 for datasheet entries.
struct HardwareRow {
  const char* name;
  const char* description;
  // The name CUDA and nvidia-smi report where hardware_key does not read it as `name` ("NVIDIA H100 80GB
  // HBM3" is the h100-sxm); "" where it does ("NVIDIA L40S") or where none is known.
  const char* reported;
  double fp32, tf32, bf16, fp16, fp8, fp4, int8;  // dense TFLOP/s (TOPS for int8)
  double hbm_gbps, hbm_gb, interconnect_gbps;
  double b_sat, kernel_overhead_s, graph_kernel_overhead_s, scalar_tflops;
  double l2_mb, smem_mb;  // on-chip MB: L2 (+ Infinity Cache); the L1/shared-memory SRAM of all SMs
  const char* source;
  double cuda_total_gib = 0;
};

std::span<const HardwareRow> hardware_rows();

}  // namespace ma
