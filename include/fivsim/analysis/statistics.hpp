// fivsim/analysis/statistics.hpp — running statistics of a series without storing it.
#pragma once

#include <math.h>

#include "fivsim/core/small_linalg.hpp"

namespace fivsim {

struct RunningStats {
  double sum = 0.0;
  double sum_sq = 0.0;
  double min = 0.0;
  double max = 0.0;
  long count = 0;

  FIVSIM_HD void add(double x) {
    if (count == 0) {
      min = max = x;
    } else {
      min = min_value(min, x);
      max = max_value(max, x);
    }
    sum += x;
    sum_sq += x * x;
    ++count;
  }
  // the sums of add without the extremes (what an RMS needs; min and max stay 0)
  FIVSIM_HD void add_square(double x) {
    sum += x;
    sum_sq += x * x;
    ++count;
  }
  FIVSIM_HD double mean() const { return count > 0 ? sum / count : 0.0; }
  // root mean square, the metric of seed 000 Tables 2–3
  FIVSIM_HD double rms() const { return count > 0 ? sqrt(sum_sq / count) : 0.0; }
};

}  // namespace fivsim
