#include "analysis/perf/hardware_rows.h"

namespace ma {
namespace {

// clang-format off
constexpr HardwareRow kHardwareRows[] = {
  {"a100-40gb", "NVIDIA A100 SXM 40 GB",
   "NVIDIA A100-SXM4-40GB",
   19.5, 156, 312, 312, 0, 0, 624,
   1555, 40, 300,  // NVLink 3: 600 GB/s total
   64, 0, 0, 19.5, 40, 21.2,
   "NVIDIA A100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/a100/ (A100 40GB SXM column; "
   "tensor figures without sparsity; NVLink 600 GB/s total = 300 per direction); FP8/FP4 not supported; "
   "on-chip: L2 40 MB, 108 SMs x 192 KB L1/shared memory (A100 whitepaper)"},
  {"a100-80gb", "NVIDIA A100 SXM 80 GB",
   "NVIDIA A100-SXM4-80GB",
   19.5, 156, 312, 312, 0, 0, 624,
   2039, 80, 300,
   64, 0, 0, 19.5, 40, 21.2,
   "NVIDIA A100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/a100/ (A100 80GB SXM column, "
   "HBM2e 2,039 GB/s; tensor figures without sparsity; NVLink 600 GB/s total = 300 per direction); "
   "FP8/FP4 not supported; "
   "on-chip: L2 40 MB, 108 SMs x 192 KB L1/shared memory (A100 whitepaper)"},
  {"a100-pcie-80gb", "NVIDIA A100 PCIe 80 GB",
   "NVIDIA A100 80GB PCIe",
   19.5, 156, 312, 312, 0, 0, 624,
   1935, 80, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 19.5, 40, 21.2,
   "NVIDIA A100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/a100/ (A100 80GB PCIe column, "
   "HBM2e 1,935 GB/s; tensor figures without sparsity; PCIe Gen4 64 GB/s bidirectional = 32 per direction, "
   "the NVLink bridge for GPU pairs not modelled); FP8/FP4 not supported; "
   "on-chip: L2 40 MB, 108 SMs x 192 KB L1/shared memory (A100 whitepaper)"},
  {"a800-80gb", "NVIDIA A800 SXM 80 GB",
   "NVIDIA A800-SXM4-80GB",
   19.5, 156, 312, 312, 0, 0, 624,
   2039, 80, 200,  // NVLink 3 cut to 400 GB/s total
   64, 0, 0, 19.5, 40, 21.2,
   "NVIDIA A800 Tensor Core GPU datasheet (A800 80GB SXM: the A100 80GB SXM's FP32, tensor and HBM2e 2,039 "
   "GB/s figures, tensor figures without sparsity; NVLink 400 GB/s total = 200 per direction, where the "
   "A100's is 600); FP8/FP4 not supported; "
   "on-chip: L2 40 MB, 108 SMs x 192 KB L1/shared memory (the A100 die)"},
  {"h100-sxm", "NVIDIA H100 SXM 80 GB",
   "NVIDIA H100 80GB HBM3",
   67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9,
   3350, 80, 450,  // NVLink 4: 900 GB/s total
   64, 0, 0, 67, 50, 34.6,
   "NVIDIA H100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h100/ (H100 SXM column; its "
   "tensor figures are with sparsity and are halved here, as in the NVIDIA H100 Tensor Core GPU "
   "Architecture whitepaper; NVLink 900 GB/s total = 450 per direction); FP4 not supported; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (H100 whitepaper); CUDA total 79.19 GiB (vLLM "
   "0.19's memory profile, total_memory=79.19GiB, engine-memory.json rows vllm019-h100-*)",
   79.19},
  {"h100-pcie", "NVIDIA H100 PCIe 80 GB",
   "",
   51, 378, 756.5, 756.5, 1513, 0, 1513,
   2000, 80, 64,  // PCIe Gen5 x16 (the optional 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 51, 50, 29.9,
   "NVIDIA H100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h100/ (H100 PCIe column; "
   "sparsity figures halved; PCIe Gen5 x16 128 GB/s bidirectional = 64 per direction, NVLink bridge for "
   "GPU pairs not modelled); FP4 not supported; "
   "on-chip: L2 50 MB, 114 SMs x 256 KB L1/shared memory (H100 whitepaper)"},
  {"h100-nvl", "NVIDIA H100 NVL 94 GB",
   "",
   60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5,
   3900, 94, 64,  // PCIe Gen5 x16: its NVLink bridge joins 2 or 4 cards, not the 8 of a server
   64, 0, 0, 60, 50, 34.6,
   "NVIDIA H100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h100/ (H100 NVL column: FP32 60, "
   "TF32 835, BF16/FP16 1,671, FP8 and INT8 3,341 with sparsity, halved here; 94 GB HBM3 at 3.9 TB/s; "
   "PCIe Gen5 x16 128 GB/s bidirectional = 64 per direction, which every card of a server shares; the "
   "NVLink bridge between the cards it joins (600 GB/s total) is not modelled, as for the PCIe A100 and "
   "H100: one figure cannot say which pairs it joins, and a tensor-parallel group wider than it would be "
   "timed faster than its PCIe links allow); FP4 not supported; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  {"h800", "NVIDIA H800 SXM 80 GB",
   "NVIDIA H800 80GB HBM3",
   67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9,
   3350, 80, 200,  // NVLink 4 cut to 400 GB/s total
   64, 0, 0, 67, 50, 34.6,
   "NVIDIA H800 Tensor Core GPU datasheet (H800 SXM: the H100 SXM's FP32, tensor and HBM3 3.35 TB/s figures, "
   "its tensor figures with sparsity and halved here; NVLink 400 GB/s total = 200 per direction, where the "
   "H100's is 900; FP64 cut, which nothing here uses); FP4 not supported; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  {"h200", "NVIDIA H200 SXM 141 GB",
   "",
   67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9,
   4800, 141, 450,
   64, 0, 0, 67, 50, 34.6,
   "NVIDIA H200 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h200/ (H200 SXM column; its "
   "tensor figures are with sparsity and are halved here; HBM3e 4.8 TB/s; NVLink 900 GB/s total = 450 "
   "per direction); FP4 not supported; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  // Calibrated from ../shared/data/gpu/h200-measurements.json (torch 2.11, cu130, one H200):
  //  - hbm_gbps = copy_GBps_read_plus_write (device-to-device copy, bytes read + written / s).
  //  - peaks = the largest TFLOPs of the measured GEMM curve per dtype (bfloat16, float16, fp8_e4m3 rows;
  //    up to M = 8192, K, N <= 14336) and the fp32_TFLOPs / tf32_TFLOPs figures. int8 was not measured: it is
  //    set to the fp8 maximum (Hopper's int8 and fp8 dense rates are equal on the datasheet). fp4: none.
  //  - kernel_overhead_s and b_sat: minimax fit of gemm_time_s over all 94 GEMMs (grid: b_sat 1..200 in
  //    steps of 0.5, overhead 0..40 us in 0.1 us steps, then 0.01 us; objective: the worst
  //    |log(predicted / measured)|). The optimum is flat for every b_sat <= ~188: below the bf16 ridge P/BW
  //    every M < b_sat GEMM is memory-bound, so these shapes cannot see b_sat; seed 001's 64 is kept (b_sat
  //    >= 198 breaks 1.2). Overhead optimum 21.06 us; 21 us gives predicted/measured in [0.837 (fp16
  //    256x4096x14336), 1.191 (bf16 4x4096x4096)] (least squares on the logs would pick 17.6 us but lets
  //    the worst row reach 0.79).
  //  - graph_kernel_overhead_s: minimax fit of the performance model (analysis/perf/perf_model.cpp, which
  //    counts 12 kernels per Llama layer with flash attention: 7 GEMMs, attention, 4 elementwise; plus
  //    embedding and LM head) over all 18 CUDA-graph decode steps of h200-decode-cuda-graphs.json (Llama
  //    3.2 1B / 3.1 8B shapes, B 1-256, KV 256 and 2048): 5.0 us leaves the worst step at 0.906 of the
  //    measured time, 5.2 us at 1.094; 5.1 us keeps every step within about +-9.5%.
  //  - capacity and interconnect are the datasheet's (not measured).
  {"h200-measured", "NVIDIA H200 SXM 141 GB (measured: achievable bandwidth and GEMM peaks)",
   "",
   50.595696475317666, 411.2377581938717, 793.3441972739215, 774.7753499876666, 1415.6704757898765, 0,
   1415.6704757898765,
   4215.91062895038, 141, 450,
   64, 21e-6, 5.1e-6, 50.595696475317666, 50, 34.6,
   "measured on one H200 (shared/data/gpu/h200-measurements.json): HBM = device copy bandwidth, peaks = "
   "max measured GEMM TFLOP/s per dtype (int8 = fp8, not measured), kernel overhead 21 us and b_sat 64 "
   "fitted to all 94 GEMMs (predicted/measured in [0.84, 1.19]); graph kernel overhead 5.1 us fitted to "
   "the 18 CUDA-graph decode steps (h200-decode-cuda-graphs.json) with the model's kernel count; capacity "
   "and NVLink from the NVIDIA H200 datasheet; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  // The H20's tensor rate is low against its bandwidth (bf16 ridge 37 FLOP/byte, under b_sat 64): seed 001's
  // eta_tc = M / b_sat makes its batch-1 decode compute-bound, where GEMV kernels on its CUDA cores would
  // not be; --b-sat sets the saturation.
  {"h20", "NVIDIA H20 96 GB",
   "",
   44, 74, 148, 148, 296, 0, 296,
   4000, 96, 450,  // NVLink 4: 900 GB/s total
   64, 0, 0, 44, 60, 20.4,
   "NVIDIA H20 specification (NVIDIA publishes no H20 page; the figures its partners and the press, e.g. "
   "SemiAnalysis, reproduce: dense FP32 44, TF32 74, FP16/BF16 148, FP8 296 TFLOPS, INT8 296 TOPS, a "
   "Hopper part with its tensor rate cut, so no figure here is derived from its clocks); 96 GB HBM3 at 4.0 "
   "TB/s; NVLink 900 GB/s total = 450 per direction; FP4 not supported; "
   "on-chip: L2 60 MB, 78 SMs x 256 KB L1/shared memory (Hopper)"},
  {"gh200-96gb", "NVIDIA GH200 Grace Hopper, its H100 GPU with 96 GB HBM3",
   "NVIDIA GH200 480GB",
   67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9,
   4000, 96, 450,  // NVLink 4 in NVLink-Switch systems (NVL32); many GH200 nodes join over InfiniBand only
   64, 0, 0, 67, 50, 34.6,
   "NVIDIA GH200 Grace Hopper Superchip datasheet, nvidia.com/en-us/data-center/grace-hopper-superchip/ "
   "(the GPU: FP32 67, TF32 989, BF16/FP16 1,979, FP8 and INT8 3,958 with sparsity, halved here, as the H100 "
   "SXM; 96 GB HBM3 at 4 TB/s; GPU-to-GPU NVLink 4, 900 GB/s total = 450 per direction where an NVLink "
   "Switch joins the superchips; the Grace CPU's LPDDR5X and NVLink-C2C are not modelled); FP4 not "
   "supported; on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  {"gh200-144gb", "NVIDIA GH200 Grace Hopper, its H100 GPU with 144 GB HBM3e",
   "NVIDIA GH200 144G HBM3e",
   67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9,
   4900, 144, 450,  // as the 96 GB part
   64, 0, 0, 67, 50, 34.6,
   "NVIDIA GH200 Grace Hopper Superchip datasheet, nvidia.com/en-us/data-center/grace-hopper-superchip/ "
   "(the HBM3e part: 144 GB at 4.9 TB/s; compute and links as the 96 GB part above); FP4 not supported; "
   "on-chip: L2 50 MB, 132 SMs x 256 KB L1/shared memory (the H100 SXM die)"},
  {"b200", "NVIDIA B200 (HGX B200) 180 GB",
   "",
   75, 1125, 2250, 2250, 4500, 9000, 4500,
   7700, 180, 900,  // NVLink 5: 1.8 TB/s total
   64, 0, 0, 75, 126, 38.8,
   "NVIDIA HGX B200 specifications, nvidia.com/en-us/data-center/hgx/ (per-GPU column: FP4 18, FP8 9, "
   "INT8 9, FP16/BF16 4.5, TF32 2.2 PFLOPS, all with sparsity and halved here, TF32 as half the BF16 "
   "rate; FP32 75 TFLOPS; 180 GB HBM3e at 7.7 TB/s; NVLink 5 1.8 TB/s total = 900 per direction); "
   "on-chip: L2 126 MB, 148 SMs x 256 KB L1/shared memory (Chips and Cheese, Nvidia's B200, 2025)"},
  {"gb200", "NVIDIA GB200 NVL72, per Blackwell GPU, 186 GB",
   "",
   80, 1250, 2500, 2500, 5000, 10000, 5000,
   8000, 186, 900,
   64, 0, 0, 80, 126, 38.8,
   "NVIDIA GB200 NVL72 specifications, nvidia.com/en-us/data-center/gb200-nvl72/ (per-GPU column: FP4 "
   "20, FP8 10, INT8 10, FP16/BF16 5, TF32 2.5 PFLOPS, all with sparsity and halved here; FP32 80 "
   "TFLOPS; 186 GB HBM3e at 8 TB/s; NVLink 5 1.8 TB/s total = 900 per direction); "
   "on-chip: L2 126 MB, 148 SMs x 256 KB L1/shared memory (as B200)"},
  {"mi300x", "AMD Instinct MI300X 192 GB",
   "",
   163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9,
   5300, 192, 448,  // 7 Infinity Fabric links x 64 GB/s per direction
   64, 0, 0, 163.4, 288, 29.9,
   "AMD Instinct MI300X accelerator data sheet, amd.com/en/products/accelerators/instinct/mi300/mi300x.html "
   "(dense matrix figures, not the 'with structured sparsity' ones; FP32 vector 163.4; HBM3 5.3 TB/s; "
   "7 Infinity Fabric links of 128 GB/s bidirectional = 896 GB/s aggregate, 448 per direction, 64 to "
   "any one peer); FP4 not supported; "
   "on-chip: 256 MB Infinity Cache + 8 XCDs x 4 MB L2, 304 CUs x (64 KB LDS + 32 KB L1) (AMD CDNA 3 whitepaper)"},
  {"mi325x", "AMD Instinct MI325X 256 GB",
   "",
   163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9,
   6000, 256, 448,  // the MI300X's 7 Infinity Fabric links
   64, 0, 0, 163.4, 288, 29.9,
   "AMD Instinct MI325X accelerator data sheet, amd.com/en/products/accelerators/instinct/mi300/mi325x.html "
   "(the MI300X's CDNA 3 compute: dense matrix figures, not the 'with structured sparsity' ones; HBM3E "
   "256 GB at 6 TB/s; 7 Infinity Fabric links, 896 GB/s aggregate = 448 per direction); FP4 not supported; "
   "on-chip: 256 MB Infinity Cache + 8 XCDs x 4 MB L2, 304 CUs x (64 KB LDS + 32 KB L1) (AMD CDNA 3 whitepaper)"},
  {"mi355x", "AMD Instinct MI355X 288 GB",
   "",
   157.3, 0, 2500, 2500, 5000, 10000, 5000,
   8000, 288, 537.5,  // 7 Infinity Fabric links, 1,075 GB/s aggregate
   64, 0, 0, 157.3, 288, 50.3,
   "AMD Instinct MI355X accelerator data sheet, amd.com/en/products/accelerators/instinct/mi350/mi355x.html "
   "(dense figures: FP16/BF16 2.5 PFLOPS, FP8 5.0, MXFP4/MXFP6 10, INT8 5.0 POPS, not the 'with structured "
   "sparsity' ones; FP32 vector 157.3 TFLOPS; TF32 not listed; HBM3E 288 GB at 8 TB/s; 7 Infinity Fabric "
   "links, 1,075 GB/s aggregate = 537.5 per direction); "
   "on-chip: 256 MB Infinity Cache + 8 XCDs x 4 MB L2, 256 CUs x (160 KB LDS + 32 KB L1) (AMD CDNA 4 "
   "whitepaper)"},
  {"l40", "NVIDIA L40 48 GB",
   "",
   90.5, 90.5, 181.05, 181.05, 362, 0, 362,
   864, 48, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 90.5, 96, 18.6,
   "NVIDIA L40 GPU datasheet, nvidia.com/en-us/data-center/l40/ (figures without sparsity: FP32 90.5, "
   "TF32 90.5, BF16/FP16 181.05, FP8 362 TFLOPS, INT8 362 TOPS: half the L40S's tensor rates; GDDR6 864 "
   "GB/s; PCIe Gen4 x16 64 GB/s bidirectional = 32 per direction, no NVLink); FP4 not supported; "
   "on-chip: L2 96 MB, 142 SMs x 128 KB L1/shared memory (AD102, Ada whitepaper)"},
  {"l40s", "NVIDIA L40S 48 GB",
   "",
   91.6, 183, 362.05, 362.05, 733, 0, 733,
   864, 48, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 91.6, 96, 18.6,
   "NVIDIA L40S GPU datasheet, nvidia.com/en-us/data-center/l40s/ (figures without sparsity; GDDR6 864 "
   "GB/s; PCIe Gen4 x16 64 GB/s bidirectional = 32 per direction, no NVLink); FP4 not supported; "
   "on-chip: L2 96 MB, 142 SMs x 128 KB L1/shared memory (Ada whitepaper)"},
  // Before Ampere: no bf16 (nor tf32) tensor cores. A bf16 model runs there in fp16 (analysis/perf/perf_model.cpp,
  // bf16_as_fp16_note), as serving engines cast it.
  {"v100", "NVIDIA V100 SXM2 32 GB",
   "Tesla V100-SXM2-32GB",
   15.7, 0, 0, 125, 0, 0, 0,
   900, 32, 150,  // NVLink 2: 300 GB/s total
   64, 0, 0, 15.7, 6, 10.5,
   "NVIDIA Tesla V100 datasheet, nvidia.com/en-us/data-center/v100/ (V100 SXM2 column: FP32 15.7, tensor "
   "125 TFLOPS (FP16 inputs, FP32 accumulate); HBM2 900 GB/s; NVLink 300 GB/s total = 150 per direction); "
   "no bf16, tf32, fp8, fp4 or int8 tensor cores; on-chip: L2 6 MB, 80 SMs x 128 KB L1/shared memory "
   "(Volta whitepaper)"},
  {"t4", "NVIDIA T4 16 GB",
   "",
   8.1, 0, 0, 65, 0, 0, 130,
   320, 16, 16,  // PCIe Gen3 x16, no NVLink
   64, 0, 0, 8.1, 4, 3.9,
   "NVIDIA T4 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/tesla-t4/ (FP32 8.1, mixed precision "
   "FP16/FP32 65 TFLOPS, INT8 130 TOPS; GDDR6 320 GB/s; PCIe Gen3 x16 32 GB/s bidirectional = 16 per "
   "direction); no bf16, tf32, fp8 or fp4 tensor cores; "
   "on-chip: L2 4 MB, 40 SMs x 96 KB L1/shared memory (Turing whitepaper)"},
  {"l4", "NVIDIA L4 24 GB",
   "",
   30.3, 60, 121, 121, 242.5, 0, 242.5,
   300, 24, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 30.3, 48, 7.6,
   "NVIDIA L4 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/l4/ (its tensor figures are with "
   "sparsity and are halved here: TF32 120, FP16/BF16 242, FP8 485, INT8 485; FP32 30.3 TFLOPS; GDDR6 "
   "300 GB/s; PCIe Gen4 x16 64 GB/s bidirectional = 32 per direction, no NVLink); FP4 not supported; "
   "on-chip: L2 48 MB, 58 SMs x 128 KB L1/shared memory (Ada whitepaper)"},
  {"a10", "NVIDIA A10 24 GB",
   "",
   31.2, 62.5, 125, 125, 0, 0, 250,
   600, 24, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 31.2, 6, 9.4,
   "NVIDIA A10 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/products/a10-gpu/ (dense figures: "
   "TF32 62.5, FP16/BF16 125 TFLOPS, INT8 250 TOPS, not the sparsity ones; FP32 31.2; GDDR6 600 GB/s; "
   "PCIe Gen4 x16 64 GB/s bidirectional = 32 per direction); FP8/FP4 not supported; AWS's A10G is "
   "another part; on-chip: L2 6 MB, 72 SMs x 128 KB L1/shared memory (GA102, Ampere GA102 whitepaper)"},
  {"a30", "NVIDIA A30 24 GB",
   "",
   10.3, 82, 165, 165, 0, 0, 330,
   933, 24, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 10.3, 24, 11.0,
   "NVIDIA A30 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/products/a30-gpu/ (dense figures: "
   "FP32 10.3, TF32 82, BF16/FP16 165 TFLOPS, INT8 330 TOPS, not the sparsity ones: 56 SMs at 1.44 GHz "
   "at the A100's rate per SM; HBM2 933 GB/s; PCIe Gen4 64 GB/s bidirectional = 32 per direction, the "
   "NVLink bridge for GPU pairs (200 GB/s bidirectional) not modelled); FP8/FP4 not supported; "
   "on-chip: L2 24 MB, 56 SMs x 192 KB L1/shared memory (GA100)"},
  {"a40", "NVIDIA A40 48 GB",
   "",
   37.4, 74.8, 149.7, 149.7, 0, 0, 299.3,
   696, 48, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 37.4, 6, 11.0,
   "NVIDIA A40 datasheet, nvidia.com/en-us/data-center/a40/ (dense figures: TF32 74.8, BF16 (FP32 "
   "accumulate) 149.7, FP16 149.7 TFLOPS, INT8 299.3 TOPS, not the sparsity ones; FP32 37.4; GDDR6 696 "
   "GB/s; PCIe Gen4 64 GB/s bidirectional = 32 per direction, the NVLink bridge for GPU pairs (112.5 GB/s "
   "bidirectional) not modelled); FP8/FP4 not supported; "
   "on-chip: L2 6 MB, 84 SMs x 128 KB L1/shared memory (GA102, Ampere GA102 whitepaper)"},
  {"rtx-a6000", "NVIDIA RTX A6000 48 GB",
   "",
   38.7, 77.4, 154.8, 154.8, 0, 0, 309.7,
   768, 48, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 38.7, 6, 11.0,
   "NVIDIA RTX A6000 datasheet, nvidia.com/en-us/design-visualization/rtx-a6000/ (FP32 38.7 TFLOPS; "
   "tensor 309.7 TFLOPS with sparsity, halved here for FP16/BF16 with FP32 accumulate, which this "
   "workstation part runs at full rate; TF32 half and INT8 twice that, as on every GA102 part (the A40 "
   "above); GDDR6 768 GB/s; PCIe Gen4 64 GB/s bidirectional = 32 per direction, the NVLink bridge for GPU "
   "pairs (112.5 GB/s bidirectional) not modelled); FP8/FP4 not supported; "
   "on-chip: L2 6 MB, 84 SMs x 128 KB L1/shared memory (GA102, Ampere GA102 whitepaper)"},
  {"rtx6000-ada", "NVIDIA RTX 6000 Ada Generation 48 GB",
   "NVIDIA RTX 6000 Ada Generation",
   91.1, 182.1, 364.25, 364.25, 728.5, 0, 728.5,
   960, 48, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 91.1, 96, 18.6,
   "NVIDIA RTX 6000 Ada Generation datasheet, nvidia.com/en-us/design-visualization/rtx-6000/ (FP32 91.1 "
   "TFLOPS; tensor 1,457.0 TFLOPS: FP8 with sparsity, halved here; FP16/BF16 with FP32 accumulate half "
   "the FP8 rate and TF32 a quarter, INT8 the FP8 rate, as on the L40S, its data-centre twin); GDDR6 960 "
   "GB/s; PCIe Gen4 x16 64 GB/s bidirectional = 32 per direction, no NVLink); FP4 not supported; "
   "on-chip: L2 96 MB, 142 SMs x 128 KB L1/shared memory (AD102, Ada whitepaper)"},
  {"rtx-a5000", "NVIDIA RTX A5000 24 GB",
   "",
   27.8, 55.5, 111.1, 111.1, 0, 0, 222.2,
   768, 24, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 27.8, 6, 8.4,
   "NVIDIA RTX A5000 datasheet, nvidia.com/en-us/design-visualization/rtx-a5000/ (FP32 27.8 TFLOPS; tensor "
   "222.2 TFLOPS with sparsity, halved here for FP16/BF16 with FP32 accumulate, which this workstation part "
   "runs at full rate; TF32 half and INT8 twice that, as on every GA102 part; GDDR6 768 GB/s; PCIe Gen4 x16 "
   "= 32 GB/s per direction, the NVLink bridge for GPU pairs not modelled); FP8/FP4 not supported; "
   "on-chip: L2 6 MB, 64 SMs x 128 KB L1/shared memory (GA102)"},
  {"rtx-a4000", "NVIDIA RTX A4000 16 GB",
   "",
   19.2, 38.4, 76.7, 76.7, 0, 0, 153.4,
   448, 16, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 19.2, 4, 6.3,
   "NVIDIA RTX A4000 datasheet, nvidia.com/en-us/design-visualization/rtx-a4000/ (FP32 19.2 TFLOPS; tensor "
   "153.4 TFLOPS with sparsity, halved here for FP16/BF16 with FP32 accumulate, which this workstation part "
   "runs at full rate; TF32 half and INT8 twice that, as on every Ampere GA10x part; GDDR6 448 GB/s; PCIe "
   "Gen4 x16 = 32 GB/s per direction); FP8/FP4 not supported; "
   "on-chip: L2 4 MB, 48 SMs x 128 KB L1/shared memory (GA104)"},
  {"rtx2080ti", "NVIDIA GeForce RTX 2080 Ti 11 GB",
   "",
   13.4, 0, 0, 53.8, 0, 0, 215.2,
   616, 11, 16,  // PCIe Gen3 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 13.4, 5.5, 6.7,
   "NVIDIA Turing GPU Architecture whitepaper, Appendix A (GeForce RTX 2080 Ti at the reference 1,545 MHz "
   "boost; the Founders Edition's 1,635 MHz is 6% faster): FP32 13.4 TFLOPS; FP16 tensor 53.8 TFLOPS with "
   "FP32 accumulate (107.6 with FP16 accumulate), INT8 215.2 TOPS; GDDR6 at 14 Gbps on 352 bits = 616 GB/s; "
   "PCIe Gen3 x16 = 16 GB/s per direction; no bf16, tf32, fp8 or fp4 tensor cores; "
   "on-chip: L2 5.5 MB, 68 SMs x 96 KB L1/shared memory (TU102)"},
  {"rtx3060", "NVIDIA GeForce RTX 3060 12 GB",
   "",
   12.7, 12.7, 25.5, 25.5, 0, 0, 101.9,
   360, 12, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 12.7, 3, 3.7,
   "NVIDIA's RTX 3060 launch figures (FP32 13 TFLOPS; tensor 101 TFLOPS: FP16 with FP16 accumulate and "
   "sparsity) as dense rates with FP32 accumulate by the GA102 whitepaper's ratios per SM (28 SMs at 1.777 "
   "GHz: FP32 12.7, FP16/BF16 25.5, TF32 12.7, INT8 101.9 TOPS); GDDR6 at 15 Gbps on 192 bits = 360 GB/s; "
   "PCIe Gen4 x16 = 32 GB/s per direction; FP8/FP4 not supported; the 12 GB card (an 8 GB one, 240 GB/s, "
   "has the same name); on-chip: L2 3 MB, 28 SMs x 128 KB L1/shared memory (GA106)"},
  {"rtx3060ti", "NVIDIA GeForce RTX 3060 Ti 8 GB",
   "",
   16.2, 16.2, 32.4, 32.4, 0, 0, 129.6,
   448, 8, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 16.2, 4, 5.0,
   "NVIDIA's RTX 3060 Ti figures (FP32 16.2 TFLOPS) as dense tensor rates with FP32 accumulate by the GA102 "
   "whitepaper's ratios per SM (38 SMs at 1.665 GHz: FP16/BF16 32.4, TF32 16.2, INT8 129.6 TOPS); GDDR6 at "
   "14 Gbps on 256 bits = 448 GB/s; PCIe Gen4 x16 = 32 GB/s per direction; FP8/FP4 not supported; "
   "on-chip: L2 4 MB, 38 SMs x 128 KB L1/shared memory (GA104)"},
  {"rtx3070", "NVIDIA GeForce RTX 3070 8 GB",
   "",
   20.3, 20.3, 40.6, 40.6, 0, 0, 162.6,
   448, 8, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 20.3, 4, 6.0,
   "NVIDIA Ampere GA102 GPU Architecture whitepaper, its GeForce RTX 3070 (GA104) table: dense tensor rates "
   "with FP32 accumulate (FP16 with FP16 accumulate is twice: 81.3); TF32 20.3, INT8 162.6 TOPS; FP32 20.3; "
   "GDDR6 448 GB/s; PCIe Gen4 x16 = 32 GB/s per direction; FP8/FP4 not supported; "
   "on-chip: L2 4 MB, 46 SMs x 128 KB L1/shared memory"},
  {"rtx3080", "NVIDIA GeForce RTX 3080 10 GB",
   "",
   29.8, 29.8, 59.5, 59.5, 0, 0, 238,
   760, 10, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 29.8, 5, 8.9,
   "NVIDIA Ampere GA102 GPU Architecture whitepaper, its GeForce RTX 3080 table: dense tensor rates with "
   "FP32 accumulate (FP16 with FP16 accumulate is twice: 119); TF32 29.8, INT8 238 TOPS; FP32 29.8; GDDR6X "
   "760 GB/s; PCIe Gen4 x16 = 32 GB/s per direction; FP8/FP4 not supported; the 10 GB card (the later 12 "
   "GB one has 70 SMs and 912 GB/s); on-chip: L2 5 MB, 68 SMs x 128 KB L1/shared memory"},
  {"rtx3080ti", "NVIDIA GeForce RTX 3080 Ti 12 GB",
   "",
   34.1, 34.1, 68.2, 68.2, 0, 0, 272.8,
   912, 12, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 34.1, 6, 10.5,
   "NVIDIA's RTX 3080 Ti figures (FP32 34.1 TFLOPS) as dense tensor rates with FP32 accumulate by the GA102 "
   "whitepaper's ratios per SM (80 SMs at 1.665 GHz: FP16/BF16 68.2, TF32 34.1, INT8 272.8 TOPS); GDDR6X "
   "at 19 Gbps on 384 bits = 912 GB/s; PCIe Gen4 x16 = 32 GB/s per direction; FP8/FP4 not supported; "
   "on-chip: L2 6 MB, 80 SMs x 128 KB L1/shared memory (GA102)"},
  {"rtx3090", "NVIDIA GeForce RTX 3090 24 GB",
   "",
   35.6, 35.6, 71, 71, 0, 0, 284,
   936, 24, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 35.6, 6, 10.7,
   "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A (GeForce RTX 3090): dense tensor rates "
   "with FP32 accumulate (FP16 with FP16 accumulate is twice: 142); TF32 35.6, INT8 284 TOPS; FP32 35.6; "
   "GDDR6X 936 GB/s; PCIe Gen4 x16 = 32 GB/s per direction, NVLink bridge not modelled; FP8/FP4 not "
   "supported; on-chip: L2 6 MB, 82 SMs x 128 KB L1/shared memory; CUDA total 23.58 GiB (vLLM's memory "
   "profile, total_gpu_memory=23.58GiB, engine-memory.json row vllm-v0-rtx3090-llama31-8b-20k)",
   23.58},
  {"rtx3090ti", "NVIDIA GeForce RTX 3090 Ti 24 GB",
   "",
   40, 40, 80, 80, 0, 0, 320,
   1008, 24, 32,  // PCIe Gen4 x16 (the 2-GPU NVLink bridge is not modelled)
   64, 0, 0, 40, 6, 11.0,
   "NVIDIA GeForce RTX 3090 Ti product page, nvidia.com/en-us/geforce/graphics-cards/30-series/ (shader 40 "
   "TFLOPS, tensor 320 TFLOPS: FP16 with FP16 accumulate and sparsity), as dense rates with FP32 accumulate "
   "by the GA102 whitepaper's ratios for the RTX 3090 (a quarter: 80; TF32 half of that, INT8 four times); "
   "GDDR6X at 21 Gbps on 384 bits = 1,008 GB/s; PCIe Gen4 x16 = 32 GB/s per direction, NVLink bridge not "
   "modelled; FP8/FP4 not supported; on-chip: L2 6 MB, 84 SMs x 128 KB L1/shared memory (the whole GA102)"},
  {"rtx4060", "NVIDIA GeForce RTX 4060 8 GB",
   "",
   15.1, 15.1, 30.2, 30.2, 60.5, 0, 120.9,
   272, 8, 16,  // PCIe Gen4 x8, no NVLink
   64, 0, 0, 15.1, 24, 3.1,
   "NVIDIA's RTX 4060 figures (FP32 15 TFLOPS; 242 AI TOPS: FP8 with FP16 accumulate and sparsity) as dense "
   "rates with FP32 accumulate by the Ada whitepaper's ratios per SM (24 SMs at 2.46 GHz: FP16/BF16 30.2, "
   "FP8 60.5, TF32 15.1, INT8 120.9 TOPS); GDDR6 at 17 Gbps on 128 bits = 272 GB/s; PCIe Gen4 x8 = 16 GB/s "
   "per direction; FP4 not supported; on-chip: L2 24 MB, 24 SMs x 128 KB L1/shared memory (AD107)"},
  {"rtx4060ti-8gb", "NVIDIA GeForce RTX 4060 Ti 8 GB",
   "",
   22.1, 22.1, 44.1, 44.1, 88.3, 0, 176.5,
   288, 8, 16,  // PCIe Gen4 x8, no NVLink
   64, 0, 0, 22.1, 32, 4.5,
   "NVIDIA's RTX 4060 Ti figures (FP32 22 TFLOPS; 353 AI TOPS: FP8 with FP16 accumulate and sparsity) as "
   "dense rates with FP32 accumulate by the Ada whitepaper's ratios per SM (34 SMs at 2.535 GHz: FP16/BF16 "
   "44.1, FP8 88.3, TF32 22.1, INT8 176.5 TOPS); GDDR6 at 18 Gbps on 128 bits = 288 GB/s; PCIe Gen4 x8 = "
   "16 GB/s per direction; FP4 not supported; on-chip: L2 32 MB, 34 SMs x 128 KB L1/shared memory "
   "(AD106)"},
  {"rtx4060ti-16gb", "NVIDIA GeForce RTX 4060 Ti 16 GB",
   "",
   22.1, 22.1, 44.1, 44.1, 88.3, 0, 176.5,
   288, 16, 16,  // PCIe Gen4 x8, no NVLink
   64, 0, 0, 22.1, 32, 4.5,
   "as the 8 GB RTX 4060 Ti above, with 16 GB (both cards report the name \"NVIDIA GeForce RTX 4060 Ti\": "
   "say which)"},
  {"rtx4070", "NVIDIA GeForce RTX 4070 12 GB",
   "",
   29.1, 29.1, 58.3, 58.3, 116.6, 0, 233.2,
   504, 12, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 29.1, 36, 6.0,
   "NVIDIA's RTX 4070 figures (FP32 29 TFLOPS; 466 AI TOPS: FP8 with FP16 accumulate and sparsity) as dense "
   "rates with FP32 accumulate by the Ada whitepaper's ratios per SM (46 SMs at 2.475 GHz: FP16/BF16 58.3, "
   "FP8 116.6, TF32 29.1, INT8 233.2 TOPS); GDDR6X at 21 Gbps on 192 bits = 504 GB/s; PCIe Gen4 x16 = 32 "
   "GB/s per direction; FP4 not supported; on-chip: L2 36 MB, 46 SMs x 128 KB L1/shared memory (AD104)"},
  {"rtx4070-super", "NVIDIA GeForce RTX 4070 SUPER 12 GB",
   "",
   35.5, 35.5, 71.0, 71.0, 141.9, 0, 283.9,
   504, 12, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 35.5, 48, 7.3,
   "NVIDIA's RTX 4070 SUPER figures (FP32 35 TFLOPS; 568 AI TOPS: FP8 with FP16 accumulate and sparsity) as "
   "dense rates with FP32 accumulate by the Ada whitepaper's ratios per SM (56 SMs at 2.475 GHz: FP16/BF16 "
   "71.0, FP8 141.9, TF32 35.5, INT8 283.9 TOPS); GDDR6X at 21 Gbps on 192 bits = 504 GB/s; PCIe Gen4 x16 = "
   "32 GB/s per direction; FP4 not supported; on-chip: L2 48 MB, 56 SMs x 128 KB L1/shared memory (AD104)"},
  {"rtx4070ti", "NVIDIA GeForce RTX 4070 Ti 12 GB",
   "",
   40.1, 40.1, 80.2, 80.2, 160.4, 0, 320.7,
   504, 12, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 40.1, 48, 7.9,
   "NVIDIA's RTX 4070 Ti figures (FP32 40 TFLOPS; 641 AI TOPS: FP8 with FP16 accumulate and sparsity) as "
   "dense rates with FP32 accumulate by the Ada whitepaper's ratios per SM (60 SMs at 2.61 GHz: FP16/BF16 "
   "80.2, FP8 160.4, TF32 40.1, INT8 320.7 TOPS); GDDR6X at 21 Gbps on 192 bits = 504 GB/s; PCIe Gen4 x16 "
   "= 32 GB/s per direction; FP4 not supported; on-chip: L2 48 MB, 60 SMs x 128 KB L1/shared memory "
   "(AD104)"},
  {"rtx4070ti-super", "NVIDIA GeForce RTX 4070 Ti SUPER 16 GB",
   "",
   44.1, 44.1, 88.2, 88.2, 176.4, 0, 352.8,
   672, 16, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 44.1, 48, 8.7,
   "NVIDIA's RTX 4070 Ti SUPER figures (FP32 44 TFLOPS; 706 AI TOPS: FP8 with FP16 accumulate and sparsity) "
   "as dense rates with FP32 accumulate by the Ada whitepaper's ratios per SM (66 SMs at 2.61 GHz: FP16/BF16 "
   "88.2, FP8 176.4, TF32 44.1, INT8 352.8 TOPS); GDDR6X at 21 Gbps on 256 bits = 672 GB/s; PCIe Gen4 x16 = "
   "32 GB/s per direction; FP4 not supported; on-chip: L2 48 MB, 66 SMs x 128 KB L1/shared memory (AD103)"},
  {"rtx4080", "NVIDIA GeForce RTX 4080 16 GB",
   "",
   48.7, 48.7, 97.5, 97.5, 194.9, 0, 389.9,
   716.8, 16, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 48.7, 64, 10.0,
   "NVIDIA Ada GPU Architecture whitepaper v2.01, Appendix A (GeForce RTX 4080 16GB): dense tensor rates with "
   "FP32 accumulate (FP16-accumulate FP16/FP8 rates are twice these); GDDR6X 716.8 GB/s; PCIe Gen4 x16 = 32 "
   "GB/s per direction, no NVLink; FP4 not supported; "
   "on-chip: L2 64 MB, 76 SMs x 128 KB L1/shared memory (AD103)"},
  {"rtx4080-super", "NVIDIA GeForce RTX 4080 SUPER 16 GB",
   "",
   52.2, 52.2, 104.4, 104.4, 208.9, 0, 417.8,
   736, 16, 32,  // PCIe Gen4 x16, no NVLink
   64, 0, 0, 52.2, 64, 10.5,
   "NVIDIA's RTX 4080 SUPER figures (FP32 52 TFLOPS; 836 AI TOPS: FP8 with FP16 accumulate and sparsity) as "
   "dense rates with FP32 accumulate by the Ada whitepaper's ratios per SM (80 SMs at 2.55 GHz: FP16/BF16 "
   "104.4, FP8 208.9, TF32 52.2, INT8 417.8 TOPS); GDDR6X at 23 Gbps on 256 bits = 736 GB/s; PCIe Gen4 x16 "
   "= 32 GB/s per direction; FP4 not supported; on-chip: L2 64 MB, 80 SMs x 128 KB L1/shared memory "
   "(AD103)"},
  {"rtx4090", "NVIDIA GeForce RTX 4090 24 GB",
   "",
   82.6, 82.6, 165.2, 165.2, 330.3, 0, 660.6,
   1008, 24, 32,
   64, 0, 0, 82.6, 72, 16.8,
   "NVIDIA Ada GPU Architecture whitepaper v2.01, Appendix A (GeForce RTX 4090): dense tensor rates with "
   "FP32 accumulate (FP16-accumulate FP16/FP8 rates are twice these); GDDR6X 1,008 GB/s; PCIe Gen4 x16 = "
   "32 GB/s per direction, no NVLink; FP4 not supported; "
   "on-chip: L2 72 MB, 128 SMs x 128 KB L1/shared memory (Ada whitepaper)"},
  {"rtx5060ti-8gb", "NVIDIA GeForce RTX 5060 Ti 8 GB",
   "",
   23.7, 23.7, 47.4, 47.4, 94.8, 379.3, 189.6,
   448, 8, 32,  // PCIe Gen5 x8, no NVLink
   64, 0, 0, 23.7, 32, 4.7,
   "NVIDIA's RTX 5060 Ti figures (FP32 23.7 TFLOPS; 759 AI TOPS: FP4 with sparsity) as dense rates with "
   "FP32 accumulate by the RTX Blackwell whitepaper's ratios per SM (36 SMs at 2.572 GHz: FP16/BF16 47.4, "
   "FP8 94.8, FP4 379.3, TF32 23.7, INT8 189.6 TOPS); GDDR7 at 28 Gbps on 128 bits = 448 GB/s; PCIe Gen5 "
   "x8 = 32 GB/s per direction, no NVLink; on-chip: L2 32 MB, 36 SMs x 128 KB L1/shared memory (GB206)"},
  {"rtx5060ti-16gb", "NVIDIA GeForce RTX 5060 Ti 16 GB",
   "",
   23.7, 23.7, 47.4, 47.4, 94.8, 379.3, 189.6,
   448, 16, 32,  // PCIe Gen5 x8, no NVLink
   64, 0, 0, 23.7, 32, 4.7,
   "as the 8 GB RTX 5060 Ti above, with 16 GB (both cards report the name \"NVIDIA GeForce RTX 5060 Ti\": "
   "say which)"},
  {"rtx5070", "NVIDIA GeForce RTX 5070 12 GB",
   "",
   30.9, 30.9, 61.7, 61.7, 123.5, 493.9, 246.9,
   672, 12, 64,  // PCIe Gen5 x16, no NVLink
   64, 0, 0, 30.9, 48, 6.3,
   "NVIDIA's RTX 5070 figures (FP32 30.9 TFLOPS; 988 AI TOPS: FP4 with sparsity) as dense rates with FP32 "
   "accumulate by the RTX Blackwell whitepaper's ratios per SM (48 SMs at 2.512 GHz: FP16/BF16 61.7, FP8 "
   "123.5, FP4 493.9, TF32 30.9, INT8 246.9 TOPS); GDDR7 at 28 Gbps on 192 bits = 672 GB/s; PCIe Gen5 x16 "
   "= 64 GB/s per direction, no NVLink; on-chip: L2 48 MB, 48 SMs x 128 KB L1/shared memory (GB205)"},
  {"rtx5070ti", "NVIDIA GeForce RTX 5070 Ti 16 GB",
   "",
   43.9, 43.9, 87.9, 87.9, 175.8, 703.0, 351.5,
   896, 16, 64,  // PCIe Gen5 x16, no NVLink
   64, 0, 0, 43.9, 64, 9.2,
   "NVIDIA's RTX 5070 Ti figures (FP32 43.9 TFLOPS; 1,406 AI TOPS: FP4 with sparsity) as dense rates with "
   "FP32 accumulate by the RTX Blackwell whitepaper's ratios per SM (70 SMs at 2.452 GHz: FP16/BF16 87.9, "
   "FP8 175.8, FP4 703.0, TF32 43.9, INT8 351.5 TOPS); GDDR7 at 28 Gbps on 256 bits = 896 GB/s; PCIe Gen5 "
   "x16 = 64 GB/s per direction, no NVLink; on-chip: L2 64 MB, 70 SMs x 128 KB L1/shared memory (GB203)"},
  {"rtx5080", "NVIDIA GeForce RTX 5080 16 GB",
   "",
   56.3, 56.3, 112.6, 112.6, 225.1, 900.4, 450.2,
   960, 16, 64,  // PCIe Gen5 x16, no NVLink
   64, 0, 0, 56.3, 64, 11.0,
   "NVIDIA's RTX 5080 figures (FP32 56 TFLOPS; 1,801 AI TOPS: FP4 with sparsity) as dense rates with FP32 "
   "accumulate by the RTX Blackwell whitepaper's ratios per SM (84 SMs at 2.617 GHz: FP16/BF16 112.6, FP8 "
   "225.1, FP4 900.4, TF32 56.3, INT8 450.2 TOPS); GDDR7 at 30 Gbps on 256 bits = 960 GB/s; PCIe Gen5 x16 "
   "128 GB/s bidirectional = 64 per direction, no NVLink; on-chip: L2 64 MB, 84 SMs x 128 KB L1/shared "
   "memory (GB203)"},
  {"rtx5090", "NVIDIA GeForce RTX 5090 32 GB",
   "",
   104.8, 104.8, 209.5, 209.5, 419, 1676, 838,
   1792, 32, 64,  // PCIe Gen5 x16, no NVLink
   64, 0, 0, 104.8, 96, 22.3,
   "NVIDIA RTX Blackwell GPU Architecture whitepaper, Appendix A (GeForce RTX 5090): dense tensor rates "
   "with FP32 accumulate, FP16/BF16 209.5, FP8 419 (FP16-accumulate rates are twice these), FP4 1,676 "
   "(listed with FP32 accumulate only; 3,352 AI TOPS with sparsity); TF32 104.8, INT8 838 TOPS by the "
   "same ratios per SM; FP32 104.8; GDDR7 at 28 Gbps on 512 bits = 1,792 GB/s; PCIe Gen5 x16 128 GB/s "
   "bidirectional = 64 per direction, no NVLink; "
   "on-chip: L2 96 MB, 170 SMs x 128 KB L1/shared memory (GB202)"},
};
// clang-format on

}  // namespace

std::span<const HardwareRow> hardware_rows() {
  return kHardwareRows;
}

}  // namespace ma
