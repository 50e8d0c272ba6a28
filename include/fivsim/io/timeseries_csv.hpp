// fivsim/io/timeseries_csv.hpp — timeseries.csv (docs/DESIGN.md §5): t, the series in
// series_names() order, each contact's state by name, a row per kept sample; written by `fivsim
// run`, compare's --series and a sweep's decimated trajectories.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "fivsim/integrate/method.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/model/model.hpp"

namespace fivsim {

// the row of a kept sample (every /output/every-th step, the start included): time, the series in
// series_names() order, each contact's state
using RunRowSink = std::function<void(double t, const std::vector<double>& values, const ContactState* states)>;
// a time series as timeseries.csv holds it (`fivsim run`, compare's --series, a sweep's
// trajectories): t, the series in series_names() order, each contact's state by name
class TimeseriesCsv {
 public:
  TimeseriesCsv(const std::filesystem::path& path, int n_dof, int n_contacts);
  void row(double t, const std::vector<double>& values, const ContactState* states);
  // as a row sink (the writer must outlive it)
  RunRowSink sink() {
    return [this](double t, const std::vector<double>& v, const ContactState* c) { row(t, v, c); };
  }
  void close() { csv_.close(); }

 private:
  CsvWriter csv_;
  int n_contacts_;
};

}  // namespace fivsim
