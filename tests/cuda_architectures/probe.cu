// tests/cuda_architectures/probe.cu — one kernel, compiled for the default architectures only to
// see which device code they give
__global__ void probe(double* x) { x[threadIdx.x] *= 2.0; }
