// src/sweep/kernel_compiler.cpp — NVRTC compiling a generated kernel against the embedded
// per-case headers (sweep/kernel_compiler.hpp); a build with CUDA only.
#include "fivsim/sweep/kernel_compiler.hpp"

#include <nvrtc.h>

#include <cctype>
#include <chrono>
#include <memory>
#include <vector>

namespace fivsim::sweep {

// the headers cmake/embed_headers.cmake wrote into the build (kernel_headers.cpp)
struct EmbeddedHeader {
  const char* name;
  const char* text;
};
extern const EmbeddedHeader kEmbeddedHeaders[];
extern const int kEmbeddedHeaderCount;

namespace {

// the per-case code's arithmetic as the prebuilt kernels compile it: no contraction into fused
// multiply-adds, so that the device keeps the CPU's bits; and ptxas's resource lines in the log
// (a cubin's registers and spills, which a sweep reports)
const char* const kOptions[] = {"--std=c++20", "--fmad=false", "-DFIVSIM_HAVE_CUDA=1", "--ptxas-options=-v"};

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

std::string log_of(nvrtcProgram p) {
  std::size_t n = 0;
  if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  nvrtcGetProgramLog(p, log.data());
  log.resize(n - 1);
  return log;
}

// the number before `unit` on the first line of `log` at or after `from` holding it (−1: none)
long number_before(const std::string& log, std::size_t from, const char* unit) {
  const std::size_t at = log.find(unit, from);
  if (at == std::string::npos) return -1;
  std::size_t begin = log.find_last_not_of(' ', at - 1);
  if (begin == std::string::npos) return -1;
  const std::size_t end = begin + 1;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(log[begin - 1]))) --begin;
  return std::isdigit(static_cast<unsigned char>(log[begin])) ? std::stol(log.substr(begin, end - begin)) : -1;
}

// each entry's resources from ptxas's lines: "Compiling entry function '<entry>'", then "Function
// properties for <entry>" with "… bytes stack frame, … bytes spill stores, … bytes spill loads",
// and "Used … registers"
void read_resources(CompiledKernel& k) {
  const std::string marker = "Compiling entry function '";
  for (std::size_t at = k.log.find(marker); at != std::string::npos;) {
    const std::size_t name_at = at + marker.size(), next = k.log.find(marker, name_at);
    const std::string name = k.log.substr(name_at, k.log.find('\'', name_at) - name_at);
    // this entry's lines only
    const std::string block = k.log.substr(at, next == std::string::npos ? std::string::npos : next - at);
    KernelResources r;
    const std::size_t props = block.find("Function properties for " + name);
    if (props != std::string::npos) {
      r.stack_frame = number_before(block, props, " bytes stack frame");
      r.spill_stores = number_before(block, props, " bytes spill stores");
      r.spill_loads = number_before(block, props, " bytes spill loads");
    }
    r.registers = static_cast<int>(number_before(block, 0, " registers"));
    k.resources[name] = r;
    at = next;
  }
}

}  // namespace

std::string kernel_compiler_id() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string id = "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
  for (const char* o : kOptions) id += std::string(" ") + o;
  return id;
}

FIVSIM_COMPILE_KERNEL {
  const auto t0 = std::chrono::steady_clock::now();
  kernel_s = 0.0;
  out = {};
  std::vector<const char*> names, texts;
  for (int i = 0; i < kEmbeddedHeaderCount; ++i) {
    names.push_back(kEmbeddedHeaders[i].name);
    texts.push_back(kEmbeddedHeaders[i].text);
  }
  nvrtcProgram raw = nullptr;
  nvrtcResult r = nvrtcCreateProgram(&raw, source.c_str(), "fivsim_specialised.cu", kEmbeddedHeaderCount, texts.data(),
                                     names.data());
  if (r != NVRTC_SUCCESS) return std::string("NVRTC: ") + nvrtcGetErrorString(r);
  const Program program(raw);
  const std::string arch_option = "--gpu-architecture=" + arch;
  std::vector<const char*> options(std::begin(kOptions), std::end(kOptions));
  options.push_back(arch_option.c_str());
  if (build == KernelBuild::checking) options.push_back("-G");
  if (build == KernelBuild::frames) options.push_back("--ptxas-options=-O0");
  r = nvrtcCompileProgram(raw, static_cast<int>(options.size()), options.data());
  out.log = log_of(raw);
  if (r != NVRTC_SUCCESS) return "NVRTC could not compile the specialised kernel: " + out.log;
  const bool cubin = arch.rfind("sm_", 0) == 0;
  std::size_t n = 0;
  r = cubin ? nvrtcGetCUBINSize(raw, &n) : nvrtcGetPTXSize(raw, &n);
  if (r == NVRTC_SUCCESS) {
    out.image.assign(n, '\0');
    r = cubin ? nvrtcGetCUBIN(raw, out.image.data()) : nvrtcGetPTX(raw, out.image.data());
  }
  if (r != NVRTC_SUCCESS) return std::string("NVRTC: ") + nvrtcGetErrorString(r);
  if (cubin) read_resources(out);
  kernel_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {};
}

}  // namespace fivsim::sweep
