// src/sweep/kernel_compiler.cpp — NVRTC compiling a generated kernel against the embedded
// per-case headers (sweep/kernel_compiler.hpp); a build with CUDA only.
#include "fivsim/sweep/kernel_compiler.hpp"

#include <nvrtc.h>

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
// multiply-adds, so that the device keeps the CPU's bits
const char* const kOptions[] = {"--std=c++20", "--fmad=false", "-DFIVSIM_HAVE_CUDA=1"};

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
  kernel_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {};
}

}  // namespace fivsim::sweep
