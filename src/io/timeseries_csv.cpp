// src/io/timeseries_csv.cpp — timeseries.csv (io/timeseries_csv.hpp).
#include "fivsim/io/timeseries_csv.hpp"

#include <string>

namespace fivsim {

TimeseriesCsv::TimeseriesCsv(const std::filesystem::path& path, int n_dof, int n_contacts)
    : csv_(path), n_contacts_(n_contacts) {
  csv_.field("t");
  for (const auto& n : series_names(n_dof, n_contacts)) csv_.field(n.c_str());
  for (int i = 0; i < n_contacts; ++i) csv_.field(("state" + std::to_string(i)).c_str());
  csv_.end_row();
}

void TimeseriesCsv::row(double t, const std::vector<double>& values, const ContactState* states) {
  csv_.field(t);
  for (double v : values) csv_.field(v);
  for (int i = 0; i < n_contacts_; ++i) csv_.field(contact_state_name(states[i]));
  csv_.end_row();
}

}  // namespace fivsim
