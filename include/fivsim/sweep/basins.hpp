// fivsim/sweep/basins.hpp — attractors and basins of a sweep over initial conditions (docs/METHODS.md
// "Attractors and basins"). At each value of the swept parameters that are not initial conditions
// (a group), the cases are told apart by what they settled on (their settled_min_/settled_max_
// ranges of each q and u): a periodic orbit by N, period and its N section points' ranges, an
// equilibrium by the state its cases' windows share, chaos by its samples' hull overlapping — to a
// tolerance of each coordinate's scale in the group (its extent, or the starts' spread). Along the
// groups an attractor keeps its number while it continues, and is born or dies where it does not.
// Each attractor's share of its group's cases is its basin stability, with the standard error
// √(p(1 − p)/n) of a share of n random starts (Menck, Heitzig, Marwan & Kurths, Nature Physics 9,
// 2013; bSTAB, Stender & Hoffmann, Nonlinear Dynamics 107, 2022).
// Written as basins.csv (one row per group and attractor), attractors.csv (each case's attractor)
// and summary.json's "basins", by `fivsim sweep` and `fivsim merge` from the finished cases.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/finished_cases.hpp"

namespace fivsim::sweep {

struct BasinSettings {
  double tolerance = 0.01;         // an orbit's section ranges, an equilibrium's state
  double wide_tolerance = 0.05;    // chaotic and quasi-periodic attractors' hulls
  double period_tolerance = 1e-3;  // a periodic attractor's period, relative
  // an attractor at the next value of a swept parameter continues one when their ranges'
  // midpoints (and periods) lie this close, relative to the scale (or where each is the only one
  // of its class and N at its value)
  double link_tolerance = 0.25;
};

struct Attractor {
  long group = 0;
  int id = 0;  // its number, the same at every group where it continues
  int klass = 0, period_n = 0;
  double period = 0.0;
  long cases = 0;
  long first_case = 0;        // a case that reached it (its number in the sweep)
  std::size_t first_row = 0;  // that case's row in the columns
  bool born = false;          // not at the group before, along a swept path
  bool dies = false;          // not at a group after
};

struct BasinGroup {
  std::vector<double> values;  // of the swept parameters that are not initial conditions
  long cases = 0;
  long unlabelled = 0;  // diverged, undetermined or unclassified cases: no attractor
};

struct Basins {
  std::vector<std::string> group_paths;  // the swept paths not under /initial/
  std::vector<BasinGroup> groups;
  std::vector<Attractor> attractors;  // by group, then id
  std::vector<long> case_id;          // per row: the case's number ("case", else the row)
  std::vector<long> group;            // per row
  std::vector<int> attractor;         // per row: its attractor's id in its group, 0 for none
};

// whether a sweep of these paths has basins to find: one path at least under /initial/
bool sweeps_initial_conditions(const std::vector<std::string>& swept_paths);

// the attractors of every group; `cases` holds the swept paths' columns, "class", "period_n",
// "period" (and "orbit_period" where the sweep shot orbits) and settled_min_/settled_max_ (in older
// sweeps min_/max_, else rms_) of q0 … and u0 … for n_dof DoF. Throws std::invalid_argument naming
// a column that is missing
Basins find_basins(const std::vector<std::string>& swept_paths, const NamedColumns& cases, int n_dof,
                   const BasinSettings& settings = {});

// basins.csv: the group's parameters, attractor, class, period_n, period, cases, fraction,
// standard_error, first_case (a case that reached it), change (born, dies)
std::string basins_csv(const Basins& b);
// attractors.csv: case, attractor
std::string attractors_csv(const Basins& b);
// summary.json's "basins": per group its parameters, cases and attractors with their shares, and
// "attractors": each once, with where it is born and dies
nlohmann::json basins_json(const Basins& b);
// "basins" (basins_json) into `summary` and true; or, where no group holds two starts (a
// continuous random parameter beside the initial conditions: every start a group of its own, each
// attractor's share 1), "basins_skipped" saying so, and false
bool set_basins_summary(const Basins& b, nlohmann::json& summary);
// what "basins_skipped" says of a sweep whose groups (the values of these paths) hold a start each
std::string basins_skipped_reason(const std::vector<std::string>& group_paths);

// the columns basins need from a finished sweep folder (results.h5 where there is one, else
// cases.csv), its basins into basins.csv and attractors.csv there, and "basins" into `summary`;
// nothing where the sweep does not vary initial conditions or does not classify its cases, and
// only "basins_skipped" where no two starts share a group (set_basins_summary). Returns the files
// written
std::vector<std::string> write_basins(const std::filesystem::path& dir, const std::vector<std::string>& swept_paths,
                                      int n_dof, nlohmann::json& summary);

}  // namespace fivsim::sweep
