// fivsim/analysis/statistics.hpp — running statistics of a series without storing it.
#pragma once

#include "fivsim/core/c_library.hpp"

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

// the mean of block means and its standard error (batch means: blocks long enough to be nearly
// independent, so that the spread of their means measures the estimate's error)
struct BatchMeans {
  long count = 0;
  double mean = 0.0;
  double m2 = 0.0;  // Welford's sum of squared deviations

  FIVSIM_HD void add(double x) {
    ++count;
    const double d = x - mean;
    mean += d / static_cast<double>(count);
    m2 += d * (x - mean);
  }
  // standard error of the mean; NaN below two blocks
  FIVSIM_HD double std_error() const {
    return count > 1 ? sqrt(m2 / static_cast<double>(count - 1) / static_cast<double>(count)) : nan("");
  }
};

}  // namespace fivsim
