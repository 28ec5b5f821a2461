// Accelerators as data (one table, hardware_rows.cpp): dense peak throughput per dtype, memory bandwidth and
// capacity, interconnect bandwidth, and the tensor-core saturation point B_sat of seed 001's
// eta_tc(M_eff) = min(1, M_eff / B_sat). Datasheet profiles cite their source; `h200-measured` is calibrated
// from the H200 measurements in ../shared/data/gpu (its entry says how). A profile can also come from a JSON
// file (`--hw FILE.json`).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

// Compute precisions the performance model distinguishes.
enum class ComputeDType { FP32, TF32, BF16, FP16, FP8, FP4, INT8 };
inline constexpr int kComputeDTypeCount = 7;
std::string_view compute_dtype_name(ComputeDType d);  // "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8"
std::optional<ComputeDType> compute_dtype_from_name(std::string_view name);
double bytes_per_element(ComputeDType d);  // fp4: 0.5; tf32 is stored as fp32: 4

struct Hardware {
  std::string name;         // "h200"
  std::string description;  // "NVIDIA H200 SXM 141 GB"
  // Dense (no structured sparsity) peak TFLOP/s per dtype, indexed by ComputeDType; 0 = not supported.
  double peak_tflops[kComputeDTypeCount] = {};
  double hbm_gbps = 0;  // memory bandwidth, GB/s (10^9 bytes)
  double hbm_gb = 0;    // memory capacity as printed ("80 GB": GPU makers' GB are GiB)
  // The capacity CUDA reports, GiB (what engines size their pools from; the driver keeps the rest); 0 = not
  // measured for this device, when hbm_gb stands in for it.
  double cuda_total_gib = 0;
  double interconnect_gbps = 0;  // GPU-to-GPU bandwidth per direction, GB/s (NVLink, Infinity Fabric, PCIe)
  double b_sat = 64;             // M at which tensor cores reach peak (seed 001's default: 64)
  double kernel_overhead_s = 0;  // fixed time per kernel launch the model adds (0 for datasheet profiles)
  // Added with the table: the fixed time per kernel when the step is replayed as a CUDA graph (no per-call
  // launch from Python/the driver). The GEMM benchmark behind kernel_overhead_s times one eager call each
  // (~21 us on the H200); the CUDA-graph decode steps imply ~5.6 us per modelled kernel. 0 = not measured.
  double graph_kernel_overhead_s = 0;
  double scalar_tflops = 0;  // non-tensor-core (CUDA core) throughput for elementwise work; 0: peak fp32
  // On-chip memory that can hold weights between steps: the L2 (plus AMD's Infinity Cache) and the L1 /
  // shared-memory SRAM of all SMs, MB (10^6 bytes). It bounds seed 001's weight-residency factor: a step
  // streams at least (weights - on-chip) bytes from HBM, whatever the profile. 0 (a profile without it): no
  // reuse.
  double l2_mb = 0;
  double smem_mb = 0;
  std::string source;  // datasheet, or how the profile was measured

  double peak(ComputeDType d) const { return peak_tflops[static_cast<int>(d)]; }
  // Machine balance: FLOP per byte where the roofline's memory and compute limits meet.
  double ridge(ComputeDType d) const { return peak(d) * 1e12 / (hbm_gbps * 1e9); }
  double on_chip_bytes() const { return (l2_mb + smem_mb) * 1e6; }
  // The memory a program on the device can have: CUDA's total where measured, else the printed capacity.
  double usable_gib() const { return cuda_total_gib > 0 ? cuda_total_gib : hbm_gb; }
};

// Hardware's scalar fields by the names they have in a --hw profile file and in `perf --json`: one table
// that both read and write, so a field cannot be readable and missing from the export (or the reverse).
struct HardwareTextField {
  std::string_view name;
  std::string Hardware::*member;
};
struct HardwareNumberField {
  std::string_view name;
  double Hardware::*member;
};
std::span<const HardwareTextField> hardware_text_fields();
std::span<const HardwareNumberField> hardware_number_fields();

const std::vector<Hardware>& hardware_table();
std::string hardware_names();  // the table's names, as a list for messages: "a100-40gb, a100-80gb, ..."
// " (did you mean h200?)": the table's name a name that matches none is a typo of (core/nearest_name.h,
// compared as hardware_key spells both: "H2OO" is one edit from h200), for its error; "" when none is near.
std::string hardware_like(std::string_view name);
// How a name is compared with the table's: lower case, letters and digits only, without the vendor's words
// (NVIDIA, GeForce, Tesla, AMD, Instinct): "NVIDIA GeForce RTX 4090", "rtx-4090" and "RTX 4090" are all
// "rtx4090", as product pages, cloud catalogues and users spell it.
std::string hardware_key(std::string_view name);
// The table entry `name` spells (hardware_key), or "RTX" + `name` ("4090", "A6000"), or the name CUDA and
// nvidia-smi report for it ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"); null if none.
const Hardware* find_hardware(std::string_view name);

// The entry find_hardware gives, else the one whose key begins with `name`'s, "RTX" optional as there (at
// least three letters or digits, cutting no number and leaving off no Ti or Super: "a100-80" is the
// a100-80gb, "h20" is not the h200 nor "rtx4070" the rtx4070ti; measured profiles only in full); null if
// none. Throws Error(Usage, `flag`) naming the entries when several begin so ("h100").
const Hardware* match_hardware(std::string_view name, std::string_view flag);

// `--hw NAME|FILE.json`: a table entry, or a JSON object with the fields above ("peak_tflops" an object by
// dtype name). Throws Error(Usage) for an unknown name, Error(Malformed) for a bad file.
Hardware resolve_hardware(const std::string& name_or_file, std::string_view option = "--hw");

// Time of one GEMM [M x K] x [K x N] on `hw` in `dtype` (the calibration target): kernel overhead plus the
// larger of its compute time at eta_tc(M) and its memory time (A, B and the 16-bit output, each once).
double gemm_time_s(const Hardware& hw, ComputeDType dtype, double m, double k, double n);

}  // namespace ma
