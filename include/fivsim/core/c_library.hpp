// fivsim/core/c_library.hpp — the C library per-case code uses (math, float limits, fixed-width
// integers), on the host and in a kernel NVRTC compiles at run time: NVRTC has no C headers, its
// math functions are built in, and the few constants and types are defined here.
#pragma once

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define DBL_EPSILON 2.2204460492503131e-16
#define FLT_EPSILON 1.19209290e-7F
#define DBL_MAX 1.7976931348623157e308
#define FLT_MAX 3.40282347e38F
#define HUGE_VAL (__longlong_as_double(0x7ff0000000000000ULL))
#define NAN (__int_as_float(0x7fffffff))
#else
#include <float.h>
#include <math.h>
#include <stdint.h>
#endif
